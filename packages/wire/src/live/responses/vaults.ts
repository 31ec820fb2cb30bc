import { z } from "zod";
import { vaultIdSchema } from "../requests";
import { decimalString, txHash } from "../schemas";

/** Vaults: the public list, positions, deposits. */

export const vaultItem = z
  .object({
    address: z.string().meta({ description: "0x address" }),
    name: z.string(),
    asset: z.string().meta({ description: "asset symbol", example: "USDC" }),
    total_assets: z.string().meta({ description: "decimal, whole asset units", example: "1250.5" }),
    apy: z.number().meta({
      description:
        "percent per year: the rate at which reported profit is unlocking now, gross of fees (VaultLens apyBps / 100)",
    }),
    status: z.enum(["active", "paused"]),
  })
  .meta({ id: "Vault" });

export const vaultListResponse = z
  .object({ vaults: z.array(vaultItem), total: z.number().int() })
  .meta({ id: "VaultList" });

export const vaultPositionSchema = z
  .object({
    vault_address: z.string(),
    vault_name: z.string(),
    shares: decimalString("decimal shares"),
    value_usdc: decimalString("decimal USDC (convertToAssets of the shares, rounded down)"),
  })
  .meta({ id: "VaultPosition" });

export const depositResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string(),
    vault: z.string().meta({ description: "vault display name" }),
    vault_id: vaultIdSchema,
    vault_address: z.string(),
    amount_usdc: z.number(),
    approve_tx: txHash,
    deposit_tx: txHash,
    status: z.literal("confirmed").meta({ description: "both transactions mined successfully" }),
    block_number: z.number().int(),
    shares_balance: z.string().meta({ description: "raw integer: the wallet's shares after the deposit" }),
  })
  .meta({ id: "DepositResult" });

export const positionsLookupResponse = z
  .object({
    wallet_address: z.string(),
    positions: z.array(
      z.object({
        vault_id: vaultIdSchema,
        vault_address: z.string(),
        vault_name: z.string(),
        shares: decimalString("decimal shares held (not counting shares in redemption requests)"),
        shares_raw: z.string(),
        value_usdc: decimalString("decimal USDC value of the shares"),
        pending_redeem_shares: decimalString("shares in redemption requests not yet filled"),
        pending_redeem_ready_at: z.number().int().nullable().meta({
          description:
            "Unix seconds from which the pending request can be filled (the service's fulfiller) and then claimed; null when none is pending",
        }),
        claimable_redeem_shares: decimalString("shares of filled requests not yet claimed"),
        claimable_usdc: decimalString("USDC of filled requests not yet claimed"),
        claimable_cancel_shares: decimalString(
          "shares of a canceled request (ERC-7887) not yet claimed back (POST /api/v1/agent/vault/redeem-cancel claims them)",
        ),
      }),
    ),
    total: z.number().int(),
  })
  .meta({ id: "OnchainPositions" });

export const vaultPositionsResponse = z
  .object({ positions: z.array(vaultPositionSchema) })
  .meta({ id: "VaultPositions" });
