import { z } from "zod";
import { VAULT_IDS } from "../../domain/model";
import { PERMISSIONS } from "../../domain/tiers";
import { IDEMPOTENCY_HEADER, readIdempotencyKey } from "../../ops/idempotency";
import { CAMPAIGN_ID, MILESTONES, PROPOSAL_STATES, STRATEGY_STATUSES, type OnchainService } from "../../ops/onchain";
import type { Services } from "../../services";
import { authenticatedAgent } from "../auth";
import { defineRoute, type RouteDefinition } from "../route";
import { addressSchema } from "../schemas";

/**
 * The onchain endpoints of the live API (issue 6): vault deposit and positions, strategy submission and listing,
 * wallet status, governance proposals and votes, faucet, campaign eligibility, and the public NFT and position
 * lookups. Writes go through the transaction engine (services.onchain); POSTs that move value take an
 * Idempotency-Key header.
 */

const AGENT = { kind: "agent", minTier: PERMISSIONS.agentAccess } as const;
const hex = z.string().meta({ description: "0x-prefixed hex" });
const txHash = z.string().meta({ description: "transaction hash", example: "0x5c50...e1" });
const decimalString = (description: string) => z.string().meta({ description });

const idempotencyParameter = {
  parameters: [
    {
      name: IDEMPOTENCY_HEADER,
      in: "header",
      required: false,
      description:
        "Any 1-255 printable ASCII characters. A retry with the same key returns the first successful answer and never sends a second transaction; concurrent duplicates wait for the first.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    },
  ],
};

// ------------------------------------------------------------------------------------------------ schemas

export const vaultPositionSchema = z
  .object({
    vault_address: z.string(),
    vault_name: z.string(),
    shares: decimalString("decimal shares"),
    value_usdc: decimalString("decimal USDC (convertToAssets of the shares, rounded down)"),
  })
  .meta({ id: "VaultPosition" });

export const depositBody = z
  .strictObject({
    vault_id: z.enum(VAULT_IDS),
    amount_usdc: z
      .number()
      .positive()
      .max(1e12)
      .meta({ description: "whole USDC (100.5 = 100.5 USDC), greater than 0, at most 6 decimal places" }),
  })
  .meta({ id: "DepositRequest" });

export const depositResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string(),
    vault: z.string().meta({ description: "vault display name" }),
    vault_id: z.enum(VAULT_IDS),
    vault_address: z.string(),
    amount_usdc: z.number(),
    approve_tx: txHash,
    deposit_tx: txHash,
    status: z.literal("confirmed").meta({ description: "both transactions mined successfully" }),
    block_number: z.number().int(),
    shares_balance: z.string().meta({ description: "raw integer: the wallet's shares after the deposit" }),
  })
  .meta({ id: "DepositResult" });

const riskField = (min: number, max: number | null, fallback: number, description: string) =>
  (max === null ? z.number().int().min(min).max(Number.MAX_SAFE_INTEGER) : z.number().int().min(min).max(max))
    .default(fallback)
    .meta({
      description: `${description}; default ${fallback}; ${max === null ? `at least ${min}` : `${min}-${max}`}`,
    });

export const riskParamsShape = {
  max_position_size_percent: riskField(1, 100, 10, "percent of AUM"),
  max_leverage: riskField(100, 1000, 200, "100 = 1x"),
  stop_loss_percent: riskField(50, 5000, 500, "basis points"),
  slippage_tolerance_bps: riskField(1, 1000, 100, "basis points"),
  correlation_threshold: riskField(0, 100, 70, "70 = 0.7"),
  velocity_limit: riskField(1000, null, 1_000_000, "max capital movement per period, USDC base units"),
  flash_loans_enabled: z.boolean().default(false).meta({ description: "default false" }),
};

