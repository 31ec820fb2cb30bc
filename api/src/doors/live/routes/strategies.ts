import { z } from "zod";
import { STRATEGY_STATUSES } from "../../../domain/model";
import { PERMISSIONS } from "../../../domain/tiers";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import type { OnchainRiskParams } from "../../../chain/events";
import type { SubmittedStrategy } from "../../../usecases/strategies";
import { authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { hex, idempotencyHeaders, submitBody, txHash } from "../../../../../packages/wire/src/live";

/** Strategies: submission to StrategyRegistryV3 from the agent's server wallet, and the agent's list. */

const AGENT = { kind: "agent", minTier: PERMISSIONS.agentAccess } as const;

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

function riskBody(params: OnchainRiskParams): z.input<typeof riskParamsResponse> {
  return {
    max_position_size_percent: Number(params.maxPositionSizePercent),
    max_leverage: Number(params.maxLeverage),
    stop_loss_percent: Number(params.stopLossPercent),
    slippage_tolerance_bps: Number(params.slippageToleranceBps),
    correlation_threshold: Number(params.correlationThreshold),
    velocity_limit: Number(params.velocityLimit),
    flash_loans_enabled: params.flashLoansEnabled,
  };
}

function submitBodyOf(submitted: SubmittedStrategy): z.input<typeof submitResponse> {
  return {
    success: true,
    agent_address: submitted.agentAddress,
    strategy_name: submitted.strategy.name,
    strategy_id: submitted.strategy.id,
    dna_string: submitted.strategy.dna,
    risk_params: riskBody(submitted.strategy.params),
    tx_hash: submitted.txHash,
    status: "confirmed",
    strategy_status: "shadow",
    block_number: submitted.blockNumber,
    gas_used: Number(submitted.gasUsed),
  };
}

export function strategyRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const { strategies, idempotency } = useCases;
  return [
    defineRoute({
      method: "post",
      path: "/api/v1/agent/strategy/submit",
      tag: "strategies",
      summary: "Submit a strategy to StrategyRegistryV3 from the agent's server wallet",
      auth: AGENT,
      rateLimit: "write",
      headers: idempotencyHeaders,
      body: submitBody,
      noStore: true,
      responses: { 200: { description: "strategy recorded onchain (status shadow)", schema: submitResponse } },
      errors: ["CONFLICT", "TX_REJECTED", "CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        const { name, description, dna_string: dna, ...risk } = body;
        return idempotency.run(agent.agentId, "strategy.submit", key, body, async () =>
          submitBodyOf(await strategies.submit(agent, { name, description, dna, risk }, key)),
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
      noStore: true,
      responses: { 200: { description: "strategies", schema: strategyListResponse } },
      errors: ["CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async ({ ctx }) => {
        const list = await strategies.list(authenticatedAgent(ctx));
        return {
          agent_address: list.agentAddress,
          strategies: list.strategies.map((strategy) => ({
            strategy_id: strategy.id,
            name: strategy.name,
            description: strategy.description,
            status: strategy.status,
            created_at: Number(strategy.createdAt),
            last_status_change: Number(strategy.lastStatusChange),
            strategy_contract: list.registry,
          })),
          total_count: list.strategies.length,
        };
      },
    }),
  ];
}
