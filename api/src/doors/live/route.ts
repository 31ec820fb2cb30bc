import type { Middleware } from "koa";
import { KEY_OPERATIONS, type KeyAccess } from "../../domain/keyScopes";
import type { Logger } from "../../logger";
import type { UseCases } from "../../usecases";
import { routeHandler, type InputPolicy, type RouteDefinition } from "../route";
import type { Authenticator } from "./auth";
import type { RateLimiters } from "./rateLimit";
import { parseWith, readJsonBody, singleValuedQuery } from "./validation";

/**
 * The live API's side of the one route declaration (doors/route.ts): every live route declares `auth` and
 * `rateLimit`; bad input is a ValidationError whose message names the field and the rule.
 */

export { defineRoute, isStaticPath } from "../route";
export type { RouteDefinition, RouteInput, RouteResponse } from "../route";

/** What route factories receive. */
export interface RouteContext {
  useCases: UseCases;
  logger: Logger;
}

export interface MountContext {
  authenticator: Authenticator;
  rateLimiters: RateLimiters;
  bodyLimitBytes: number;
}

/**
 * An agent route names what it needs of the key, from the known set; `read` only on a GET, so that a read-only scoped
 * key never reaches a write that was declared a read by mistake.
 */
function checkAccess(route: RouteDefinition, access: KeyAccess | undefined): void {
  const name = `live route ${route.method.toUpperCase()} ${route.path}`;
  if (access === undefined || !(access === "read" || access === "full_key" || isKeyOperation(access))) {
    throw new Error(
      `${name} must declare auth.access: "read", "full_key" or an operation (${KEY_OPERATIONS.join(", ")})`,
    );
  }
  if (access === "read" && route.method !== "get") throw new Error(`${name}: only a GET may declare access "read"`);
}

function isKeyOperation(value: string): boolean {
  return (KEY_OPERATIONS as readonly string[]).includes(value);
}

function liveInput(bodyLimitBytes: number): InputPolicy {
  return {
    parse: (_route, schema, value, part) => parseWith(schema, value, part),
    query: singleValuedQuery,
    body: (ctx) => readJsonBody(ctx, bodyLimitBytes),
  };
}

/**
 * The middleware of a route, in order: [per-IP limit] or [auth -> per-key limit], then validation and the handler.
 */
export function routeChain(route: RouteDefinition, mount: MountContext): Middleware[] {
  if (route.auth === undefined || route.rateLimit === undefined) {
    throw new Error(`live route ${route.method.toUpperCase()} ${route.path} must declare auth and rateLimit`);
  }
  if (route.auth?.kind === "agent") checkAccess(route, route.auth.access);
  const chain: Middleware[] = [];
  const limiter = route.rateLimit ? mount.rateLimiters.middleware(route.rateLimit) : null;
  if (route.auth === null) {
    if (limiter) chain.push(limiter);
  } else {
    const requirement = route.auth;
    chain.push(async (ctx, next) => {
      const principal = await mount.authenticator.identify(ctx);
      mount.authenticator.authorize(principal, requirement);
      ctx.state.principal = principal;
      return next();
    });
    if (limiter) chain.push(limiter);
  }
  // The live door is the last step of a request: a kept answer is written by the route itself.
  chain.push(routeHandler(route, liveInput(mount.bodyLimitBytes), { writeDirectly: true }));
  return chain;
}
