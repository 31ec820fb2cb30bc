import { z } from "zod";
import { hex, txHash } from "../schemas";
import { STRATEGY_STATUSES } from "../vocabulary";

/** Strategies: a submission's result and the agent's list. */

export const riskParamsResponse = z
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
