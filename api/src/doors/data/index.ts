import Router from "@koa/router";
import type { Middleware } from "koa";
import compose from "koa-compose";
import { LRUCache } from "lru-cache";
import type { ChainAccess } from "../../chain";
import type { Indexer } from "../../indexer/indexer";
import type { Logger } from "../../logger";
import type { SignedWrites } from "../../usecases/signedWrites";
import type { DataQueries } from "../../readmodel/queries";
import { SERVICE_VERSION } from "../../version";
import { MethodNotAllowedError, NotFoundError } from "../../errors";
import { routeHandler, type RouteDefinition } from "../route";
import { accessRouteDeclarations } from "./access/routes";
import { RouteScopes } from "./access/routeScopes";
import { dataErrorHandler } from "./errors";
import { dataInput } from "./input";
import { DATA_DOCS_PAGE, DOCS_CSP } from "../live/docsPage";
import { buildDataOpenApi } from "./openapi";
import { dataRoutes, type DataRouteDeps } from "./routes";

/**
 * The data API's REST door under /v1: its routes, its OpenAPI document at /v1/openapi.json (rendered at /v1/docs) and
 * its error shape. The access layer (keys, tiers, limits, /v1/nodes and the key routes) mounts in front of the routes
 * through `access`. Paths outside /v1 pass through untouched to the live API.
 */

export interface DataAccess {
  middleware: Middleware;
  routes: Router;
  /** Where the routes behind the middleware declare their scope. */
  scopes: RouteScopes;
  /** The access routes' declarations (the OpenAPI document lists them with the read routes). */
  declarations: RouteDefinition[];
}

export interface DataApiOptions {
  queries: DataQueries;
  chain: ChainAccess;
  indexer: Indexer | null;
  logger: Logger;
  bodyLimitBytes: number;
  publicUrl: string;
  access?: DataAccess;
  /** The signed writes' use case (absent: their routes answer 503). */
  signedWrites?: SignedWrites;
}

export interface DataApi {
  middleware: Middleware;
  /** The read routes (the access layer's are in `access`). */
  routes: RouteDefinition[];
  document(): Record<string, unknown>;
}

/** Every path of the data API's REST door starts with it. */
export const DATA_API_PREFIX = "/v1";

export function dataApi(options: DataApiOptions): DataApi {
  const routes = dataRoutes(options);
  let document: Record<string, unknown> | undefined;
  const openApi = () =>
    (document ??= buildDataOpenApi([...routes, ...(options.access?.declarations ?? accessRouteDeclarations())], {
      version: SERVICE_VERSION,
      serverUrl: options.publicUrl,
    }));

  // A path spelled out by a route is that route's resource, not a value of another route's parameter: POST
  // /v1/vaults/batch must not make GET /v1/vaults/batch a request for the vault "batch".
  const fixedPaths = new Map<string, string[]>();
  for (const route of routes) {
    if (route.path.includes(":")) continue;
    const methods = fixedPaths.get(route.path) ?? [];
    methods.push(...(route.method === "get" ? ["HEAD", "GET"] : [route.method.toUpperCase()]));
    fixedPaths.set(route.path, methods);
  }
  const notAllowed = (ctx: Parameters<Middleware>[0], allowed: string) => {
    ctx.set("Allow", allowed);
    if (ctx.method === "OPTIONS") {
      ctx.status = 204;
      return;
    }
    throw new MethodNotAllowedError(`method ${ctx.method} not allowed on ${ctx.path}; allowed: ${allowed}`);
  };

  // Paths match as documented, letter case included; each route's scope is declared with it (access/routeScopes.ts).
  const router = new Router({ sensitive: true });
  const scopes = options.access?.scopes ?? new RouteScopes();
  const input = dataInput(options.bodyLimitBytes);
  for (const route of routes) {
    const handler = routeHandler(route, input);
    const takesParameters = route.path.includes(":");
    // Not an async function: a route answering from memory sets its body with no promise turn.
    scopes.route(router, route.method, route.path, route.scope ?? null, ((ctx, next) => {
      const fixed = takesParameters ? fixedPaths.get(ctx.path) : undefined;
      if (fixed) return notAllowed(ctx, fixed.join(", "));
      return handler(ctx, next);
    }) as Middleware);
  }
  scopes.route(router, "GET", `${DATA_API_PREFIX}/openapi.json`, null, (ctx) => {
    ctx.body = openApi();
  });
  // The document rendered for a person (Swagger UI; its files are the live door's /docs/assets/).
  scopes.route(router, "GET", `${DATA_API_PREFIX}/docs`, null, (ctx) => {
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Content-Security-Policy", DOCS_CSP);
    ctx.body = DATA_DOCS_PAGE;
  });
  scopes.answeredBy(router);

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
    if (layers.length === 0) throw new NotFoundError(`no route for ${ctx.method} ${ctx.path}`);
    return notAllowed(ctx, [...new Set(layers.flatMap((layer) => layer.methods))].join(", "));
  };
  const front = [dataErrorHandler(options.logger), ...(options.access ? [options.access.middleware] : [])];
  const chain = compose([
    ...front,
    ...(options.access ? [options.access.routes.routes() as Middleware] : []),
    routed,
    unmatched,
  ]);
  // A path that one read route answers skips both routers (the access layer's and this one's): the routing decision
  // is made once per method and path, then the route's handler runs behind the same error handler and access layer.
  const resolved = new ResolvedRoutes(router, options.access?.routes);
  const guarded = compose(front);
  const middleware: Middleware = (ctx, next) => {
    if (ctx.path !== DATA_API_PREFIX && !ctx.path.startsWith(`${DATA_API_PREFIX}/`)) return next();
    const route = resolved.of(ctx.method, ctx.path);
    if (!route) return chain(ctx, next);
    ctx.params = route.params;
    // koa-compose wraps what the last `next` returns in a promise, so a route answering at once needs none.
    return guarded(ctx, () => route.serve(ctx) as Promise<void>);
  };
  return { middleware, routes, document: openApi };
}

