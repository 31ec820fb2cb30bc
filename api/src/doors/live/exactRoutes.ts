import type { Context, Middleware, Next } from "koa";
import compose from "koa-compose";

/** A route's middleware as the door calls it: may answer at once (void) or through a promise. */
export type RouteRunner = (ctx: Context, next: Next) => Promise<void> | void;

/**
 * The routes without path parameters, found by method and exact path before any router runs. Two Map lookups on
 * strings Node and Koa already hold (the method, and the path parseurl keeps for the request), so nothing is built
 * per request to find the route. GET routes answer HEAD too, as the router does.
 */
export class ExactRoutes {
  readonly #byMethod = new Map<string, Map<string, RouteRunner>>();

  add(method: string, path: string, chain: Middleware[]): void {
    const runner = runnerOf(chain);
    this.#table(method).set(path, runner);
    if (method === "GET") this.#table("HEAD").set(path, runner);
  }

  find(method: string, path: string): RouteRunner | undefined {
    return this.#byMethod.get(method)?.get(path);
  }

  #table(method: string): Map<string, RouteRunner> {
    let table = this.#byMethod.get(method);
    if (!table) {
      table = new Map();
      this.#byMethod.set(method, table);
    }
    return table;
  }
}

/**
 * A chain of one middleware (a public route while limits are lifted) is called as it is: koa-compose would wrap
 * even a body answered at once in a promise of its own. Longer chains (auth, limits) are composed.
 */
function runnerOf(chain: Middleware[]): RouteRunner {
  if (chain.length === 1) return chain[0] as RouteRunner;
  return compose(chain);
}
