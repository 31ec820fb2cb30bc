import { AGENT_OPERATIONS } from "./agent";
import type { NapOperation } from "./operation";
import { READ_OPERATIONS } from "./reads";
import { redemptions } from "./redemptions";

/**
 * Every agent operation, once. The CLI, the MCP server, the function-calling tool definitions and the AgentKit
 * action provider render this list; test/operations/surfaces.test.ts holds each of them to it.
 */
export const OPERATIONS = [...AGENT_OPERATIONS, redemptions, ...READ_OPERATIONS] as const;

export type OperationName = (typeof OPERATIONS)[number]["name"];

const BY_NAME = new Map<string, NapOperation>(OPERATIONS.map((operation) => [operation.name, operation as never]));

/** The operation of that name, or undefined. */
export function findOperation(name: string): NapOperation | undefined {
  return BY_NAME.get(name);
}