interface Resolved {
  /** The route's middleware as registered. */
  serve: (ctx: Parameters<Middleware>[0]) => unknown;
  /** Its path parameters, decoded as the router decodes them (shared by every request to this path: frozen). */
  params: Readonly<Record<string, string>>;
}

/** How many distinct paths keep their routing decision (lru-cache; the least recently used go first). */
const RESOLVED_PATHS = 1_024;

/**
 * Routing decisions by method and path: the one route of `router` that answers, with its parameters, when no route
 * of `before` (a router in front of it) has the path; null otherwise (the request then goes through the routers, as
 * any other).
 */
class ResolvedRoutes {
  readonly #decisions = new LRUCache<string, { resolved: Resolved | null }>({ max: RESOLVED_PATHS });

  constructor(
    private readonly router: Router,
    private readonly before: Router | undefined,
  ) {}

  of(method: string, path: string): Resolved | null {
    const key = `${method} ${path}`;
    let decision = this.#decisions.get(key);
    if (decision === undefined) {
      decision = { resolved: this.#decide(method, path) };
      this.#decisions.set(key, decision);
    }
    return decision.resolved;
  }

  #decide(method: string, path: string): Resolved | null {
    // A route of `before` at this path (any method) decides; its middleware without a path (`use`) does not.
    if (this.before?.match(path, method).path.some((layer) => layer.methods.length > 0)) return null;
    const match = this.router.match(path, method);
    const layers = match.pathAndMethod;
    if (!match.route || match.path.length !== 1 || layers.length !== 1 || layers[0].stack.length !== 1) return null;
    const layer = layers[0];
    return {
      serve: layer.stack[0] as Resolved["serve"],
      params: Object.freeze(layer.params(path, layer.captures(path), {}) as Record<string, string>),
    };
  }
}

/**
 * The data API's OpenAPI document as a server at `serverUrl` serves it at /v1/openapi.json, built without a server
 * (the routes are declared, never called): the SDK's types are generated from it.
 */
export function dataOpenApiDocumentFor(serverUrl: string): Record<string, unknown> {
  return buildDataOpenApi([...dataRoutes({} as DataRouteDeps), ...accessRouteDeclarations()], {
    version: SERVICE_VERSION,
    serverUrl,
  });
}
