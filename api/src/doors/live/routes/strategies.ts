import { z } from "zod";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import type { OnchainRiskParams } from "../../../chain/events";
import type { SubmittedStrategy } from "../../../usecases/strategies";
import { agentAuth, authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  idempotencyHeaders,
  riskParamsResponse,
  strategyListResponse,
  submitBody,
  submitResponse,
} from "../../../../../packages/wire/src/live";

/** Strategies: submission to StrategyRegistryV3 from the agent's server wallet, and the agent's list. */

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
      auth: agentAuth("strategy.submit"),
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
      auth: agentAuth("read"),
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
