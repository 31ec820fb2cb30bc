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

  const router = new Router({ prefix: DATA_API_PREFIX });
  for (const route of routes) {
    router.register(route.path, [route.method.toUpperCase()], (async (ctx: Parameters<Middleware>[0]) => {
      const body = await route.handler(ctx);
      if (ctx.body === undefined) ctx.body = body;
    }) as never);
  }
  router.get("/openapi.json", (ctx) => {
    ctx.body = openApi();
  });

  const routed = router.routes() as Middleware;
  const unmatched: Middleware = async (ctx) => {
    const layers = router.match(ctx.path, ctx.method).path;
    if (layers.length === 0) throw new DataApiError("NOT_FOUND", `no route for ${ctx.method} ${ctx.path}`);
    const allowed = [...new Set(layers.flatMap((layer) => layer.methods))].join(", ");
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
