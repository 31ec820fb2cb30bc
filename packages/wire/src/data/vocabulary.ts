/** The windows a client may ask the data API's history for. */
export const PERIODS = ["7d", "30d", "90d", "1y", "all"] as const;
export type Period = (typeof PERIODS)[number];
export const INTERVALS = ["1h", "4h", "1d", "1w"] as const;
export type Interval = (typeof INTERVALS)[number];

/** The scopes a data API key may hold; each route needs one. */
export const SCOPES = [
  "vaults:read",
  "vaults:write",
  "users:read",
  "nodes:read",
  "nodes:write",
  "keys:manage",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Granted when a key is issued without a `scopes` list: every read; managing keys must be asked for. */
export const DEFAULT_SCOPES: readonly Scope[] = ["vaults:read", "users:read", "nodes:read"];

/** A data key's lifetime in days when none is asked for, and the longest one may be issued for. */
export const DEFAULT_KEY_LIFETIME_DAYS = 90;
export const MAX_KEY_LIFETIME_DAYS = 365;
