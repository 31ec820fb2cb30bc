import { TEXT_BYTES } from "../../../packages/wire/src/live/vocabulary";

/**
 * The bounds StrategyRegistryV3 enforces on a submission (its NAME_*, DESCRIPTION_* constants and _checkRisk), which
 * the service checks first for a clear 400 before anything is signed. The contract stays the authority; these
 * mirror it, and test/api/domain/strategyRules.test.ts holds them against the deployed registry. They are the wire
 * contract's, so the schema a client is given and the 400 the service answers cannot differ.
 */
export { RISK_PARAMS, TEXT_BYTES, type RiskParamName } from "../../../packages/wire/src/live/vocabulary";

/** What is wrong with a text's UTF-8 length under the registry's bounds (a message without the field), or null. */
export function textBytesProblem(field: keyof typeof TEXT_BYTES, text: string): string | null {
  const bytes = Buffer.byteLength(text, "utf8");
  const { min, max } = TEXT_BYTES[field];
  if (bytes > max) return `must be at most ${max} bytes of UTF-8 (this one is ${bytes})`;
  if (bytes < min) return `must be at least ${min} bytes of UTF-8 (this one is ${bytes})`;
  return null;
}
