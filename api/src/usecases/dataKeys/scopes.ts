import type { Scope } from "../../../../packages/wire/src/data/vocabulary";

/**
 * Scopes of data API keys. Each route declares the scope it needs (routeScopes.ts decides a request's from the route
 * that answers it).
 *
 * Reads are public: without a key they are served on the Public tier. A key raises the caller's tier, and a key used
 * on a route outside its scopes is refused with 401 INSUFFICIENT_SCOPE (the spec's "insufficient-permission keys give
 * 401"); the caller can always drop the key and read on the Public tier.
 */

export { SCOPES, type Scope } from "../../../../packages/wire/src/data/vocabulary";

export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  "vaults:read":
    "vaults, their history, strategies, protocol statistics, status, POST /v1/vaults/batch, typed data and relays",
  "vaults:write": "signed deposits and redemptions under /v1/vaults (no key needed; a key given must hold it)",
  "users:read": "user positions and transactions under /v1/users",
  "nodes:read": "GET /v1/nodes",
  "nodes:write": "POST /v1/nodes/heartbeat (Node Operator keys only)",
  "keys:manage": "GET /v1/auth/keys and DELETE /v1/auth/keys/{key_id}: list and revoke the owner's keys",
};

/** Granted when a key is issued without a `scopes` list: every read; managing keys must be asked for. */
export { DEFAULT_SCOPES } from "../../../../packages/wire/src/data/vocabulary";

/** Scopes only a Node Operator key (issued with an operator key) may hold. */
export const OPERATOR_ONLY_SCOPES: readonly Scope[] = ["nodes:write"];
