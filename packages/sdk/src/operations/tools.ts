import { validationMessage } from "@nap/wire";
import { NapApiError, NapNetworkError } from "../errors";
import { inputJsonSchema, type JsonSchema } from "./jsonSchema";
import { findOperation, OPERATIONS } from "./list";
import { NapOperationError, type NapOperation, type OperationContext } from "./operation";

/**
 * The operations as tools for an LLM's function calling, and the executor that runs a call by name. The
 * definitions carry JSON Schema as each provider takes it as-is; the executor checks the arguments with the same
 * zod schema before anything is sent, so a model's mistake comes back as "field: rule" to correct.
 */

/** The tool's name for a model: `nap_<operation>`. */
export const toolName = (operation: Pick<NapOperation, "name">) => `nap_${operation.name}`;

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: JsonSchema;
}
/** OpenAI's Chat Completions and Responses `tools` entries. */
export interface OpenAiTool {
  type: "function";
  function: ToolDefinition;
}
/** Anthropic's Messages API `tools` entries. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export interface ToolDefinitionOptions {
  /** Leave out the operations that move value (for a read-only agent). */
  readOnly?: boolean;
}

function selected(options: ToolDefinitionOptions): readonly NapOperation[] {
  return (OPERATIONS as readonly NapOperation[]).filter((operation) => !options.readOnly || operation.readOnly);
}

/**
 * The tool definitions, provider-neutral: `{ name, description, parameters }`. For the Vercel AI SDK:
 * `tool({ description, inputSchema: jsonSchema(parameters), execute: (args) => runTool(context, name, args) })`.
 */
export function toolDefinitions(options: ToolDefinitionOptions = {}): ToolDefinition[] {
  return selected(options).map((operation) => ({
    name: toolName(operation),
    description: operation.description,
    parameters: inputJsonSchema(operation),
  }));
}

/** `{ type: "function", function: { name, description, parameters } }` for OpenAI's `tools`. */
export function openAiTools(options: ToolDefinitionOptions = {}): OpenAiTool[] {
  return toolDefinitions(options).map((definition) => ({ type: "function", function: definition }));
}

/** `{ name, description, input_schema }` for Anthropic's `tools`. */
export function anthropicTools(options: ToolDefinitionOptions = {}): AnthropicTool[] {
  return toolDefinitions(options).map(({ name, description, parameters }) => ({
    name,
    description,
    input_schema: parameters,
  }));
}

/** Arguments the operation's schema refused, or a tool name that is none of the operations'. */
export class NapToolArgumentError extends NapOperationError {}

/** The operation named `name` (`nap_deposit` or `deposit`). */
export function operationOfTool(name: string): NapOperation {
  const operation = findOperation(name.startsWith("nap_") ? name.slice("nap_".length) : name);
  if (!operation) throw new NapToolArgumentError(`unknown tool ${name}`);
  return operation;
}

/** Checks `args` with the operation's schema and runs it; refuses bad arguments before any request. */
export async function runOperation(
  context: OperationContext,
  operation: NapOperation,
  args: unknown = {},
): Promise<unknown> {
  const checked = operation.input.safeParse(args ?? {});
  if (!checked.success) throw new NapToolArgumentError(validationMessage(checked.error, "arguments", args));
  return operation.run(context, (args ?? {}) as never);
}

/** Runs the tool call `name(args)` (a model's function call) for the context's agent. */
export function runTool(context: OperationContext, name: string, args: unknown = {}): Promise<unknown> {
  return runOperation(context, operationOfTool(name), args);
}

/** A failed call as a model should read it: the API's message, its status and code where it gave them. */
export interface ToolFailure {
  message: string;
  status?: number;
  code?: string;
  retryAfterSeconds?: number;
}

/** What to tell the model about `error`, or undefined for an error that is a bug (to be thrown on). */
export function toolFailure(error: unknown): ToolFailure | undefined {
  if (error instanceof NapApiError) {
    return {
      message: error.message,
      status: error.status,
      ...(error.code !== undefined ? { code: error.code } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  if (error instanceof NapNetworkError || error instanceof NapOperationError) return { message: error.message };
  return undefined;
}

/** One line for the model: "400: amount_usdc: ...", "404 VAULT_NOT_FOUND: ...", or the message alone. */
export function toolFailureText(failure: ToolFailure): string {
  const status = failure.status !== undefined ? `${failure.status}${failure.code ? ` ${failure.code}` : ""}: ` : "";
  const retry = failure.retryAfterSeconds !== undefined ? ` (retry in ${failure.retryAfterSeconds} s)` : "";
  return `${status}${failure.message}${retry}`;
}
