import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import { LRUCache } from "lru-cache";
import type { Door, ServiceMetrics } from "./metrics";

/**
 * Times every HTTP request and records it by its route template (`/v1/vaults/:address`), never its raw path, so that
 * the label values stay a bounded set: a path no declared route has is `unmatched` when answered 404, else `other`.
 */

/** Distinct request paths whose template is remembered; past it the least recent are forgotten. */
const REMEMBERED_PATHS = 1_024;

/**
 * The declared route templates of every door, matched as the doors' routers match them (letter case included). The
 * doors route some requests without their router (fast paths), so the template is found here, once per path.
 */
export class RouteTemplates {
  readonly #router = new Router({ sensitive: true });
  /** "" for a path no template matches. */
  readonly #byPath = new LRUCache<string, string>({ max: REMEMBERED_PATHS });

  constructor(templates: Iterable<string>) {
    for (const template of new Set(templates)) this.#router.all(template, () => undefined);
  }

  /** The template `path` belongs to (a spelled-out path before one with a parameter), or undefined. */
  of(path: string): string | undefined {
    let template = this.#byPath.get(path);
    if (template === undefined) {
      const layers = this.#router.match(path, "GET").path;
      const fewestParameters = layers.reduce<(typeof layers)[number] | undefined>(
        (best, layer) => (best === undefined || layer.paramNames.length < best.paramNames.length ? layer : best),
        undefined,
      );
      template = fewestParameters === undefined ? "" : String(fewestParameters.path);
      this.#byPath.set(path, template);
    }
    return template === "" ? undefined : template;
  }
}

export interface RouteLabels {
  templates: RouteTemplates;
  /** Which door a path belongs to. */
  doorOf(path: string): Door;
}

export function routeLabel(ctx: Context, templates: RouteTemplates): string {
  return templates.of(ctx.path) ?? (ctx.status === 404 ? "unmatched" : "other");
}

/** `handle` timed and recorded; a handler that answers without a promise is recorded without one. */
export function withHttpMetrics(metrics: ServiceMetrics, labels: RouteLabels, handle: Middleware): Middleware {
  const record = (ctx: Context, started: number) => {
    const seconds = (performance.now() - started) / 1000;
    metrics.request(labels.doorOf(ctx.path), routeLabel(ctx, labels.templates), ctx.method, ctx.status, seconds);
  };
  return (ctx, next) => {
    const started = performance.now();
    let answered: unknown;
    try {
      answered = handle(ctx, next);
    } catch (error) {
      record(ctx, started);
      throw error;
    }
    if (answered instanceof Promise) return answered.finally(() => record(ctx, started));
    record(ctx, started);
  };
}
