import Router from "@koa/router";
import Koa from "koa";
import type { ChainAccess } from "./chain";
import { RecoveryPool } from "./chain/recoveryPool";
import { verifyWalletSignature } from "./chain/signatures";
import type { Config } from "./config";
import { AgentService } from "./domain/agents";
import { RegistrationService, type SignatureVerifier } from "./domain/registration";
import type { Logger } from "./logger";
import { Authenticator } from "./http/auth";
import { accessLog, errorHandler, requestId } from "./http/middleware";
import { buildOpenApiDocument } from "./http/openapi";
import { createRateLimiters, type RateLimitBackend, type RateLimiters } from "./http/rateLimit";
import { mountRoute, type RouteDefinition } from "./http/route";
import { docsRoutes } from "./http/routes/docs";
import { apiRoutes } from "./http/routes";
import { OnchainService, type OnchainDeps } from "./ops/onchain";
import type { Services } from "./services";
import type { Store } from "./store/types";
import { SERVICE_VERSION } from "./version";

export interface AppDeps {
  config: Config;
  logger: Logger;
  store: Store;
  chain: ChainAccess;
  /** Default: one Map shared by every limiter of this app. Pass a Redis client to share limits between instances. */
  rateLimitBackend?: RateLimitBackend;
  clock?: () => Date;
  /** Default: EIP-191 recovery, then EIP-1271 on the service's chain. */
  signatureVerifier?: SignatureVerifier;
  /** Routes of later parts (issue 6), mounted with the same auth, limits, validation and OpenAPI. */
  extraRoutes?: (services: Services) => RouteDefinition[];
  /** Issue 6: overrides of the onchain part (journal, idempotency store, engine options, NAP grant). */
  onchain?: Partial<Pick<OnchainDeps, "journal" | "idempotencyStore" | "engineOptions" | "napGrantWei">>;
}

export interface NapApp extends Koa {
  /** Everything mounted, in order (for the OpenAPI document and tests). */
  routeDefinitions: RouteDefinition[];
  services: Services;
  rateLimiters: RateLimiters;
  /** Stops timers and worker threads (the server calls it on shutdown). */
  closeResources(): Promise<void>;
  /** Resolves when no handler is running, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
}

/** Builds the Koa app (does not listen): middleware, services and every route. */
export function createApp(deps: AppDeps): NapApp {
  const { config, logger, store, chain } = deps;
  const clock = deps.clock ?? (() => new Date());
  const recoveryPool = new RecoveryPool(deps.signatureVerifier ? 0 : config.signatureWorkers);
  const verifier: SignatureVerifier =
    deps.signatureVerifier ??
    ((wallet, message, signature) =>
      verifyWalletSignature(chain.provider, wallet, message, signature, recoveryPool.recover));

  const agents = new AgentService(store, clock);
  const services: Services = {
    config,
    logger,
    store,
    chain,
    agents,
    onchain: new OnchainService({ config, logger, store, chain, agents, clock, ...deps.onchain }),
    registration: new RegistrationService(
      store,
      { domain: config.serviceDomain, uri: config.publicUrl, chainId: chain.chainId },
      verifier,
      clock,
    ),
  };

  const app = new Koa() as NapApp;
  // Client IPs: X-Forwarded-For is believed only for the configured number of trusted proxy hops.
  app.proxy = config.trustedProxyCount > 0;
  app.maxIpsCount = config.trustedProxyCount;
  // Errors are answered (and logged) by errorHandler; silence Koa's default stderr printing.
  app.silent = true;

  const rateLimiters = createRateLimiters(deps.rateLimitBackend ?? { driver: "memory", db: new Map() }, {
    disabled: config.rateLimitsDisabled,
  });
  const authenticator = new Authenticator(store, config.operatorApiKeys);

  let document: Record<string, unknown> | undefined;
  const routes: RouteDefinition[] = [
    ...apiRoutes(services),
    ...(deps.extraRoutes ? deps.extraRoutes(services) : []),
    ...docsRoutes(
      (): Record<string, unknown> =>
        (document ??= buildOpenApiDocument(routes, { version: SERVICE_VERSION, serverUrl: config.publicUrl })),
    ),
  ];

  const router = new Router();
  const mount = { authenticator, rateLimiters, bodyLimitBytes: config.bodyLimitBytes };
  for (const route of routes) mountRoute(router, route, mount);

  // Counts running handlers, so that shutdown can wait for them even when their clients have gone.
  let running = 0;
  let idle: (() => void) | undefined;
  app.use(async (_ctx, next) => {
    running += 1;
    try {
      await next();
    } finally {
      running -= 1;
      if (running === 0) idle?.();
    }
  });
  app.use(requestId());
  app.use(accessLog(logger));
  app.use(errorHandler(logger));
  app.use(router.routes());
  app.use(router.allowedMethods());

  app.routeDefinitions = routes;
  app.services = services;
  app.rateLimiters = rateLimiters;
  app.drain = (timeoutMs) =>
    running === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, timeoutMs).unref();
        });
  app.closeResources = async () => {
    rateLimiters.close();
    await services.onchain.close();
    await recoveryPool.close();
  };
  return app;
}
