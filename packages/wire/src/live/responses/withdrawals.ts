import { z } from "zod";
import { vaultIdSchema } from "../requests";
import { txHash } from "../schemas";

/** Exits from the vaults: withdraw or redeem, and the asynchronous vaults' request, claim and cancel. */

const vaultFields = {
  success: z.literal(true),
  agent_address: z.string(),
  vault_id: vaultIdSchema,
  vault: z.string().meta({ description: "vault display name" }),
  vault_address: z.string(),
  status: z.literal("confirmed").meta({ description: "every transaction mined successfully" }),
  block_number: z.number().int(),
};

const exitFields = {
  ...vaultFields,
  tx_hash: txHash,
  amount_usdc: z.number().meta({ description: "USDC paid to the agent's wallet" }),
  amount_raw: z.string().meta({ description: "the same in 6-decimal units" }),
  shares: z.string().meta({ description: "decimal shares burnt (or counted against the claim)" }),
  shares_raw: z.string(),
  shares_balance: z.string().meta({ description: "raw integer: the wallet's shares after the exit" }),
};

export const withdrawResponse = z.object(exitFields).meta({ id: "WithdrawResult" });

export const claimResponse = z
  .object({
    ...exitFields,
    fulfill_tx: txHash.nullable().meta({ description: "the fulfilment sent for this claim, if any" }),
    fulfilled_by: z.enum(["relayer", "agent"]).nullable().meta({
      description:
        "relayer: the service's fulfiller; agent: the agent's own wallet, after FULFILLMENT_GRACE_PERIOD (anyone may fill then)",
    }),
  })
  .meta({ id: "ClaimResult" });

export const redeemRequestResponse = z
  .object({
    ...vaultFields,
    tx_hash: txHash,
    shares: z.string().meta({ description: "decimal shares moved into the request" }),
    shares_raw: z.string(),
    pending_shares_raw: z.string().meta({ description: "all shares pending for this wallet now" }),
    ready_at: z.number().int().meta({ description: "Unix seconds: from when the service's fulfiller may fill it" }),
    permissionless_at: z.number().int().meta({ description: "Unix seconds: from when anyone may fill it" }),
  })
  .meta({ id: "RedeemRequestResult" });

export const cancelResponse = z
  .object({
    ...vaultFields,
    cancel_tx: txHash.nullable().meta({
      description: "null when the request was canceled already and this call only claimed its shares back",
    }),
    claim_tx: txHash,
    shares: z.string().meta({ description: "decimal shares returned to the wallet" }),
    shares_raw: z.string(),
    shares_balance: z.string().meta({ description: "raw integer: the wallet's shares after the cancelation" }),
  })
  .meta({ id: "RedeemCancelResult" });
