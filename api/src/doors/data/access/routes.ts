import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import { z } from "zod";
import { DuplicateKeyError, ValidationError } from "../../../errors";
import type { AgentRecord } from "../../../usecases/agents";
import { addressSchema, textSchema } from "../../../../../packages/wire/src/live";
import { readJsonBody } from "../../live/validation";
import { DataAccessError, accessErrorHandler, fromZodError, invalidField, unauthorized } from "./errors";
import type { DataKeyService, KeyIssuer } from "./keyService";
import { DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS, describeKey } from "./keys";
import type { TierLimit } from "./limits";
import type { IssuanceLimiter } from "./issuanceLimits";
import { dataCallerOf, insufficientScope, type DataCaller } from "./middleware";
import { NODE_HEARTBEAT_INTERVAL_MS, describeNode, nodeStatus, type NodeStore } from "./nodes";
import type { RouteScopes } from "./routeScopes";
import { DEFAULT_SCOPES, SCOPES, type Scope } from "./scopes";

/** The access layer's routes: rate-limit status, token info, key issuance and revocation, nodes. */

export interface AccessRouteDeps {
  keys: DataKeyService;
  /** Where each route declares the scope it needs. */
  scopes: RouteScopes;
  /** Keys issued per IP and per owner. */
  issuance: IssuanceLimiter;
  nodes: NodeStore;
  /** Live API agents by their agent key (X-API-Key on /v1/auth/keys). */
  agents: { byApiKey(apiKey: string): Promise<AgentRecord | null> };
  clock: () => Date;
  bodyLimitBytes: number;
  limits: Readonly<Record<DataCaller["tier"], TierLimit>>;
  /** Logs an unexpected error (answered 500 INTERNAL_ERROR without its details). */
  logError: (error: unknown, ctx: Context) => void;
}

const ownerLabel = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ -");

export const issueKeyBody = z.strictObject({
  name: textSchema(1, 64).optional().meta({ description: "A name to recognise the key by (default: data key)." }),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .optional()
    .meta({ description: `Default: ${DEFAULT_SCOPES.join(", ")}. nodes:write only on Node Operator keys.` }),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(MAX_KEY_LIFETIME_DAYS)
    .optional()
    .meta({ description: `Lifetime in days (default ${DEFAULT_KEY_LIFETIME_DAYS}).` }),
  tier: z
    .enum(["authenticated", "node_operator"])
    .optional()
    .meta({ description: "Operators only (default node_operator); others always get authenticated." }),
  owner: ownerLabel.optional().meta({ description: "Operators only: the label of who the key is for." }),
  wallet: addressSchema.optional().meta({ description: "Wallet proof: the wallet that signed." }),
  nonce: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "must be the 32 hex characters of GET /v1/auth/nonce")
    .optional(),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130,4096}$/, "must be a 0x-prefixed hex signature")
    .optional(),
});

export const nonceQuery = z.strictObject({ wallet: addressSchema });

