import { z } from "zod";
import { decimalString, txHash } from "../schemas";
import { MILESTONES } from "../vocabulary";
import { vaultPositionSchema } from "./vaults";

/** The agent's server wallet (status, faucet) and the NFT holdings of any wallet. */

export const walletResponse = z
  .object({
    configured: z.boolean(),
    agent_address: z.string().nullable().meta({ description: "the agent's server wallet (null when not configured)" }),
    network: z.string(),
    chain_id: z.number().int(),
    eth_balance: decimalString("decimal ETH").optional(),
    eth_balance_wei: z.string().optional(),
    has_gas: z.boolean().optional().meta({ description: "balance covers 300,000 gas at the current max fee" }),
    usdc_balance: z.number().optional(),
    usdc_balance_raw: z.string().optional(),
    nap_balance: decimalString("NAP governance token balance, decimal").optional(),
    nap_balance_raw: z.string().optional(),
    voting_power: decimalString("current NAP votes (ERC-5805 getVotes), decimal").optional(),
    voting_power_raw: z.string().optional(),
    positions: z.array(vaultPositionSchema).optional(),
    message: z.string().optional(),
  })
  .meta({ id: "WalletStatus" });

export const faucetResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string(),
    tx_hash: txHash,
    status: z.literal("confirmed"),
    drip_amount_wei: z.string(),
    drip_amount_eth: decimalString("decimal ETH"),
    drip_amount_usdc: z.number().meta({ description: "test USDC sent with the drip (0 where the faucet sends none)" }),
    drip_amount_usdc_raw: z.string(),
    next_eligible_timestamp: z.number().int(),
    block_number: z.number().int(),
  })
  .meta({ id: "FaucetDrip" });

export const faucetCooldownResponse = z
  .object({
    success: z.literal(false),
    agent_address: z.string(),
    error: z.string(),
    next_eligible_timestamp: z.number().int().meta({ description: "Unix seconds" }),
    seconds_remaining: z.number().int(),
  })
  .meta({ id: "FaucetCooldown" });

export const nftsResponse = z
  .object({
    wallet_address: z.string(),
    nfts: z.array(
      z.object({
        collection: z.literal("AgentBadges"),
        contract_address: z.string(),
        token_id: z.string(),
        milestone: z.enum(MILESTONES),
        name: z.string(),
        minted_at: z.number().int().meta({ description: "Unix seconds" }),
        token_uri: z.string().meta({ description: "data:application/json;base64,..." }),
      }),
    ),
    total: z.number().int(),
  })
  .meta({ id: "NftHoldings" });
