import { formatEther } from "ethers";
import { z } from "zod";
import { decimalString as formatDecimal, NAP_DECIMALS, usdcNumber } from "../../../domain/units";
import { RateLimitError } from "../../../errors";
import type { FaucetOutcome } from "../../../usecases/faucet";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import { agentAuth, authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  errorBodySchema,
  faucetCooldownResponse,
  faucetResponse,
  idempotencyHeaders,
  nftsResponse,
  walletLookupBody,
  walletResponse,
} from "../../../../../packages/wire/src/live";
import { positionBody } from "./vaults";

/** The agent's server wallet (status, faucet) and the public NFT lookup of any wallet. */

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
      auth: agentAuth("read"),
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
      auth: agentAuth("faucet"),
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
