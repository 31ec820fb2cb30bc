import type { IncomingMessage, Server } from "node:http";
import Koa from "koa";
import type { ChainAccess } from "./chain";
import type { Config } from "./config";
import cors from "@koa/cors";
import compose from "koa-compose";
import { requestScope, RunningRequests } from "./doors/middleware";
import { DATA_API_PREFIX, dataApi } from "./doors/data";
import { createDataAccess, type DataAccess, type DataAccessStores } from "./doors/data/access";
import { GRAPHQL_PATHS, graphqlDoor, type GraphQLDoor } from "./doors/graphql";
import { liveApi } from "./doors/live";
import { clientIp } from "./doors/sockets/clientIp";
import { routeUpgrades } from "./doors/sockets/upgrades";
import { wsDoor, type WsDoor } from "./doors/ws";
import type { Indexer } from "./indexer/indexer";
import type { EventFeed, FeedOptions } from "./readmodel/feed";
import type { DataQueries } from "./readmodel/queries";
import type { ReadModelStore } from "./readmodel/store";
import type { RateLimitBackend, RateLimiters } from "./doors/live/rateLimit";
import type { RouteDefinition } from "./doors/live/route";
import type { Logger } from "./logger";
import { createUseCases, type UseCaseDeps, type UseCases, type UseCaseStores } from "./usecases";
import { createReadSide } from "./readSide";
import { RouteTemplates, withHttpMetrics } from "./observability/httpMetrics";
import type { ServiceMetrics } from "./observability/metrics";

/**
 * The composition root of the service: the use cases and the read side, each built once over the stores and the
 * chain, and the doors that serve them (the live API, the data API's REST, GraphQL and WebSocket doors), mounted here.
 */

export interface AppDeps {
  config: Config;
  logger: Logger;
  stores: UseCaseStores & DataAccessStores & { readonly readModel: ReadModelStore };
  chain: ChainAccess;
  /** The data API's access layer (keys, tiers, limits). Default: built here over the stores, limits shared through
   *  Redis when the rate-limit backend is Redis. */
  dataAccess?: DataAccess;
  /** Default: one Map shared by every limiter of this app. Pass a Redis client to share limits between instances. */
  rateLimitBackend?: RateLimitBackend;
  clock?: () => Date;
  signatureVerifier?: UseCaseDeps["signatureVerifier"];
  engineOptions?: UseCaseDeps["engineOptions"];
  napGrantWei?: bigint;
  /** The event feed's poll interval and page size (default: FeedOptions' defaults). */
  feed?: FeedOptions;
  /** Routes mounted beside the live API's, with the same auth, limits, validation and OpenAPI (tests). */
  extraRoutes?: (useCases: UseCases) => RouteDefinition[];
  /** Where requests, the engine, the indexer and the sockets report (the server's /metrics); absent: nowhere. */
  metrics?: ServiceMetrics;
}

