/**
 * The bounds StrategyRegistryV3 enforces on a submission (its NAME_*, DESCRIPTION_* constants and _checkRisk), which
 * the service checks first for a clear 400 before anything is signed. The contract stays the authority; these
 * mirror it, and test/api/domain/strategyRules.test.ts holds them against the deployed registry.
 */

/** Byte lengths of the UTF-8 texts. */
export const TEXT_BYTES = {
  name: { min: 3, max: 100 },
  description: { min: 10, max: 2000 },
} as const;

/** The risk parameters in the API's names and units, with their defaults (the spec's) and bounds (the registry's). */
export const RISK_PARAMS = {
  max_position_size_percent: { min: 1, max: 100, fallback: 10, description: "percent of AUM" },
  max_leverage: { min: 100, max: 1000, fallback: 200, description: "100 = 1x" },
  stop_loss_percent: { min: 50, max: 5000, fallback: 500, description: "basis points" },
  slippage_tolerance_bps: { min: 1, max: 1000, fallback: 100, description: "basis points" },
  correlation_threshold: { min: 0, max: 100, fallback: 70, description: "70 = 0.7" },
  // The registry allows up to 2^184 - 1; JSON numbers are exact up to 2^53 - 1.
  velocity_limit: {
    min: 1000,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 1_000_000,
    description: "max capital movement per period, USDC base units",
  },
} as const;

export type RiskParamName = keyof typeof RISK_PARAMS;

/** What is wrong with a text's UTF-8 length under the registry's bounds (a message without the field), or null. */
export function textBytesProblem(field: keyof typeof TEXT_BYTES, text: string): string | null {
  const bytes = Buffer.byteLength(text, "utf8");
  const { min, max } = TEXT_BYTES[field];
  if (bytes > max) return `must be at most ${max} bytes of UTF-8 (this one is ${bytes})`;
  if (bytes < min) return `must be at least ${min} bytes of UTF-8 (this one is ${bytes})`;
  return null;
}
