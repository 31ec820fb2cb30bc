import { z } from "zod";
import {
  depositBody,
  redeemRequestBody,
  submitBody,
  txHashParams,
  vaultActionBody,
  voteBody,
  withdrawBody,
} from "@nap/wire/live";
import type { NapClient } from "@nap/sdk";

/**
 * The agent operations as MCP tools. Each input schema is the live API's own zod request schema (the one its route
 * validates with and its OpenAPI document shows), rendered as JSON Schema by zod's toJSONSchema as the API receives
 * it (io: "input"); arguments are checked with the same schema before the call, so a bad argument is refused with
 * the API's message and the call then sends the arguments as given.
 */

export interface NapTool {
  name: string;
  title: string;
  description: string;
  /** What the tool accepts (an empty object when it takes nothing). */
  input: z.ZodType;
  /** True when the tool moves value or changes state onchain (MCP's destructiveHint is false: nothing is lost). */
  writes: boolean;
  run(nap: NapClient, args: Record<string, unknown>): Promise<unknown>;
}

const nothing = z.strictObject({});

/** The body as the API receives it: the tool's arguments pass through unchanged after validation. */
const asBody = <T>(args: Record<string, unknown>) => args as T;

export const TOOLS: NapTool[] = [
  {
    name: "nap_wallet",
    title: "Agent wallet",
    description: "The agent's server wallet: address, ETH (gas), USDC, NAP and voting power, and its vault positions.",
    input: nothing,
    writes: false,
    run: (nap) => nap.wallet(),
  },
  {
    name: "nap_vaults",
    title: "Vaults",
    description: "The NAP vaults: address, name, total assets, APY and status.",
    input: nothing,
    writes: false,
    run: (nap) => nap.vaults(),
  },
  {
    name: "nap_faucet",
    title: "Faucet",
    description: "Sends test ETH (gas) and test USDC to the agent's wallet; once a day.",
    input: nothing,
    writes: true,
    run: (nap) => nap.faucet(),
  },
  {
    name: "nap_deposit",
    title: "Deposit into a vault",
    description: "Deposits USDC from the agent's wallet into a vault (approve + deposit); answers once both are mined.",
    input: depositBody,
    writes: true,
    run: (nap, args) => nap.deposit(asBody(args)),
  },
  {
    name: "nap_withdraw",
    title: "Withdraw from a synchronous vault",
    description:
      'Withdraws amount_usdc, or redeems shares (raw, or "all"), from conservative, moderate or configurable. For aggressive, inverse and hedged use nap_redeem_request then nap_claim.',
    input: withdrawBody,
    writes: true,
    run: (nap, args) => nap.withdraw(asBody(args)),
  },
  {
    name: "nap_redeem_request",
    title: "Request a redemption (asynchronous vault)",
    description:
      "Asks to redeem shares from aggressive, inverse or hedged; the answer's ready_at says when nap_claim can take the USDC.",
    input: redeemRequestBody,
    writes: true,
    run: (nap, args) => nap.requestRedeem(asBody(args)),
  },
  {
    name: "nap_claim",
    title: "Claim a redemption",
    description: "Claims the USDC of a ready redemption request (the request is filled first if needed).",
    input: vaultActionBody,
    writes: true,
    run: (nap, args) => nap.claim(asBody(args)),
  },
  {
    name: "nap_cancel_redeem",
    title: "Cancel a redemption request",
    description: "Cancels the pending redemption request of a vault and takes its shares back.",
    input: vaultActionBody,
    writes: true,
    run: (nap, args) => nap.cancelRedeem(asBody(args)),
  },
  {
    name: "nap_submit_strategy",
    title: "Submit a strategy",
    description: "Registers a strategy onchain from the agent's wallet (name, description, optional risk parameters).",
    input: submitBody,
    writes: true,
    run: (nap, args) => nap.submitStrategy(asBody(args)),
  },
  {
    name: "nap_list_strategies",
    title: "The agent's strategies",
    description: "The strategies the agent submitted, with their status.",
    input: nothing,
    writes: false,
    run: (nap) => nap.strategies(),
  },
  {
    name: "nap_proposals",
    title: "Governance proposals",
    description: "Open and recent governance proposals with their votes.",
    input: nothing,
    writes: false,
    run: (nap) => nap.proposals(),
  },
  {
    name: "nap_vote",
    title: "Vote on a proposal",
    description: "Casts the agent's vote (support 0 against, 1 for, 2 abstain); needs tier established and NAP.",
    input: voteBody,
    writes: true,
    run: (nap, args) => nap.vote(asBody(args)),
  },
  {
    name: "nap_transaction",
    title: "Transaction status",
    description: "Status of a transaction the service sent for the agent (pending, confirmed, reverted, failed).",
    input: txHashParams,
    writes: false,
    run: (nap, args) => nap.transaction(String(args.tx_hash)),
  },
];

type JsonSchema = Record<string, unknown>;

/**
 * The tool's input as JSON Schema (draft 2020-12), from its zod schema as the API receives it. MCP wants an object
 * schema at the top, so a named schema that zod renders as a `$ref` into `$defs` (a refined object) is inlined.
 */
export function inputJsonSchema(tool: NapTool): JsonSchema {
  const { $schema: _schema, ...schema } = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" });
  void _schema;
  const ref = typeof schema.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(schema.$ref) : null;
  if (!ref) return withoutId(schema);
  const { [ref[1]]: root, ...others } = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  return withoutId({ ...root, ...(Object.keys(others).length > 0 ? { $defs: others } : {}) });
}

/** zod's `id` metadata names the schema in the OpenAPI document; it is not a JSON Schema keyword. */
function withoutId({ id: _id, ...schema }: JsonSchema): JsonSchema {
  void _id;
  return schema;
}
