import { z } from "zod";
import type { Answer } from "../client";
import { agentAddress, defineOperation } from "./operation";

/**
 * The agent's redemption requests in the asynchronous (ERC-7540) vaults: shares waiting to be filled, and filled
 * requests whose USDC waits to be claimed, with the time from which the pending part can be filled and claimed.
 */

type Position = Answer<"postApiV1Positions">["positions"][number];

export const redemption = z.object({
  vault_id: z.string(),
  vault_name: z.string(),
  pending_shares: z.string().meta({ description: "decimal shares requested and not filled yet" }),
  claimable_shares: z.string().meta({ description: "decimal shares of filled requests, claimable now" }),
  claimable_usdc: z.string().meta({ description: "decimal USDC claimable now" }),
  ready_at: z
    .number()
    .int()
    .nullable()
    .meta({ description: "Unix seconds from which the pending shares can be filled and claimed; null when none" }),
  claimable_from: z.string().nullable().meta({ description: "ready_at as an ISO 8601 UTC timestamp" }),
});

export const redemptionsOutput = z
  .object({ agent_address: z.string(), redemptions: z.array(redemption) })
  .meta({ id: "Redemptions" });

const isZero = (decimal: string) => /^0(\.0*)?$/.test(decimal);

/** A position's redemption, or null when it has neither pending nor claimable shares. */
export function redemptionOf(position: Position): z.infer<typeof redemption> | null {
  if (isZero(position.pending_redeem_shares) && isZero(position.claimable_redeem_shares)) return null;
  const readyAt = isZero(position.pending_redeem_shares) ? null : position.pending_redeem_ready_at;
  return {
    vault_id: position.vault_id,
    vault_name: position.vault_name,
    pending_shares: position.pending_redeem_shares,
    claimable_shares: position.claimable_redeem_shares,
    claimable_usdc: position.claimable_usdc,
    ready_at: readyAt,
    claimable_from: readyAt === null ? null : new Date(readyAt * 1000).toISOString(),
  };
}

export const redemptions = defineOperation({
  name: "redemptions",
  title: "Pending and claimable redemptions",
  description:
    "The agent's redemption requests in the asynchronous vaults (aggressive, inverse, hedged): shares still pending with the time from which they can be claimed (ready_at), and USDC claimable now with nap_claim.",
  input: z.strictObject({}),
  output: redemptionsOutput,
  readOnly: true,
  movesValue: false,
  needsAgent: true,
  run: async (context) => {
    const agent_address = await agentAddress(context);
    const { positions } = await context.live.positionsOf(agent_address);
    return { agent_address, redemptions: positions.flatMap((p) => redemptionOf(p) ?? []) };
  },
});
