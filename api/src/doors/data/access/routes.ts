import type { Context } from "koa";
import type { DataKeyService, KeyIssuer } from "../../../usecases/dataKeys/issuance";
import { DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS } from "../../../usecases/dataKeys/keys";
import { DEFAULT_SCOPES, type Scope } from "../../../usecases/dataKeys/scopes";
import { NODE_HEARTBEAT_INTERVAL_MS, nodeStatus, type NodeRegistry } from "../../../usecases/nodes";
import { invalidField } from "../../../errors";
import { defineRoute, type RouteDefinition } from "../../route";
import * as schemas from "../../../../../packages/wire/src/data/access";
import { unauthorized } from "../errors";
import { ISSUANCE_LIMITS } from "./issuanceLimits";
import type { TierLimit } from "./limits";
import { dataCallerOf, insufficientScope, type DataCaller } from "./middleware";
import { describeKey, describeNode } from "./views";

/**
 * The access layer's routes (docs/data-api-access.md): rate-limit status, token info, key issuance and revocation,
 * nodes. Each calls a use case (usecases/dataKeys, usecases/nodes) and shapes its answer.
 */

export interface AccessRouteDeps {
  keys: DataKeyService;
  nodes: NodeRegistry;
  clock: () => Date;
  limits: Readonly<Record<DataCaller["tier"], TierLimit>>;
}

const TAG = "access";
/** A Bearer data key is optional (without one: the Public tier). */
type Security = Array<Record<string, string[]>>;
const OPTIONAL_BEARER: Security = [{}, { AccessBearer: [] }];
const BEARER: Security = [{ AccessBearer: [] }];
const MANAGER: Security = [{ AccessBearer: [] }, { AccessLiveKey: [] }];
/** What every access route may answer besides its own errors. */
const ACCESS_ERRORS = ["UNAUTHORIZED", "INSUFFICIENT_SCOPE", "UNAVAILABLE"];

function windowView(limit: number | null, state?: { remaining: number; reset: number }) {
  if (limit === null) return null;
  return { limit, remaining: state?.remaining ?? null, reset: state?.reset ?? null };
}

/** A handler's own check of its scope, so that it holds whatever path reached it. */
function requireScope(ctx: Context, caller: DataCaller, scope: Scope): void {
  if (caller.key && !caller.key.scopes.includes(scope)) {
    throw insufficientScope(caller.key, scope, `${ctx.method} ${ctx.path}`);
  }
}