export const submitBody = z
  .strictObject({
    name: z.string().min(3).max(100),
    description: z.string().min(10).max(2000),
    dna_string: z
      .string()
      .regex(/^(0x)?[0-9a-fA-F]{64}$/, { message: "must be 64 hex characters (32 bytes), 0x prefix optional" })
      .optional()
      .meta({
        description:
          "32 bytes hex; when omitted: keccak256(abi.encode(string name, address agent_address, uint256 unix_seconds_of_the_request))",
      }),
    ...riskParamsShape,
  })
  .meta({ id: "StrategySubmission" });

const riskParamsResponse = z
  .object({
    max_position_size_percent: z.number().int(),
    max_leverage: z.number().int(),
    stop_loss_percent: z.number().int(),
    slippage_tolerance_bps: z.number().int(),
    correlation_threshold: z.number().int(),
    velocity_limit: z.number().int(),
    flash_loans_enabled: z.boolean(),
  })
  .meta({ id: "RiskParams" });

export const submitResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string(),
    strategy_name: z.string(),
    strategy_id: hex,
    dna_string: hex,
    risk_params: riskParamsResponse,
    tx_hash: txHash,
    status: z.literal("confirmed").meta({ description: "the transaction is mined" }),
    strategy_status: z.literal("shadow").meta({ description: "lifecycle status of a new strategy" }),
    block_number: z.number().int(),
    gas_used: z.number().int(),
  })
  .meta({ id: "StrategySubmitResult" });

export const strategyListResponse = z
  .object({
    agent_address: z.string(),
    strategies: z.array(
      z.object({
        strategy_id: hex,
        name: z.string(),
        description: z.string(),
        status: z.enum(STRATEGY_STATUSES),
        created_at: z.number().int().meta({ description: "Unix seconds" }),
        last_status_change: z.number().int().meta({ description: "Unix seconds" }),
        strategy_contract: z.string().meta({ description: "StrategyRegistryV3 address" }),
      }),
    ),
    total_count: z.number().int(),
  })
  .meta({ id: "StrategyList" });

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

const proposalSchema = z
  .object({
    proposal_id: z.string().meta({ description: "uint256 as a decimal string (sequential 1, 2, 3...)" }),
    proposer: z.string(),
    description: z.string(),
    state: z.enum(PROPOSAL_STATES),
    votes_for: decimalString("NAP, decimal"),
    votes_against: decimalString("NAP, decimal"),
    votes_abstain: decimalString("NAP, decimal"),
    quorum: decimalString("NAP needed (for + abstain); 0 before the snapshot"),
    vote_start: z.number().int().meta({ description: "snapshot, Unix seconds: voting opens after it" }),
    vote_end: z.number().int().meta({ description: "deadline, Unix seconds" }),
    eta: z.number().int().meta({ description: "execution time when queued, else 0" }),
    targets: z.array(z.string()),
  })
  .meta({ id: "Proposal" });

export const proposalsResponse = z
  .object({ proposals: z.array(proposalSchema), total: z.number().int() })
  .meta({ id: "ProposalList" });

export const voteBody = z
  .strictObject({
    proposal_id: z
      .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^[1-9][0-9]{0,77}$/)])
      .meta({ description: "integer, or a decimal string for ids beyond 2^53" }),
    support: z.union([z.literal(0), z.literal(1), z.literal(2)]).meta({ description: "0 against, 1 for, 2 abstain" }),
    reason: z.string().max(1000).default(""),
  })
  .meta({ id: "VoteRequest" });

export const voteResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string(),
    proposal_id: z.string(),
    support: z.number().int(),
    support_label: z.enum(["against", "for", "abstain"]),
    reason: z.string(),
    weight: decimalString("votes counted, NAP decimal"),
    weight_raw: z.string(),
    tx_hash: txHash,
    status: z.literal("confirmed"),
    block_number: z.number().int(),
    gas_used: z.number().int(),
  })
  .meta({ id: "VoteResult" });

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

