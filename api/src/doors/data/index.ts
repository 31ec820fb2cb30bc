import Router from "@koa/router";
import type { Middleware } from "koa";
import compose from "koa-compose";
import type { ChainAccess } from "../../chain";
import type { Indexer } from "../../indexer/indexer";
import type { Logger } from "../../logger";
import type { DataQueries } from "../../readmodel/queries";
import { SERVICE_VERSION } from "../../version";
import { dataErrorHandler, DataApiError } from "./errors";
import { buildDataOpenApi } from "./openapi";
import { dataRoutes, type DataRoute, type DataRouteDeps } from "./routes";

/**
 * The data API's REST door under /v1: its routes, its OpenAPI document at /v1/openapi.json and its error shape. The
 * access layer (keys, tiers, limits, /v1/nodes and the key routes) mounts in front of the routes through `access`.
 * Paths outside /v1 pass through untouched to the live API.
 */

export interface DataAccess {
  middleware: Middleware;
  routes: Router;
}

export interface DataApiOptions {
  queries: DataQueries;
  chain: ChainAccess;
  indexer: Indexer | null;
  logger: Logger;
  bodyLimitBytes: number;
  publicUrl: string;
  access?: DataAccess;
}

export interface DataApi {
  middleware: Middleware;
  routes: DataRoute[];
  document(): Record<string, unknown>;
}

/** Every path of the data API's REST door starts with it. */
export const DATA_API_PREFIX = "/v1";

export function dataApi(options: DataApiOptions): DataApi {
  const routes = dataRoutes(options);
  let document: Record<string, unknown> | undefined;
  const openApi = () =>
    (document ??= buildDataOpenApi(routes, { version: SERVICE_VERSION, serverUrl: options.publicUrl }));

  // A path spelled out by a route is that route's resource, not a value of another route's parameter: POST
  // /v1/vaults/batch must not make GET /v1/vaults/batch a request for the vault "batch".
  const fixedPaths = new Map<string, string[]>();
  for (const route of routes) {
    if (route.path.includes(":")) continue;
    const methods = fixedPaths.get(DATA_API_PREFIX + route.path) ?? [];
    methods.push(...(route.method === "get" ? ["HEAD", "GET"] : [route.method.toUpperCase()]));
    fixedPaths.set(DATA_API_PREFIX + route.path, methods);
  }
  const notAllowed = (ctx: Parameters<Middleware>[0], allowed: string) => {
    ctx.set("Allow", allowed);
    if (ctx.method === "OPTIONS") {
      ctx.status = 204;
      return;
    }
    throw new DataApiError(
      "METHOD_NOT_ALLOWED",
      `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${allowed}`,
    );
  };

  const router = new Router({ prefix: DATA_API_PREFIX });
  for (const route of routes) {
    const takesParameters = route.path.includes(":");
    router.register(route.path, [route.method.toUpperCase()], (async (ctx: Parameters<Middleware>[0]) => {
      const fixed = takesParameters ? fixedPaths.get(ctx.path) : undefined;
      if (fixed) return notAllowed(ctx, fixed.join(", "));
      const body = await route.handler(ctx);
      if (ctx.body === undefined) ctx.body = body;
    }) as never);
  }
  router.get("/openapi.json", (ctx) => {
    ctx.body = openApi();
  });

  const routed = router.routes() as Middleware;
  // Reached only when no route answered: 404 for a path no route has, else 405 (204 to OPTIONS) with the methods the
  // path has, the access layer's routes (keys, limits, nodes) included.
  const unmatched: Middleware = async (ctx) => {
    const fixed = fixedPaths.get(ctx.path);
    if (fixed) return notAllowed(ctx, fixed.join(", "));
    const layers = [
      ...router.match(ctx.path, ctx.method).path,
      ...(options.access ? options.access.routes.match(ctx.path, ctx.method).path : []),
    ].filter((layer) => layer.methods.length > 0); // a router's own middleware matches every path
    if (layers.length === 0) throw new DataApiError("NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
    return notAllowed(ctx, [...new Set(layers.flatMap((layer) => layer.methods))].join(", "));
  };
  const chain = compose([
    dataErrorHandler(options.logger),
    ...(options.access ? [options.access.middleware, options.access.routes.routes() as Middleware] : []),
    routed,
    unmatched,
  ]);
  const middleware: Middleware = (ctx, next) =>
    ctx.path === DATA_API_PREFIX || ctx.path.startsWith(`${DATA_API_PREFIX}/`) ? chain(ctx, next) : next();
  return { middleware, routes, document: openApi };
}

/**
 * The data API's OpenAPI document as a server at `serverUrl` serves it at /v1/openapi.json, built without a server
 * (the routes are declared, never called): the SDK's types are generated from it.
 */
export function dataOpenApiDocumentFor(serverUrl: string): Record<string, unknown> {
  return buildDataOpenApi(dataRoutes({} as DataRouteDeps), { version: SERVICE_VERSION, serverUrl });
}
