import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type Redis from "ioredis";
import { createApp, type AppDeps, type NapApp } from "./app";
import { connectChain, type ChainAccess } from "./chain";
import type { Config } from "./config";
import type { Logger } from "./logger";
import { DATA_API_PREFIX } from "./doors/data";
import { GRAPHQL_PATHS } from "./doors/graphql";
import { WS_PATH } from "./doors/ws/protocol";
import { ServiceMetrics } from "./observability/metrics";
import { listenForMetrics, type MetricsListener } from "./observability/metricsServer";
import { createNodeHeartbeat } from "./usecases/nodes";
import type { RateLimitBackend } from "./doors/live/rateLimit";
import { createRedisClient } from "./redis";
import { openStores, type Stores } from "./store";
import { SERVICE_VERSION } from "./version";

const NONCE_RETENTION_MS = 24 * 3600 * 1000;
const PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** How often a shutdown closes the connections that became idle since it began. */
const IDLE_SWEEP_MS = 50;

export interface RunningServer {
  app: NapApp;
  server: Server;
  /** http://host:port actually bound. */
  url: string;
  stores: Stores;
  chain: ChainAccess;
  metrics: ServiceMetrics;
  /** http://host:port/metrics of the operators' listener, or null when METRICS_PORT is not set. */
  metricsUrl: string | null;
  /**
   * The graceful shutdown: not ready at once, no new connections, sockets closed with 1001, running requests (and
   * the writes they wait for) finished within SHUTDOWN_TIMEOUT_MS, then the indexer's lease and the engine's wallet
   * leases given up, and the store, Redis and provider closed. What a request could not finish in time stays in
   * the transaction journal for the next start. Idempotent.
   */
  close(): Promise<void>;
}

/** Every door of a running server, by name, with its URL (the start banner, the "listening" log line). */
export function doorUrls(url: string, metricsUrl: string | null): { door: string; url: string }[] {
  return [
    { door: "live API", url: `${url}/api/v1` },
    { door: "data API", url: `${url}${DATA_API_PREFIX}` },
    { door: "GraphQL", url: `${url}${GRAPHQL_PATHS[0]}  (GraphiQL in a browser)` },
    { door: "WebSocket", url: `${url.replace(/^http/, "ws")}${WS_PATH}` },
    { door: "API docs", url: `${url}/docs  (data API: ${url}${DATA_API_PREFIX}/docs)` },
    { door: "health", url: `${url}/health  (ready: ${url}/ready)` },
    { door: "metrics", url: metricsUrl ?? "off (set METRICS_PORT)" },
  ];
}

/** Opens the dependencies named by the configuration, builds the app and listens. */
export async function startServer(
  config: Config,
  logger: Logger,
  overrides: Partial<Pick<AppDeps, "extraRoutes" | "clock">> = {},
): Promise<RunningServer> {
  const stores = await openStores(config);
  if (stores.kind === "mongodb") logger.info({ db: config.mongodbDb }, "store: MongoDB");
  else logger.warn("store: in-memory (MONGODB_URI not set): agents and nonces are lost when the process stops");

  let redis: Redis | undefined;
  let rateLimitBackend: RateLimitBackend | undefined;
  if (config.redisUrl) {
    redis = createRedisClient(config.redisUrl);
    // One warning per outage: meanwhile every rate-limited request is answered 503 (never served without limits).
    let redisAway = false;
    redis.on("error", (error: unknown) => {
      if (!redisAway)
        logger.warn({ err: error }, "Redis unreachable: rate-limited requests answer 503 until it is back");
      redisAway = true;
    });
    redis.on("ready", () => {
      if (redisAway) logger.info("Redis back: rate limits served again");
      redisAway = false;
    });
    await redis.connect();
    rateLimitBackend = { driver: "redis", db: redis };
    logger.info("rate limits: Redis (shared between instances)");
  } else {
    logger.info("rate limits: in this process");
  }
  if (config.rateLimitsDisabled) logger.warn("rate limits DISABLED (RATE_LIMITS_DISABLED)");

  const chain = await connectChain({
    rpcUrl: config.rpcUrl,
    chainId: config.chainId,
    deploymentFile: config.deploymentFile,
    warn: (message) => logger.warn(message),
  });
  logger.info({ chainId: chain.chainId, rpc: config.rpcUrl }, "chain");

  const metrics = new ServiceMetrics();
  const app = createApp({ config, logger, stores, chain, rateLimitBackend, metrics, ...overrides });
  if (redis) {
    const client = redis;
    app.useCases.readiness.watchRedis(() => client.ping());
  }
  // Before listening: the transaction engine finishes what its journal holds open (a previous process's
  // accepted requests), so that nothing accepted is lost or sent twice.
  await app.useCases.start();
  if (app.indexer) {
    // A halt left by an earlier run is checked again: if the chain still lacks the indexed block, it halts again.
    await app.indexer.clearHalt();
    app.indexer.start();
    logger.info({ finalityDepth: app.indexer.settings.finalityDepth, holder: app.indexer.holder }, "indexer started");
  }
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  // Longer than the usual 60 s idle timeout of load balancers and of HTTP clients, so that the server is never the
  // side that closes an idle keep-alive connection a client is about to reuse ("other side closed").
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const detach = app.attachSockets(server);
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  // Nonces are kept a day past expiry (so late attempts still get "expired" or "already used"), then deleted;
  // idempotent answers are deleted after their day (where the database has no TTL index to do it).
  const purge = setInterval(() => {
    const now = Date.now();
    stores.nonces.purgeExpired(new Date(now - NONCE_RETENTION_MS)).catch((error: unknown) => {
      logger.warn({ err: error }, "nonce purge failed");
    });
    stores.idempotency.purgeExpired(new Date(now)).catch((error: unknown) => {
      logger.warn({ err: error }, "idempotent answer purge failed");
    });
  }, PURGE_INTERVAL_MS);
  purge.unref();

  // This instance is a node of the network (GET /v1/nodes) while it heartbeats into the shared store.
  const heartbeat = createNodeHeartbeat({
    store: stores.nodes,
    logger,
    version: SERVICE_VERSION,
    url: config.publicUrl,
    holdsIndexerLease: () => app.indexer?.isWriter ?? false,
  });
  await heartbeat.start();

  let metricsListener: MetricsListener | undefined;
  if (config.metrics) metricsListener = await listenForMetrics(metrics, config.metrics.port, config.metrics.host);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const deadline = Date.now() + config.shutdownTimeoutMs;
      app.useCases.readiness.stopServing();
      clearInterval(purge);
      heartbeat.stop();
      const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await detach();
      // Handlers still running (their client may have hung up) finish before the store closes; so do the writes
      // they wait for, or those stay journaled (reconciled at the next start).
      await app.drain(Math.max(0, deadline - Date.now()));
      // Each keep-alive connection closes as soon as its last answer is written.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      await Promise.race([httpClosed, sleep(Math.max(0, deadline - Date.now()))]);
      clearInterval(sweep);
      server.closeAllConnections();
      await app.closeResources();
      await stores.close();
      if (redis) await redis.quit().catch(() => undefined);
      chain.provider.destroy();
      await metricsListener?.close();
    })());

  return { app, server, url, stores, chain, metrics, metricsUrl: metricsListener?.url ?? null, close };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
