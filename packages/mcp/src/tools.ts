import { inputJsonSchema, OPERATIONS, outputJsonSchema, toolName, type JsonSchema, type NapOperation } from "@nap/sdk";

/**
 * The MCP tools: one per operation of the SDK's operations list, named `nap_<operation>`, with the operation's
 * input schema (the wire contract's request schema as the API receives it), its output schema where the wire
 * contract declares the answer, and annotations from its declaration: read-only or not, and whether it moves
 * value (`_meta["nap/moves_value"]`, beside MCP's hints, which have no word for money).
 */

export interface NapTool {
  name: string;
  title: string;
  description: string;
  operation: NapOperation;
}

export const TOOLS: NapTool[] = (OPERATIONS as readonly NapOperation[]).map((operation) => ({
  name: toolName(operation),
  title: operation.title,
  description: operation.description,
  operation,
}));

/** The tool as tools/list gives it. */
export function listedTool(tool: NapTool) {
  const { operation } = tool;
  const output = outputJsonSchema(operation);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(operation) as JsonSchema & { type: "object" },
    ...(output ? { outputSchema: output as JsonSchema & { type: "object" } } : {}),
    annotations: {
      title: tool.title,
      readOnlyHint: operation.readOnly,
      // Nothing is lost: value moves between the agent's wallet and the vaults, and a request can be canceled.
      destructiveHint: false,
      // A read answers the same when repeated; a write repeated is a second transaction (a new Idempotency-Key).
      idempotentHint: operation.readOnly,
      openWorldHint: true,
    },
    _meta: { "nap/moves_value": operation.movesValue },
  };
}
