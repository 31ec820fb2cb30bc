import type { z } from "zod";
import type { NapClient } from "../client";
import type { NapDataClient } from "../data";
import type { MessageSigner } from "../signer";

/**
 * One agent operation, declared once: the CLI's commands, the MCP tools, the SDK's function-calling tool
 * definitions and the AgentKit actions are all rendered from these declarations.
 */

/** What an operation runs with: the two API clients and, for registration only, the owner's wallet. */
export interface OperationContext {
  live: NapClient;
  data: NapDataClient;
  /** The wallet that owns a new agent; only `register` needs it. */
  signer?: MessageSigner;
  /** Idempotency-Key of a value-moving call (default: a new UUID per call). */
  idempotencyKey?: string;
}

export interface NapOperation<Input extends z.ZodType = z.ZodType, Name extends string = string, Result = unknown> {
  /** Stable snake_case name; tools are named `nap_<name>`. */
  name: Name;
  /** A short title for people (MCP's tool title). */
  title: string;
  /** What it does and when to use it, written for an LLM choosing a tool. */
  description: string;
  /** Its arguments: the wire contract's request schema where the API has one. */
  input: Input;
  /** Its answer, where the wire contract declares it (MCP's outputSchema). */
  output?: z.ZodType;
  /** True when it changes nothing (a read). */
  readOnly: boolean;
  /** True when it moves USDC, ETH or shares (the agent's money); such calls carry an Idempotency-Key. */
  movesValue: boolean;
  /** True when it acts as or for an agent and so needs its API key. */
  needsAgent: boolean;
  /**
   * Runs it. `args` are the arguments as given once `input` has accepted them: the API receives them unchanged
   * (the schema's transforms, such as USDC to base units, are the server's).
   */
  run(context: OperationContext, args: z.input<Input>): Promise<Result>;
}

/** Declares an operation with its argument type inferred from its schema, its name and answer type kept. */
export function defineOperation<Input extends z.ZodType, const Name extends string, Result>(
  operation: NapOperation<Input, Name, Result>,
): NapOperation<Input, Name, Result> {
  return operation;
}

/** An operation that cannot run as asked (no owner wallet to sign a registration, no such vault): tell the model. */
export class NapOperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The agent's server wallet address; refused where the server has no server wallets. */
export async function agentAddress(context: OperationContext): Promise<string> {
  const wallet = await context.live.wallet();
  if (!wallet.agent_address) throw new NapOperationError(wallet.message ?? "the server has no server wallets");
  return wallet.agent_address;
}
