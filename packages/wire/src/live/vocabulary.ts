/**
 * The names and bounds a client sends to the live API. The service's domain holds the same lists (the registry's
 * bounds, the deployment's vaults); test/wire/vocabulary.test.ts fails when the two differ, so the package needs
 * nothing from the service.
 */

export const VAULT_IDS = ["conservative", "moderate", "aggressive", "inverse", "hedged", "configurable"] as const;
export type VaultId = (typeof VAULT_IDS)[number];

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