/** The declarations; `deps` is read only when a handler runs (the OpenAPI document is built without it). */
export function accessRouteDeclarations(deps: AccessRouteDeps = {} as AccessRouteDeps): RouteDefinition[] {
  /** Who manages keys: a data key (Bearer) of the owner with keys:manage, or a live agent or operator key. */
  async function manager(ctx: Context): Promise<KeyIssuer> {
    const caller = dataCallerOf(ctx);
    requireScope(ctx, caller, "keys:manage");
    if (caller.key) return { kind: "key", key: caller.key };
    const live = await deps.keys.liveIssuer(ctx.get("X-API-Key"));
    if (live) return live;
    throw unauthorized(
      "managing keys needs `Authorization: Bearer <data key>` of the owner, or X-API-Key with an agent or operator key",
    );
  }

  function limitsOf(caller: DataCaller) {
    const rule = deps.limits[caller.tier];
    const state = (window: "minute" | "day") => caller.limit?.windows.find((w) => w.window === window);
    return { minute: windowView(rule.minute, state("minute")), day: windowView(rule.day, state("day")) };
  }

  return [
    defineRoute({
      method: "get",
      path: "/v1/rate-limit-status",
      tag: TAG,
      scope: null,
      security: OPTIONAL_BEARER,
      summary: "The caller's tier and its minute and day windows",
      noStore: true,
      responses: { 200: { description: "status", schema: schemas.rateLimitStatus } },
      errors: ACCESS_ERRORS,
      handler: ({ ctx }) => {
        const caller = dataCallerOf(ctx);
        return {
          tier: caller.tier,
          counted_by: caller.key ? "key" : "ip",
          key_id: caller.key?.keyId ?? null,
          enforced: caller.limit !== undefined,
          limits: limitsOf(caller),
          headers_window: caller.limit?.binding.window ?? null,
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/auth/token-info",
      tag: TAG,
      scope: null,
      security: BEARER,
      summary: "The key of this request: id, tier, scopes (permissions), expiry, limits",
      noStore: true,
      responses: { 200: { description: "the key", schema: schemas.tokenInfo } },
      errors: ACCESS_ERRORS,
      handler: ({ ctx }) => {
        const caller = dataCallerOf(ctx);
        if (!caller.key) throw unauthorized("token-info needs a key: send `Authorization: Bearer <key>`");
        const now = deps.clock();
        return {
          ...describeKey(caller.key, now),
          permissions: caller.key.scopes,
          expires_in_seconds: Math.max(0, Math.floor((caller.key.expiresAt.getTime() - now.getTime()) / 1000)),
          limits: limitsOf(caller),
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/auth/nonce",
      tag: TAG,
      scope: null,
      security: [{}],
      summary: "A single-use nonce and the message a wallet signs to be issued a key (valid 600 s)",
      noStore: true,
      query: schemas.nonceQuery,
      responses: { 200: { description: "nonce and message", schema: schemas.nonceAnswer } },
      errors: ["INVALID_WALLET", "UNKNOWN_PARAMETER", ...ACCESS_ERRORS],
      handler: ({ query }) => deps.keys.issueNonce(query.wallet),
    }),
    defineRoute({
      method: "post",
      path: "/v1/auth/keys",
      tag: TAG,
      scope: null,
      security: [{ AccessLiveKey: [] }, {}],
      summary: "Issue a data API key (shown once)",
      description:
        "Authenticated by X-API-Key (a live API agent key: an Authenticated key owned by the agent; an operator " +
        "key of AGENT_API_KEYS: a Node Operator key for the `owner` label), or by `wallet`, `nonce` and " +
        `\`signature\` over the message of GET /v1/auth/nonce. Lifetime at most ${MAX_KEY_LIFETIME_DAYS} days. ` +
        `Wallet and agent issuance is limited to ${ISSUANCE_LIMITS.ip.hour} keys an hour and ` +
        `${ISSUANCE_LIMITS.ip.day} a day per client IP, and ${ISSUANCE_LIMITS.owner.hour} an hour and ` +
        `${ISSUANCE_LIMITS.owner.day} a day per owner (429 RATE_LIMITED with Retry-After). A refused request ` +
        "leaves its nonce unused.",
      noStore: true,
      body: schemas.issueKeyBody,
      responses: { 201: { description: "the key in clear, once, and its record", schema: schemas.issuedKey } },
      errors: ["INVALID_BODY", "INVALID_NONCE", "INVALID_SIGNATURE", "KEY_LIMIT_REACHED", ...ACCESS_ERRORS],
      handler: async ({ body, ctx }) => {
        if (dataCallerOf(ctx).key) {
          throw unauthorized("a data key cannot issue keys: send X-API-Key (agent or operator) or a wallet signature");
        }
        const { key, record } = await deps.keys.issueKey(
          {
            apiKey: ctx.get("X-API-Key"),
            wallet: body.wallet,
            nonce: body.nonce,
            signature: body.signature,
            ip: ctx.ip,
          },
          {
            name: body.name ?? "data key",
            scopes: body.scopes ?? [...DEFAULT_SCOPES],
            lifetimeDays: body.expires_in_days ?? DEFAULT_KEY_LIFETIME_DAYS,
            tier: body.tier,
            ownerLabel: body.owner,
          },
        );
        ctx.status = 201;
        return { key, ...describeKey(record, deps.clock()) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/auth/keys",
      tag: TAG,
      scope: "keys:manage",
      security: MANAGER,
      summary: "The caller's keys (no secrets); a Bearer key needs keys:manage",
      noStore: true,
      query: schemas.keyListQuery,
      responses: { 200: { description: "keys", schema: schemas.keyList } },
      errors: ["INVALID_OWNER", "UNKNOWN_PARAMETER", ...ACCESS_ERRORS],
      handler: async ({ query, ctx }) => {
        const issuer = await manager(ctx);
        if (query.owner !== undefined && issuer.kind !== "operator") {
          throw invalidField("owner", "only an operator may set it");
        }
        const now = deps.clock();
        const list = await deps.keys.list(issuer, query.owner);
        return { owner: deps.keys.ownerOf(issuer, query.owner), keys: list.map((record) => describeKey(record, now)) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/v1/auth/keys/:id",
      tag: TAG,
      scope: "keys:manage",
      security: MANAGER,
      summary: "Revoke a key of the caller's owner (operators: any key); a Bearer key needs keys:manage",
      noStore: true,
      params: schemas.keyIdParams,
      responses: { 200: { description: "the revoked key", schema: schemas.keyView } },
      errors: ["INVALID_KEY_ID", "KEY_NOT_FOUND", ...ACCESS_ERRORS],
      handler: async ({ params, ctx }) => {
        if (!/^dk_[0-9a-f]{16}$/.test(params.id)) throw invalidField("key_id", "must be dk_ and 16 hex characters");
        const revoked = await deps.keys.revoke(await manager(ctx), params.id);
        return describeKey(revoked, deps.clock());
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/nodes",
      tag: TAG,
      scope: "nodes:read",
      security: OPTIONAL_BEARER,
      summary: "Nodes of the network (running NAP service instances) and their heartbeat status",
      responses: { 200: { description: "nodes", schema: schemas.nodeList } },
      errors: ACCESS_ERRORS,
      handler: async () => {
        const { nodes, now } = await deps.nodes.list();
        const count = (status: string) => nodes.filter((record) => nodeStatus(record, now) === status).length;
        return {
          nodes: nodes.map((record) => describeNode(record, now)),
          summary: { total: nodes.length, up: count("up"), stale: count("stale"), down: count("down") },
          heartbeat_interval_seconds: NODE_HEARTBEAT_INTERVAL_MS / 1000,
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/nodes/heartbeat",
      tag: TAG,
      scope: "nodes:write",
      security: BEARER,
      summary: "Register or refresh an external node (Node Operator key with nodes:write)",
      body: schemas.nodeHeartbeatBody,
      responses: { 200: { description: "the node", schema: schemas.nodeView } },
      errors: ["INVALID_BODY", "INVALID_NODE_ID", "INVALID_VERSION", "INVALID_URL", "NODE_ID_TAKEN", ...ACCESS_ERRORS],
      handler: async ({ body, ctx }) => {
        const caller = dataCallerOf(ctx);
        if (!caller.key) throw unauthorized("registering a node needs a Node Operator key with the nodes:write scope");
        requireScope(ctx, caller, "nodes:write");
        const { record, now } = await deps.nodes.heartbeat(caller.key.owner, {
          nodeId: body.node_id,
          version: body.version,
          url: body.url ?? null,
          startedAt: body.started_at ? new Date(body.started_at) : undefined,
        });
        return describeNode(record, now);
      },
    }),
  ];
}