export const eligibilityResponse = z
  .object({
    campaign_id: z.literal(CAMPAIGN_ID),
    agent_address: z.string(),
    eligible: z.boolean().meta({ description: "every criterion met" }),
    criteria: z.array(
      z.object({
        id: z.enum(["registered", "tier_registered", "strategy_submitted", "vault_deposit"]),
        description: z.string(),
        met: z.boolean(),
        value: z.union([z.string(), z.number()]).meta({ description: "the measured value" }),
      }),
    ),
  })
  .meta({ id: "CampaignEligibility" });

export const walletLookupBody = z.strictObject({ wallet_address: addressSchema }).meta({ id: "WalletLookup" });

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

export const positionsLookupResponse = z
  .object({
    wallet_address: z.string(),
    positions: z.array(
      z.object({
        vault_id: z.enum(VAULT_IDS),
        vault_address: z.string(),
        vault_name: z.string(),
        shares: decimalString("decimal shares held (not counting shares in redemption requests)"),
        shares_raw: z.string(),
        value_usdc: decimalString("decimal USDC value of the shares"),
        pending_redeem_shares: decimalString("shares in redemption requests not yet filled"),
        claimable_redeem_shares: decimalString("shares of filled requests not yet claimed"),
        claimable_usdc: decimalString("USDC of filled requests not yet claimed"),
      }),
    ),
    total: z.number().int(),
  })
  .meta({ id: "OnchainPositions" });

// ------------------------------------------------------------------------------------------------ routes

function onchain(services: Services): OnchainService {
  return services.onchain;
}

