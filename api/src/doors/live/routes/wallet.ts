import { formatEther } from "ethers";
import { z } from "zod";
import { MILESTONES } from "../../../domain/model";
import { PERMISSIONS } from "../../../domain/tiers";
import { decimalString as formatDecimal, NAP_DECIMALS, usdcNumber } from "../../../domain/units";
import { RateLimitError } from "../../../errors";
import type { FaucetOutcome } from "../../../usecases/faucet";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import { authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  decimalString,
  errorBodySchema,
  idempotencyHeaders,
  txHash,
  walletLookupBody,
} from "../../../../../packages/wire/src/live";
import { positionBody, vaultPositionSchema } from "./vaults";

/** The agent's server wallet (status, faucet) and the public NFT lookup of any wallet. */

const AGENT = { kind: "agent", minTier: PERMISSIONS.agentAccess } as const;

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

type Dripped = Extract<FaucetOutcome, { kind: "dripped" }>;
type Cooldown = Extract<FaucetOutcome, { kind: "cooldown" }>;

function dripBody(drip: Dripped): z.input<typeof faucetResponse> {
  return {
    success: true,
    agent_address: drip.agentAddress,
    tx_hash: drip.txHash,
    status: "confirmed",
    drip_amount_wei: drip.ethWei.toString(),
    drip_amount_eth: formatEther(drip.ethWei),
    drip_amount_usdc: usdcNumber(drip.usdcRaw),
    drip_amount_usdc_raw: drip.usdcRaw.toString(),
    next_eligible_timestamp: Number(drip.nextEligibleAt),
    block_number: drip.blockNumber,
  };
}

function cooldownBody(cooldown: Cooldown): z.input<typeof faucetCooldownResponse> {
  const next = Number(cooldown.nextEligibleAt);
  return {
    success: false,
    agent_address: cooldown.agentAddress,
    error: `faucet cooldown: this wallet can receive again at ${new Date(next * 1000).toISOString()} (in ${cooldown.secondsRemaining} s)`,
    next_eligible_timestamp: next,
    seconds_remaining: cooldown.secondsRemaining,
  };
}

/** Carries the faucet's cooldown out of the idempotent run without storing it (it depends on the time). */
class CooldownAnswer extends RateLimitError {
  constructor(readonly cooldown: Cooldown) {
    super("faucet cooldown", cooldown.secondsRemaining);
  }
}

export function walletRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const { wallets, faucet, idempotency } = useCases;
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/agent/wallet",
      tag: "wallet",
      summary: "Status of the agent's server wallet: balances, NAP voting power, vault positions",
      auth: AGENT,
      rateLimit: "agent",
      noStore: true,
      responses: { 200: { description: "wallet status", schema: walletResponse } },
      errors: ["CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async ({ ctx }) => {
        const agent = authenticatedAgent(ctx);
        const status = await wallets.status(agent);
        const base = { network: status.network, chain_id: status.chainId };
        if (!status.configured) {
          return {
            configured: false,
            agent_address: null,
            ...base,
            message: "server wallets are not configured on this server (SERVER_WALLET_MNEMONIC)",
          };
        }
        return {
          configured: true,
          agent_address: status.address,
          ...base,
          eth_balance: formatEther(status.ethWei),
          eth_balance_wei: status.ethWei.toString(),
          has_gas: status.hasGas,
          usdc_balance: usdcNumber(status.usdcRaw),
          usdc_balance_raw: status.usdcRaw.toString(),
          nap_balance: formatDecimal(status.napRaw, NAP_DECIMALS),
          nap_balance_raw: status.napRaw.toString(),
          voting_power: formatDecimal(status.votesRaw, NAP_DECIMALS),
          voting_power_raw: status.votesRaw.toString(),
          positions: status.positions.map(positionBody),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/faucet",
      tag: "wallet",
      summary: "Testnet ETH (and test USDC where the deployment mints it) to the agent's server wallet",
      description:
        "Sent by the relayer through NapFaucet.drip. Inside the cooldown: 429 with Retry-After and the cooldown body. " +
        "When the faucet's global budget for the window is spent (for every agent): 503 with Retry-After until the " +
        "window resets and a message naming the budget and the reset time; no transaction is sent.",
      auth: AGENT,
      rateLimit: "faucet",
      headers: idempotencyHeaders,
      noStore: true,
      responses: {
        200: { description: "dripped", schema: faucetResponse },
        429: { description: "cooldown (or a rate limit, with the body { error })", schema: faucetCooldownResponse },
        503: {
          description:
            "the faucet's budget for this window is spent (Retry-After: seconds until it resets; the message names " +
            "the budget and the reset time), or the chain, the rate limiter or the configuration is unavailable",
          schema: errorBodySchema,
        },
      },
      errors: ["CONFLICT", "TX_REJECTED", "CHAIN_UNAVAILABLE", "NOT_CONFIGURED", "UNAVAILABLE"],
      handler: async ({ headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        try {
          return await idempotency.run(agent.agentId, "faucet", key, null, async () => {
            const outcome = await faucet.drip(agent, key);
            // Only drips are stored as the key's answer; a cooldown is time-dependent and leaves the run unstored.
            if (outcome.kind === "cooldown") throw new CooldownAnswer(outcome);
            return dripBody(outcome);
          });
        } catch (error) {
          if (!(error instanceof CooldownAnswer)) throw error;
          ctx.status = 429;
          ctx.set("Retry-After", String(error.retryAfterSeconds));
          ctx.body = cooldownBody(error.cooldown);
          return undefined;
        }
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/nfts",
      tag: "lookups",
      summary: "ERC-721 holdings of a wallet among the system's collections (AgentBadges)",
      auth: null,
      rateLimit: "public",
      body: walletLookupBody,
      responses: { 200: { description: "holdings", schema: nftsResponse } },
      errors: ["CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async ({ body }) => {
        const nfts = await wallets.nftsOf(body.wallet_address);
        return {
          wallet_address: body.wallet_address,
          nfts: nfts.map((nft) => ({
            collection: nft.collection,
            contract_address: nft.contractAddress,
            token_id: nft.tokenId.toString(),
            milestone: nft.milestone,
            name: nft.name,
            minted_at: Number(nft.mintedAt),
            token_uri: nft.tokenUri,
          })),
          total: nfts.length,
        };
      },
    }),
  ];
}
