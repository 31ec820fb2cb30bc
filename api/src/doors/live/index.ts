import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import compose from "koa-compose";
import type { Config } from "../../config";
import { MethodNotAllowedError, NotFoundError } from "../../errors";
import type { Logger } from "../../logger";
import type { UseCases } from "../../usecases";
import { SERVICE_VERSION } from "../../version";
import { Authenticator } from "./auth";
import { docsAssets } from "./docsPage";
import { respondWithError } from "./errors";
import { createInvalidKeyLimiter } from "./invalidKeys";
import { buildOpenApiDocument } from "./openapi";
import { createRateLimiters, type RateLimitBackend, type RateLimiters } from "./rateLimit";
import { ExactRoutes } from "./exactRoutes";
import { isStaticPath, routeChain, type RouteDefinition } from "./route";
import { docsRoutes } from "./routes/docs";
import { apiRoutes } from "./routes";

/**
 * The live API door: the spec's routes (live-api.md) with their auth, limits and validation, the OpenAPI document
 * and docs page built from the same declarations, and the mapping of the service's errors to `{ "error": "..." }`.
 */

export interface LiveApiOptions {
  useCases: UseCases;
  config: Config;
  logger: Logger;
  /** One shared Map in this process, or Redis so that several instances share the limits. */
  rateLimitBackend: RateLimitBackend;
  /** Routes mounted beside the spec's, with the same auth, limits, validation and OpenAPI (tests). */
  extraRoutes?: (useCases: UseCases) => RouteDefinition[];
}

export interface LiveApi {
  /** The routes, the docs page's assets, then 405/404 for whatever no route answered; errors mapped to responses. */
  readonly middleware: Middleware;
  /** Everything mounted, in order (the OpenAPI document is built from it). */
  readonly routes: RouteDefinition[];
  readonly rateLimiters: RateLimiters;
}

export function liveApi(options: LiveApiOptions): LiveApi {
  const { useCases, config, logger, rateLimitBackend } = options;
  const rateLimiters = createRateLimiters(rateLimitBackend, { disabled: config.rateLimitsDisabled });
  const invalidKeys = createInvalidKeyLimiter(
    rateLimitBackend.driver === "redis" ? rateLimitBackend : { driver: "memory" },
    { disabled: config.rateLimitsDisabled },
  );
  const authenticator = new Authenticator(useCases.agents, config.operatorApiKeys, invalidKeys, useCases.scopedKeys);

  let document: Record<string, unknown> | undefined;
  const routes: RouteDefinition[] = [
    ...apiRoutes({ useCases, logger }),
    ...(options.extraRoutes ? options.extraRoutes(useCases) : []),
    ...docsRoutes(
      (): Record<string, unknown> =>
        (document ??= buildOpenApiDocument(routes, { version: SERVICE_VERSION, serverUrl: config.publicUrl })),
    ),
  ];
  // Every route is in the router (which also answers 405 with Allow); routes without path parameters are served
  // from a table of exact paths first, which spares the router's per-request matching on the hot reads.
  const router = new Router();
  const exact = new ExactRoutes();
  const mount = { authenticator, rateLimiters, bodyLimitBytes: config.bodyLimitBytes };
  for (const route of routes) {
    const chain = routeChain(route, mount);
    const method = route.method.toUpperCase();
    router.register(route.path, [method], chain as never);
    if (isStaticPath(route)) exact.add(method, route.path, chain);
  }
  // Routes with path parameters, the docs page's assets, then what no route answered.
  const rest = compose([docsAssets(), router.routes() as Middleware, unmatched(router)]);
  const middleware: Middleware = (ctx, next) => {
    let answered: Promise<void> | void;
    try {
      answered = (exact.find(ctx.method, ctx.path) ?? rest)(ctx, next);
    } catch (error) {
      // A route that answers without a promise also fails without one (validation).
      respondWithError(ctx, error, logger);
      return;
    }
    if (answered instanceof Promise) {
      return answered.then(undefined, (error: unknown) => respondWithError(ctx, error, logger));
    }
  };

  return { middleware, routes, rateLimiters };
}

/**
 * The OpenAPI document a server at `serverUrl` serves, built without a server (for the SDK's generated types). Route
 * factories read their use cases only inside handlers, which never run here, so none are needed.
 */
export function openApiDocumentFor(serverUrl: string, logger: Logger): Record<string, unknown> {
  const routes: RouteDefinition[] = [...apiRoutes({ useCases: {} as UseCases, logger }), ...docsRoutes(() => ({}))];
  return buildOpenApiDocument(routes, { version: SERVICE_VERSION, serverUrl });
}

/**
 * What no route answered: a path the router knows with another method is 405 with `Allow` (any method, TRACE and
 * the like included, never 501), OPTIONS on it is 204 with `Allow`, and an unknown path is 404.
 */
function unmatched(router: Router): Middleware {
  return async (ctx: Context) => {
    const layers = router.match(ctx.path, ctx.method).path;
    if (layers.length === 0) throw new NotFoundError(`no route for ${ctx.method} ${ctx.path}`);
    const allowed = [...new Set(layers.flatMap((layer) => layer.methods))].join(", ");
    ctx.set("Allow", allowed);
    if (ctx.method === "OPTIONS") {
      ctx.status = 204;
      return;
    }
    throw new MethodNotAllowedError(`method ${ctx.method} not allowed on ${ctx.path}; allowed: ${allowed}`);
  };
}