export function onchainRoutes(services: Services): RouteDefinition[] {
  const ops = onchain(services);
  return [
    defineRoute({
      method: "post",
      path: "/api/v1/agent/vault/deposit",
      tag: "vaults",
      summary: "Deposit USDC from the agent's server wallet into a vault (approve + deposit)",
      auth: AGENT,
      rateLimit: "write",
      body: depositBody,
      responses: { 200: { description: "both transactions mined", schema: depositResponse } },
      openapi: idempotencyParameter,
      handler: async ({ body, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = readIdempotencyKey(ctx.get(IDEMPOTENCY_HEADER) || undefined);
        return ops.idempotency.run(agent.agentId, "vault.deposit", key, body, () =>
          ops.deposit(agent, body.vault_id, body.amount_usdc, key),
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/vault/positions",
      tag: "vaults",
      summary: "Vault positions of the agent's server wallet",
      auth: AGENT,
      rateLimit: "agent",
      responses: {
        200: {
          description: "positions (vaults with shares or open redemption requests)",
          schema: z.object({ positions: z.array(vaultPositionSchema) }).meta({ id: "VaultPositions" }),
        },
      },
      handler: async ({ ctx }) => {
        const positions = await ops.positionsOf(ops.agentAddress(authenticatedAgent(ctx)));
        return {
          positions: positions.map((p) => ({
            vault_address: p.vault_address,
            vault_name: p.vault_name,
            shares: p.shares,
            value_usdc: p.value_usdc,
          })),
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/strategy/submit",
      tag: "strategies",
      summary: "Submit a strategy to StrategyRegistryV3 from the agent's server wallet",
      auth: AGENT,
      rateLimit: "write",
      body: submitBody,
      responses: { 200: { description: "strategy recorded onchain (status shadow)", schema: submitResponse } },
      openapi: idempotencyParameter,
      handler: async ({ body, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = readIdempotencyKey(ctx.get(IDEMPOTENCY_HEADER) || undefined);
        const { name, description, dna_string, ...risk } = body;
        return ops.idempotency.run(agent.agentId, "strategy.submit", key, body, () =>
          ops.submitStrategy(agent, { name, description, dna_string, risk }, key),
        );
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/strategy/list",
      tag: "strategies",
      summary: "The agent's strategies, enumerated from the registry",
      auth: AGENT,
      rateLimit: "agent",
      responses: { 200: { description: "strategies", schema: strategyListResponse } },
      handler: async ({ ctx }) => ops.listStrategies(authenticatedAgent(ctx)),
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/wallet",
      tag: "wallet",
      summary: "Status of the agent's server wallet: balances, NAP voting power, vault positions",
      auth: AGENT,
      rateLimit: "agent",
      responses: { 200: { description: "wallet status", schema: walletResponse } },
      handler: async ({ ctx }) => ops.walletStatus(authenticatedAgent(ctx)),
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/proposals",
      tag: "governance",
      summary: "Governance proposals that are pending or active, from the governor's enumeration views",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "proposals", schema: proposalsResponse } },
      handler: async () => ops.proposals(),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/governance/vote",
      tag: "governance",
      summary: "Cast a vote from the agent's server wallet (tier established or higher)",
      auth: { kind: "agent", minTier: PERMISSIONS.governanceVote },
      rateLimit: "write",
      body: voteBody,
      responses: { 200: { description: "vote mined", schema: voteResponse } },
      openapi: idempotencyParameter,
      handler: async ({ body, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = readIdempotencyKey(ctx.get(IDEMPOTENCY_HEADER) || undefined);
        return ops.idempotency.run(agent.agentId, "governance.vote", key, body, () =>
          ops.vote(agent, BigInt(body.proposal_id), body.support as 0 | 1 | 2, body.reason, key),
        );
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/faucet",
      tag: "wallet",
      summary: "Testnet ETH (and test USDC where the deployment mints it) to the agent's server wallet",
      description:
        "Sent by the relayer through NapFaucet.drip. Inside the cooldown: 429 with Retry-After and the cooldown body.",
      auth: AGENT,
      rateLimit: "faucet",
      responses: {
        200: { description: "dripped", schema: faucetResponse },
        429: { description: "cooldown (or rate limit: { error })", schema: faucetCooldownResponse },
      },
      openapi: idempotencyParameter,
      handler: async ({ ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = readIdempotencyKey(ctx.get(IDEMPOTENCY_HEADER) || undefined);
        const outcome = await ops.idempotency
          .run(agent.agentId, "faucet", key, null, async () => {
            const result = await ops.faucet(agent, key);
            // Only drips are stored as the key's answer; a cooldown is time-dependent and thrown out of the run.
            if (result.kind === "cooldown") throw new CooldownAnswer(result.body, result.retryAfterSeconds);
            return result.body;
          })
          .catch((error: unknown) => {
            if (error instanceof CooldownAnswer) return error;
            throw error;
          });
        if (outcome instanceof CooldownAnswer) {
          ctx.status = 429;
          ctx.set("Retry-After", String(Math.max(1, outcome.retryAfterSeconds)));
          ctx.body = outcome.body;
          return undefined;
        }
        return outcome;
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/galaxy/eligibility",
      tag: "campaign",
      summary: "Eligibility of the agent for the quest campaign, criterion by criterion",
      auth: AGENT,
      rateLimit: "agent",
      responses: { 200: { description: "eligibility", schema: eligibilityResponse } },
      handler: async ({ ctx }) => ops.eligibility(authenticatedAgent(ctx)),
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
      handler: async ({ body }) => ops.nftsOf(body.wallet_address),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/positions",
      tag: "lookups",
      summary: "Vault positions of a wallet, with pending and claimable redemption requests",
      auth: null,
      rateLimit: "public",
      body: walletLookupBody,
      responses: { 200: { description: "positions", schema: positionsLookupResponse } },
      handler: async ({ body }) => {
        const positions = await ops.positionsOf(body.wallet_address);
        return { wallet_address: body.wallet_address, positions, total: positions.length };
      },
    }),
  ];
}

/** Carries the faucet's cooldown answer out of the idempotent run without storing it. */
class CooldownAnswer extends Error {
  constructor(
    readonly body: Record<string, unknown>,
    readonly retryAfterSeconds: number,
  ) {
    super("faucet cooldown");
  }
}