export const nodeHeartbeatBody = z.strictObject({
  node_id: ownerLabel.meta({ description: "The node's id, unique in the network (1-64 of A-Z a-z 0-9 . _ -)." }),
  version: z.string().regex(/^[0-9A-Za-z.+_-]{1,32}$/, "must be 1-32 characters of A-Z a-z 0-9 . + _ -"),
  url: z
    .string()
    .max(200)
    .url()
    .refine((value) => /^https?:$/.test(new URL(value).protocol), "must be an http or https URL")
    .optional(),
  started_at: z.iso.datetime().optional().meta({ description: "When the node started (default: first heartbeat)." }),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, whole: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(result.error, whole);
  return result.data;
}

async function body(ctx: Context, limitBytes: number): Promise<unknown> {
  try {
    return await readJsonBody(ctx, limitBytes);
  } catch (error) {
    if (error instanceof ValidationError) throw invalidField("body", error.message.replace(/^body: /, ""));
    throw error;
  }
}

function query(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw invalidField(name, "must be given once");
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function windowView(limit: number | null, state?: { remaining: number; reset: number }) {
  if (limit === null) return null;
  return { limit, remaining: state?.remaining ?? null, reset: state?.reset ?? null };
}

/** Answers that carry or describe a key (or its budget) must not be kept by a browser or a shared cache. */
function noStore(handler: Middleware): Middleware {
  return (ctx, next) => {
    ctx.set("Cache-Control", "no-store");
    return handler(ctx, next);
  };
}

/** A handler's own check of its scope, so that it holds whatever path reached it. */
function requireScope(ctx: Context, caller: DataCaller, scope: Scope): void {
  if (caller.key && !caller.key.scopes.includes(scope)) {
    throw insufficientScope(caller.key, scope, `${ctx.method} ${ctx.path}`);
  }
}

export function accessRoutes(deps: AccessRouteDeps): Router {
  const { keys, nodes, clock, scopes } = deps;
  // Paths match as documented, letter case included.
  const router = new Router({ sensitive: true });
  // Router middleware runs only for requests one of these routes matches: the other /v1 routes keep their handler.
  router.use(accessErrorHandler(deps.logError));

  /** The live API credential in X-API-Key (operator or agent), if one was sent. */
  async function liveIssuer(ctx: Context): Promise<KeyIssuer | undefined> {
    const apiKey = ctx.get("X-API-Key");
    if (apiKey === "") return undefined;
    const operatorId = keys.operatorOf(apiKey);
    if (operatorId) return { kind: "operator", operatorId };
    const agent = await deps.agents.byApiKey(apiKey);
    if (!agent) throw unauthorized("unknown X-API-Key: send a live API agent key or an operator key");
    if (agent.status !== "active") throw unauthorized(`the agent of this X-API-Key is ${agent.status}`);
    return { kind: "agent", agent };
  }

  /** Who manages keys: a data key (Bearer) of the owner with keys:manage, or a live agent or operator key. */
  async function manager(ctx: Context): Promise<KeyIssuer> {
    const caller = dataCallerOf(ctx);
    requireScope(ctx, caller, "keys:manage");
    if (caller.key) return { kind: "key", key: caller.key };
    const live = await liveIssuer(ctx);
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

  scopes.route(
    router,
    "GET",
    "/v1/rate-limit-status",
    null,
    noStore((ctx) => {
      const caller = dataCallerOf(ctx);
      ctx.body = {
        tier: caller.tier,
        counted_by: caller.key ? "key" : "ip",
        key_id: caller.key?.keyId ?? null,
        enforced: caller.limit !== undefined,
        limits: limitsOf(caller),
        headers_window: caller.limit?.binding.window ?? null,
      };
    }),
  );

  scopes.route(
    router,
    "GET",
    "/v1/auth/token-info",
    null,
    noStore((ctx) => {
      const caller = dataCallerOf(ctx);
      if (!caller.key) throw unauthorized("token-info needs a key: send `Authorization: Bearer <key>`");
      const now = clock();
      ctx.body = {
        ...describeKey(caller.key, now),
        permissions: caller.key.scopes,
        expires_in_seconds: Math.max(0, Math.floor((caller.key.expiresAt.getTime() - now.getTime()) / 1000)),
        limits: limitsOf(caller),
      };
    }),
  );

  scopes.route(
    router,
    "GET",
    "/v1/auth/nonce",
    null,
    noStore(async (ctx) => {
      const { wallet } = parse(nonceQuery, query(ctx), "query");
      ctx.body = await keys.issueNonce(wallet);
    }),
  );

  // Order: every check that needs no count (input, issuer, proof) comes first; then the IP's issuance count, which
  // also bounds signature checks; the owner's count and the nonce are spent only by a request about to succeed.
  scopes.route(
    router,
    "POST",
    "/v1/auth/keys",
    null,
    noStore(async (ctx) => {
      if (dataCallerOf(ctx).key) {
        throw unauthorized("a data key cannot issue keys: send X-API-Key (agent or operator) or a wallet signature");
      }
      const input = parse(issueKeyBody, await body(ctx, deps.bodyLimitBytes), "body");
      const walletProof = input.wallet !== undefined || input.nonce !== undefined || input.signature !== undefined;
      let issuer = await liveIssuer(ctx);
      if (issuer && walletProof) {
        throw invalidField("body", "give either X-API-Key or wallet, nonce and signature, not both");
      }
      if (!issuer) {
        if (!walletProof) {
          throw unauthorized(
            "issuing a key needs X-API-Key (a live API agent key or an operator key), or wallet, nonce and signature " +
              "(GET /v1/auth/nonce)",
          );
        }
        for (const field of ["wallet", "nonce", "signature"] as const) {
          if (input[field] === undefined) throw invalidField(field, "required with a wallet signature");
        }
        await deps.issuance.admit("ip", `ip:${ctx.ip}`);
        issuer = await keys.proveWallet(input.wallet!, input.nonce!, input.signature!);
      } else if (issuer.kind !== "operator") {
        await deps.issuance.admit("ip", `ip:${ctx.ip}`);
      }
      const counted = issuer.kind !== "operator";
      const { key, record } = await keys.issue(
        issuer,
        {
          name: input.name ?? "data key",
          scopes: input.scopes ?? [...DEFAULT_SCOPES],
          lifetimeDays: input.expires_in_days ?? DEFAULT_KEY_LIFETIME_DAYS,
          tier: input.tier,
          ownerLabel: input.owner,
        },
        counted ? (owner) => deps.issuance.admit("owner", owner) : undefined,
      );
      ctx.status = 201;
      ctx.body = { key, ...describeKey(record, clock()) };
    }),
  );

  scopes.route(
    router,
    "GET",
    "/v1/auth/keys",
    "keys:manage",
    noStore(async (ctx) => {
      const { owner } = parse(z.strictObject({ owner: ownerLabel.optional() }), query(ctx), "query");
      const issuer = await manager(ctx);
      if (owner !== undefined && issuer.kind !== "operator") throw invalidField("owner", "only an operator may set it");
      const now = clock();
      const list = await keys.list(issuer, owner);
      ctx.body = { owner: keys.ownerOf(issuer, owner), keys: list.map((record) => describeKey(record, now)) };
    }),
  );

  scopes.route(
    router,
    "DELETE",
    "/v1/auth/keys/:id",
    "keys:manage",
    noStore(async (ctx) => {
      const keyId = ctx.params.id;
      if (!/^dk_[0-9a-f]{16}$/.test(keyId)) throw invalidField("key_id", "must be dk_ and 16 hex characters");
      const revoked = await keys.revoke(await manager(ctx), keyId);
      ctx.body = describeKey(revoked, clock());
    }),
  );

  scopes.route(router, "GET", "/v1/nodes", "nodes:read", async (ctx) => {
    const now = clock();
    const all = await nodes.list();
    const listed = all.map((record) => describeNode(record, now));
    const count = (status: string) => all.filter((record) => nodeStatus(record, now) === status).length;
    ctx.body = {
      nodes: listed,
      summary: { total: listed.length, up: count("up"), stale: count("stale"), down: count("down") },
      heartbeat_interval_seconds: NODE_HEARTBEAT_INTERVAL_MS / 1000,
    };
  });

  scopes.route(router, "POST", "/v1/nodes/heartbeat", "nodes:write", async (ctx) => {
    const caller = dataCallerOf(ctx);
    if (!caller.key) throw unauthorized("registering a node needs a Node Operator key with the nodes:write scope");
    requireScope(ctx, caller, "nodes:write");
    const input = parse(nodeHeartbeatBody, await body(ctx, deps.bodyLimitBytes), "body");
    const now = clock();
    const previous = (await nodes.list()).find(
      (record) => record.nodeId === input.node_id && record.registeredBy === caller.key!.owner,
    );
    const record = {
      nodeId: input.node_id,
      role: "external" as const,
      version: input.version,
      url: input.url ?? null,
      startedAt: input.started_at ? new Date(input.started_at) : (previous?.startedAt ?? now),
      lastHeartbeatAt: now,
      registeredBy: caller.key.owner,
    };
    try {
      await nodes.heartbeat(record);
    } catch (error) {
      if (error instanceof DuplicateKeyError) {
        throw new DataAccessError("NODE_ID_TAKEN", `node id ${input.node_id} is registered by someone else`, {
          node_id: input.node_id,
        });
      }
      throw error;
    }
    ctx.body = describeNode(record, now);
  });

  return router;
}
