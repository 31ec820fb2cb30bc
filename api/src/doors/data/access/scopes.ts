/**
 * Scopes of data API keys and the scope each /v1 route needs when it is called with a key.
 *
 * Reads are public: without a key they are served on the Public tier. A key raises the caller's tier, and a key used
 * on a route outside its scopes is refused with 401 INSUFFICIENT_SCOPE (the spec's "insufficient-permission keys give
 * 401"); the caller can always drop the key and read on the Public tier.
 */

export const SCOPES = ["vaults:read", "vaults:write", "users:read", "nodes:read", "nodes:write"] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  "vaults:read": "vaults, their history, strategies, protocol statistics, status, POST /v1/vaults/batch",
  "vaults:write": "vault writes under /v1/vaults (reserved: the data API has no write route yet)",
  "users:read": "user positions and transactions under /v1/users",
  "nodes:read": "GET /v1/nodes",
  "nodes:write": "POST /v1/nodes/heartbeat (Node Operator keys only)",
};

/** Granted when a key is issued without a `scopes` list: every read. */
export const DEFAULT_SCOPES: readonly Scope[] = ["vaults:read", "users:read", "nodes:read"];

/** Scopes only a Node Operator key (issued with an operator key) may hold. */
export const OPERATOR_ONLY_SCOPES: readonly Scope[] = ["nodes:write"];

/**
 * The scope a request needs when it carries a key; undefined when any valid key will do (the access routes
 * themselves, unknown paths that answer 404).
 */
export function requiredScope(method: string, path: string): Scope | undefined {
  const read = method === "GET" || method === "HEAD";
  const segments = path.split("/").filter((segment) => segment !== "");
  if (segments[0] !== "v1") return undefined;
  const area = segments[1];
  switch (area) {
    case "vaults":
      if (read) return "vaults:read";
      // The batch read is a POST with a list of ids in its body.
      return segments.length === 3 && segments[2] === "batch" ? "vaults:read" : "vaults:write";
    case "strategies":
    case "protocol":
    case "status":
      return read ? "vaults:read" : undefined;
    case "users":
      return read ? "users:read" : undefined;
    case "nodes":
      return read ? "nodes:read" : "nodes:write";
    default:
      return undefined;
  }
}
