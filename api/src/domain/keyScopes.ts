import type { KeyOperation } from "../../../packages/wire/src/live/vocabulary";

/**
 * What a scoped API key may do, and the rules that decide it. A scoped key is the agent's key for handing to an LLM:
 * it reads, calls the operations it names, and moves at most `usdcPerDay` USDC out of the agent's wallet per UTC
 * day. Everything a key is checked against is named here once, so the doors and the stores apply one rule.
 */

export { KEY_OPERATIONS, type KeyOperation } from "../../../packages/wire/src/live/vocabulary";

/**
 * What a keyed live route needs of the key: `read` (every key of the agent), one operation (the full key, or a scoped
 * key that names it), or `full_key` (only the agent's own key: issuing and revoking keys).
 */
export type KeyAccess = "read" | "full_key" | KeyOperation;

export interface KeyScope {
  readOnly: boolean;
  /** Empty when read-only. */
  operations: KeyOperation[];
  /** Micro-USDC the key may move out of the agent's wallet per UTC day; null: no daily limit. */
  usdcPerDay: bigint | null;
}

/** True when a key of `scope` may call a route that needs `access`; operation names match exactly. */
export function scopeAllows(scope: KeyScope, access: KeyAccess): boolean {
  if (access === "read") return true;
  if (access === "full_key" || scope.readOnly) return false;
  return scope.operations.includes(access);
}

/** The scope in words, as errors and the signed issuance message name it. */
export function describeScope(scope: KeyScope): string {
  const reach = scope.readOnly ? "read only" : `reads and ${scope.operations.join(", ")}`;
  return scope.usdcPerDay === null ? reach : `${reach}, at most ${scope.usdcPerDay} USDC base units a day`;
}

/** The UTC day of `at` (YYYY-MM-DD): the period a daily limit counts in. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The next 00:00 UTC after `at`: when a daily limit starts again. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** The daily limit's one rule: a reservation fits when what is spent plus what it needs stays within the limit. */
export function fitsDailyLimit(spent: bigint, amount: bigint, limit: bigint): boolean {
  return spent + amount <= limit;
}
