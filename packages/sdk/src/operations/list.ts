import { AGENT_OPERATIONS } from "./agent";
import type { NapOperation } from "./operation";
import { READ_OPERATIONS } from "./reads";
import { redemptions } from "./redemptions";

/**
 * Every agent operation, once. The CLI, the MCP server, the function-calling tool definitions and the AgentKit
 * action provider render this list; test/operations/surfaces.test.ts holds each of them to it.
 *
 * Left out on purpose: issuing, listing and revoking API keys, the key's rotation, the exit to the operator and the
 * operator change. They are the operator's acts on the agent's credentials and on where its money may go; a model
 * handed the agent's key (often a scoped one) must find no tool that widens its own key or touches the way out.
 * They are NapClient methods, and the CLI's `nap keys` commands.
 */
export const OPERATIONS = [...AGENT_OPERATIONS, redemptions, ...READ_OPERATIONS] as const;

export type OperationName = (typeof OPERATIONS)[number]["name"];

const BY_NAME = new Map<string, NapOperation>(OPERATIONS.map((operation) => [operation.name, operation as never]));

/** The operation of that name, or undefined. */
export function findOperation(name: string): NapOperation | undefined {
  return BY_NAME.get(name);
}
