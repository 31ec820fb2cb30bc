import Router from "@koa/router";
import type Redis from "ioredis";
import type { Middleware } from "koa";
import type { Config } from "../../../config";
import type { Logger } from "../../../logger";
import type { AgentRecord } from "../../../usecases/agents";
import { DataKeyService } from "../../../usecases/dataKeys/issuance";
import type { DataKeyStore } from "../../../usecases/dataKeys/keys";
import { NodeRegistry, type NodeStore } from "../../../usecases/nodes";
import type { NonceStore, SignatureVerifier } from "../../../usecases/registration";
import { routeHandler, type RouteDefinition } from "../../route";
import { dataErrorHandler } from "../errors";
import { dataInput } from "../input";
import { TIER_LIMITS, createTierLimiter, type DataTier, type TierLimit, type TierLimiter } from "./limits";
import { createIssuanceLimiter } from "./issuanceLimits";
import { accessMiddleware } from "./middleware";
import { RouteScopes } from "./routeScopes";
import { accessRouteDeclarations } from "./routes";

/**
 * The data API's access layer: keys (Bearer, scoped, hashed, expiring, revocable), tiers and their rate limits, and
 * the routes that go with them (rate-limit status, token info, key issuance and revocation, nodes). Mounted in front
 * of the /v1 routes:
 *
 *   const access = createDataAccess({ ... });
 *   app.use(access.middleware);            // every /v1 request: credential, scope, limits, X-RateLimit-* headers
 *   app.use(access.routes.routes());       // its own routes (access.declarations: their declarations)
 *   app.use(access.routes.allowedMethods());
 *   app.use(dataRoutes...);                // the read routes, which find the caller in ctx.state.dataCaller
 *
 * docs/data-api-access.md describes it for clients.
 */

/** The stores the access layer needs (both store adapters provide them). */
export interface DataAccessStores {
  readonly dataKeys: DataKeyStore;
  readonly nodes: NodeStore;
  /** The live API's sign-in nonces, shared: a nonce's message names its purpose. */
  readonly nonces: NonceStore;
}

export interface DataAccessDeps {
  stores: DataAccessStores;
  config: Pick<Config, "operatorApiKeys" | "serviceDomain" | "publicUrl" | "rateLimitsDisabled" | "bodyLimitBytes">;
  /** Chain id in the sign-in message of wallet-issued keys. */
  chainId: number;
  logger: Logger;
  /** Live API agents by their agent key (UseCases.agents). */
  agents: { byApiKey(apiKey: string): Promise<AgentRecord | null> };
  /** Wallet signatures (EIP-191, EIP-1271), as registration checks them. */
  verifySignature: SignatureVerifier;
  /** When given, limits are counted in Redis and shared by every instance that uses the same Redis and prefix. */
  redis?: Redis;
  /** Prefix of the Redis keys (default nap). */
  redisPrefix?: string;
  clock?: () => Date;
  /** Default TIER_LIMITS (tests use smaller ones). */
  limits?: Readonly<Record<DataTier, TierLimit>>;
}

export interface DataAccess {
  /** For every /v1 request (other paths pass through untouched). */
  middleware: Middleware;
  /** The access routes (mount routes() and allowedMethods()); their errors are answered in the data API's shape. */
  routes: Router;
  /** The declarations `routes` serves (the data API's OpenAPI document is built from them). */
  declarations: RouteDefinition[];
  keys: DataKeyService;
  /** The tiers' limiter (absent when RATE_LIMITS_DISABLED), for doors that count requests themselves (/ws, GraphQL subscriptions). */
  limiter?: TierLimiter;
  /**
   * The scope of every route the middleware guards: the access routes are in it; a door that serves routes behind
   * the middleware registers them through it and adds its router (scopes.answeredBy).
   */
  scopes: RouteScopes;
}

export function createDataAccess(deps: DataAccessDeps): DataAccess {
  const clock = deps.clock ?? (() => new Date());
  const limits = deps.limits ?? TIER_LIMITS;
  const keys = new DataKeyService({
    store: deps.stores.dataKeys,
    nonces: deps.stores.nonces,
    verifySignature: deps.verifySignature,
    signIn: { domain: deps.config.serviceDomain, uri: deps.config.publicUrl, chainId: deps.chainId },
    operatorApiKeys: deps.config.operatorApiKeys,
    agents: deps.agents,
    gate: createIssuanceLimiter({
      redis: deps.config.rateLimitsDisabled ? undefined : deps.redis,
      prefix: deps.redisPrefix,
      clock,
      disabled: deps.config.rateLimitsDisabled,
    }),
    clock,
  });
  const limiter = deps.config.rateLimitsDisabled
    ? undefined
    : createTierLimiter({ redis: deps.redis, prefix: deps.redisPrefix, clock, limits });
  const declarations = accessRouteDeclarations({
    keys,
    nodes: new NodeRegistry(deps.stores.nodes, clock),
    clock,
    limits,
  });
  // Paths match as documented, letter case included.
  const routes = new Router({ sensitive: true });
  // Router middleware runs only for requests one of these routes matches: the other /v1 routes keep their handler.
  routes.use(dataErrorHandler(deps.logger));
  const scopes = new RouteScopes();
  const input = dataInput(deps.config.bodyLimitBytes);
  for (const route of declarations) {
    scopes.route(routes, route.method, route.path, route.scope ?? null, routeHandler(route, input));
  }
  scopes.answeredBy(routes);
  return {
    middleware: accessMiddleware({ keys, limiter, scopes }),
    routes,
    declarations,
    keys,
    limiter,
    scopes,
  };
}

export { DATA_KEY_PREFIX, type DataKeyRecord, type DataKeyStore } from "../../../usecases/dataKeys/keys";
export { DATA_KEY_STATEMENT, DataKeyService } from "../../../usecases/dataKeys/issuance";
export { describeKey, describeNode } from "./views";
export {
  TIER_LIMITS,
  WINDOW_MS,
  createTierLimiter,
  type DataTier,
  type LimitDecision,
  type TierLimit,
  type TierLimiter,
} from "./limits";
export { dataCallerOf, type DataCaller } from "./middleware";
export {
  NODE_HEARTBEAT_INTERVAL_MS,
  createNodeHeartbeat,
  nodeStatus,
  type NodeHeartbeat,
  type NodeRecord,
  type NodeStore,
} from "../../../usecases/nodes";
export { DEFAULT_SCOPES, SCOPES, type Scope } from "../../../usecases/dataKeys/scopes";
export { RouteScopes, type RouteScope } from "./routeScopes";
export { ISSUANCE_LIMITS, type IssuanceLimiter } from "./issuanceLimits";
