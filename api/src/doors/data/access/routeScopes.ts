import type Router from "@koa/router";
import type { Middleware } from "koa";
import { LRUCache } from "lru-cache";
import type { Scope } from "../../../usecases/dataKeys/scopes";

/**
 * The one rule that decides what a request with a key needs: the scope declared by the route that will answer it,
 * found with the answering routers' own matcher, in the order they answer. A path no route answers (404, 405) needs
 * no scope: any valid key gets the same refusal as no key.
 *
 * Deciding from the path as written (its letters, slashes or escapes) once let `POST /v1/NODES/heartbeat` reach the
 * heartbeat with no scope check; here the path is only ever read by the matcher that routes it.
 */

/** A route's need: a scope, or null when any valid key (or none) will do. */
export type RouteScope = Scope | null;

type Layer = Router["stack"][number];

/** Distinct method and path pairs whose decision is kept (the least recently used go first). */
const KEPT_DECISIONS = 1_024;

export class RouteScopes {
  readonly #declared = new WeakMap<Layer, RouteScope>();
  readonly #routers: Router[] = [];
  readonly #decisions = new LRUCache<string, { scope: RouteScope }>({ max: KEPT_DECISIONS });

  /** Registers a route on `router` with the scope it needs, the only way a route gets one. */
  route(router: Router, method: string, path: string, scope: RouteScope, handler: Middleware): Layer {
    const layer = router.register(path, [method.toUpperCase()], handler as never) as Layer;
    this.#declared.set(layer, scope);
    return layer;
  }

  /**
   * Adds `router` behind those added before, as requests reach them. Every route it has must have been registered
   * through route(): a route without a declared scope would otherwise be answered unchecked.
   */
  answeredBy(router: Router): void {
    for (const layer of router.stack) {
      if (layer.methods.length > 0 && !this.#declared.has(layer)) {
        throw new Error(`route ${layer.methods.join(",")} ${layer.path} has no declared scope`);
      }
    }
    this.#routers.push(router);
    this.#decisions.clear();
  }

  /** Every route of the added routers with its scope, in answering order (documentation and tests read it). */
  routes(): Array<{ layer: Layer; scope: RouteScope }> {
    return this.#routers.flatMap((router) =>
      router.stack
        .filter((layer) => layer.methods.length > 0)
        .map((layer) => ({ layer, scope: this.#declared.get(layer) ?? null })),
    );
  }

  /** The scope the route answering `method` `path` needs; null when it needs none or no route answers. */
  of(method: string, path: string): RouteScope {
    const key = `${method} ${path}`;
    const kept = this.#decisions.get(key);
    if (kept !== undefined) return kept.scope;
    const decided = this.#decide(method, path);
    this.#decisions.set(key, { scope: decided });
    return decided;
  }

  #decide(method: string, path: string): RouteScope {
    for (const router of this.#routers) {
      // Routes answer in registration order; a router's own middleware (no methods) answers nothing.
      const layer = router.match(path, method).pathAndMethod.find((candidate) => candidate.methods.length > 0);
      if (!layer) continue;
      const scope = this.#declared.get(layer);
      if (scope === undefined) throw new Error(`route ${layer.methods.join(",")} ${layer.path} has no declared scope`);
      return scope;
    }
    return null;
  }
}