export interface NapApp extends Koa {
  /** Everything the live API mounted, in order (for the OpenAPI document and tests). */
  routeDefinitions: RouteDefinition[];
  useCases: UseCases;
  rateLimiters: RateLimiters;
  /** The data API's query layer, shared by REST /v1, GraphQL and /ws. */
  queries: DataQueries;
  /** The GraphQL door: its HTTP middleware is mounted; its subscriptions are served once `attachSockets` ran. */
  graphql: GraphQLDoor;
  /** The WebSocket channel /ws, served once `attachSockets` ran. */
  ws: WsDoor;
  /**
   * Serves the WebSocket doors (GraphQL subscriptions, /ws) on the server's upgrade requests; answers the function
   * that stops listening and closes their connections.
   */
  attachSockets(server: Server): () => Promise<void>;
  /** The tail of the read model's event log that subscriptions fan out from. */
  feed: EventFeed;
  /** This instance's indexer (not started: the server starts it), or null when INDEXER_ENABLED is off. */
  indexer: Indexer | null;
  /** Stops timers, leases and worker threads (the server calls it on shutdown). */
  closeResources(): Promise<void>;
  /** Resolves when no handler is running, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
}

/** Builds the Koa app (does not listen): use cases, middleware and every door. */
export function createApp(deps: AppDeps): NapApp {
  const { config, logger } = deps;
  const useCases = createUseCases({
    config,
    logger,
    stores: deps.stores,
    chain: deps.chain,
    clock: deps.clock,
    signatureVerifier: deps.signatureVerifier,
    engineOptions: deps.metrics ? { observer: deps.metrics.tx, ...deps.engineOptions } : deps.engineOptions,
    napGrantWei: deps.napGrantWei,
  });
  const rateLimitBackend = deps.rateLimitBackend ?? { driver: "memory", db: new Map() };
  const live = liveApi({
    useCases,
    config,
    logger,
    rateLimitBackend,
    extraRoutes: deps.extraRoutes,
  });

  const readSide = createReadSide({
    config,
    logger,
    chain: deps.chain,
    store: deps.stores.readModel,
    redis: rateLimitBackend.driver === "redis" ? rateLimitBackend.db : undefined,
    clock: deps.clock,
    feed: deps.feed,
  });
  const { queries, feed, indexer } = readSide;
  useCases.health.watchIndexer(async () => {
    const status = await readSide.indexerStatus();
    return {
      role: status.role,
      indexedBlock: status.indexedBlock,
      headBlock: status.headBlock,
      lagBlocks: status.lagBlocks,
      halt: status.halt?.reason ?? null,
    };
  });
  const access =
    deps.dataAccess ??
    createDataAccess({
      stores: deps.stores,
      config,
      chainId: deps.chain.chainId,
      logger,
      agents: useCases.agents,
      verifySignature: useCases.verifySignature,
      redis: rateLimitBackend.driver === "redis" ? rateLimitBackend.db : undefined,
      clock: deps.clock,
    });
  const data = dataApi({
    queries,
    chain: deps.chain,
    indexer,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    publicUrl: config.publicUrl,
    access,
    signedWrites: useCases.signedWrites,
  });

  // One reading of the client IP for both socket doors, the same Koa gives the HTTP doors (app.proxy below), so that
  // sockets and REST count a caller alike.
  const upgradeIp = (request: IncomingMessage) => clientIp(request, config.trustedProxyCount);
  const graphql = graphqlDoor({
    queries,
    chain: deps.chain,
    indexer,
    feed,
    logger,
    access,
    clientIp: upgradeIp,
    subscriptionCaps: config.subscriptionCaps,
    subscriptionMessages: config.subscriptionMessages,
    bodyLimitBytes: config.bodyLimitBytes,
  });

  const app = new Koa() as NapApp;
  // Client IPs: X-Forwarded-For is believed only for the configured number of trusted proxy hops.
  app.proxy = config.trustedProxyCount > 0;
  app.maxIpsCount = config.trustedProxyCount;

  const ws = wsDoor({
    feed,
    queries,
    keys: access.keys,
    limiter: access.limiter,
    settings: config.ws,
    logger,
    clientIp: upgradeIp,
  });
  // Errors are answered (and logged) by the doors; silence Koa's default stderr printing.
  app.silent = true;

  // The doors, chosen once by the path's start: GraphQL and the data API only claim paths under their prefixes (and
  // pass on what they do not serve), so every other request goes straight to the live API's door, and a path under
  // /v1/ outside GraphQL's straight to the data API's (which answers every such path itself).
  const allDoors = compose([graphql.middleware, data.middleware, live.middleware]);
  const doors: Koa.Middleware = (ctx, next) => {
    const path = ctx.path;
    if (path.startsWith(DATA_DOOR_PATHS) && !startsWithAny(path, GRAPHQL_PATHS)) return data.middleware(ctx, next);
    return startsWithAny(path, OTHER_DOOR_PREFIXES) ? allDoors(ctx, next) : live.middleware(ctx, next);
  };
  const running = new RunningRequests();
  // One middleware layer runs every request: the request scope calls the doors itself (behind the CORS layer when
  // origins are configured).
  const scoped = requestScope(logger, running, withCors(config.corsAllowedOrigins, doors));
  if (deps.metrics) {
    watchApp(deps.metrics, useCases, indexer, graphql, ws);
    const declared = [...live.routes, ...data.routes, ...access.declarations].map((route) => route.path);
    const templates = new RouteTemplates([...declared, ...GRAPHQL_PATHS, `${DATA_API_PREFIX}/openapi.json`]);
    app.use(withHttpMetrics(deps.metrics, { templates, doorOf }, scoped));
  } else {
    app.use(scoped);
  }

  app.routeDefinitions = live.routes;
  app.useCases = useCases;
  app.rateLimiters = live.rateLimiters;
  app.queries = queries;
  app.indexer = indexer;
  app.graphql = graphql;
  app.ws = ws;
  app.attachSockets = (server) => {
    const detach = routeUpgrades(server, [graphql, ws]);
    return async () => {
      detach();
      await Promise.all([graphql.close(), ws.close()]);
    };
  };
  app.feed = feed;
  app.drain = (timeoutMs) => running.drain(timeoutMs);
  app.closeResources = async () => {
    await Promise.all([graphql.close(), ws.close()]);
    await readSide.close();
    live.rateLimiters.close();
    await useCases.close();
  };
  return app;
}

/**
 * Browser dashboards: only the configured origins get CORS headers (an unknown origin gets none, so the browser
 * refuses); preflights are answered here, before routing. No origins: the doors as they are.
 */
function withCors(origins: readonly string[], doors: Koa.Middleware): Koa.Middleware {
  if (origins.length === 0) return doors;
  const allowed = new Set(origins);
  const corsLayer = cors({
    origin: (ctx) => (allowed.has(ctx.get("Origin")) ? ctx.get("Origin") : ""),
    // Authorization carries a data key (Bearer); WWW-Authenticate says which scope a refused key lacks.
    allowHeaders: ["Content-Type", "Authorization", "X-API-Key", "Idempotency-Key"],
    exposeHeaders: [
      "Retry-After",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "WWW-Authenticate",
    ],
    maxAge: 600,
  });
  return compose([corsLayer, doors]);
}

/** The figures Prometheus reads at each scrape: the engine's queue, the read model's lag, the open sockets. */
function watchApp(
  metrics: ServiceMetrics,
  useCases: UseCases,
  indexer: Indexer | null,
  graphql: GraphQLDoor,
  ws: WsDoor,
): void {
  indexer?.observeSteps((result, seconds) => metrics.indexerStep(result, seconds));
  metrics.watchQueueDepth(() => useCases.engine.queueDepth);
  metrics.watchIndexerLag(async () => (await useCases.health.snapshot()).indexer?.lagBlocks ?? null);
  metrics.watchSockets("graphql", () => graphql.connections);
  metrics.watchSockets("ws", () => ws.connections);
}

function doorOf(path: string): "live" | "data" | "graphql" {
  if (startsWithAny(path, GRAPHQL_PATHS)) return "graphql";
  return path === DATA_API_PREFIX || path.startsWith(DATA_DOOR_PATHS) ? "data" : "live";
}

/** Where the data API's REST door and the GraphQL door answer; every other path is the live API's. */
const OTHER_DOOR_PREFIXES: readonly string[] = [DATA_API_PREFIX, ...GRAPHQL_PATHS];
/** Paths only the data API's REST door answers, unless they are GraphQL's. */
const DATA_DOOR_PATHS = `${DATA_API_PREFIX}/`;

function startsWithAny(path: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
  return false;
}
