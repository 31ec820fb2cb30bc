import type { StrategyStatus } from "./model";

/**
 * Automated screening of new strategies (the `shadow` status of StrategyRegistryV3). Documented in docs/api.md
 * ("Automated screening"). The rules are deterministic and read only the strategy's onchain risk parameters, so anyone
 * can predict the verdict from the registry.
 *
 * A strategy passes (shadow -> guardian_review, `passScreening`) when all hold:
 * - max_leverage <= 500 (5x; the registry accepts 100-1000, hundredths of x);
 * - stop_loss_percent <= 2000 (20%; the registry accepts 50-5000, hundredths of a percent);
 * - max_position_size_percent <= 50 (at most half of the capital in one position);
 * - not (flash_loans_enabled and max_leverage > 300): flash loans only with leverage of 3x or less.
 * Otherwise it fails (shadow -> deprecated, `failScreening`). The relayer (SCREENER_ROLE) sends the transaction.
 */

export type ScreeningMode = "auto" | "off";
export const SCREENING_MODES = ["auto", "off"] as const satisfies readonly ScreeningMode[];

export const SCREENING_RULES = {
  maxLeverage: 500,
  maxStopLossPercent: 2000,
  maxPositionSizePercent: 50,
  /** With flash loans enabled, leverage must be at most this. */
  maxLeverageWithFlashLoans: 300,
} as const;

/** At start-up, at most this many agents are swept and at most this many shadow strategies screened. */
export const SWEEP_MAX_AGENTS = 1_000;
export const SWEEP_MAX_STRATEGIES = 200;

export interface ScreenedParams {
  maxPositionSizePercent: bigint | number;
  maxLeverage: bigint | number;
  stopLossPercent: bigint | number;
  flashLoansEnabled: boolean;
}

export interface ScreeningVerdict {
  pass: boolean;
  /** Every rule the strategy breaks (empty when it passes). */
  reasons: string[];
}

/** The verdict of the rules above on one strategy's risk parameters. */
export function screenStrategy(params: ScreenedParams): ScreeningVerdict {
  const leverage = Number(params.maxLeverage);
  const stopLoss = Number(params.stopLossPercent);
  const position = Number(params.maxPositionSizePercent);
  const reasons: string[] = [];
  if (leverage > SCREENING_RULES.maxLeverage) {
    reasons.push(`max_leverage ${leverage} above ${SCREENING_RULES.maxLeverage}`);
  }
  if (stopLoss > SCREENING_RULES.maxStopLossPercent) {
    reasons.push(`stop_loss_percent ${stopLoss} above ${SCREENING_RULES.maxStopLossPercent}`);
  }
  if (position > SCREENING_RULES.maxPositionSizePercent) {
    reasons.push(`max_position_size_percent ${position} above ${SCREENING_RULES.maxPositionSizePercent}`);
  }
  if (params.flashLoansEnabled && leverage > SCREENING_RULES.maxLeverageWithFlashLoans) {
    reasons.push(`flash loans with max_leverage ${leverage} above ${SCREENING_RULES.maxLeverageWithFlashLoans}`);
  }
  return { pass: reasons.length === 0, reasons };
}

/** Intent key of the screening transaction of one strategy: one screening per strategy, ever, on any instance. */
export function screeningIntentKey(chainId: number, strategyId: string): string {
  return `screen:${chainId}:${strategyId.toLowerCase()}`;
}

/**
 * True when a strategy in this status passed screening: it left shadow and is not deprecated. (A deprecated strategy
 * may have failed screening; the registry does not tell, so it never counts.)
 */
export function passedScreening(status: StrategyStatus): boolean {
  return status !== "shadow" && status !== "deprecated";
}
