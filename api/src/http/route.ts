import type Router from "@koa/router";
import type { Context } from "koa";
import { z } from "zod";
import type { AuthRequirement, Authenticator } from "./auth";
import type { RateLimitClass, RateLimiters } from "./rateLimit";
import { parseWith, readJsonBody, singleValuedQuery } from "./validation";

/**
 * A route, declared once: method, path, auth, rate-limit class and the zod schemas of its parameters, query, body
 * and responses. The same declaration mounts the Koa handler (validate -> call a service -> shape the response)
 * and produces the route's OpenAPI entry (http/openapi.ts), so the document cannot drift from what is validated.
 *
 * Issue 6 mounts its keyed routes the same way:
 *   defineRoute({ method: "post", path: "/api/v1/agent/vault/deposit", auth: { kind: "agent", minTier: "unverified" },
 *                 rateLimit: "write", body: depositBody, responses: { 200: { description, schema } },
 *                 handler: async ({ body, ctx }) => service.deposit(authenticatedAgent(ctx), body) })
 * and lists it in http/routes/index.ts.
 */

type AnyObjectSchema = z.ZodType<Record<string, unknown>>;

/** Routes without a query schema still reject unknown query parameters. */
const emptyQuery = z.strictObject({}) as unknown as AnyObjectSchema;

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  ctx: Context;
}

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
}

export interface RouteDefinition<
  P extends AnyObjectSchema = AnyObjectSchema,
  Q extends AnyObjectSchema = AnyObjectSchema,
  B extends AnyObjectSchema = AnyObjectSchema,
> {
  method: "get" | "post" | "put" | "delete";
  /** Koa path with `:name` parameters. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** null: public. */
  auth: AuthRequirement | null;
  /** null: not rate limited (documents only). */
  rateLimit: RateLimitClass | null;
  params?: P;
  query?: Q;
  body?: B;
  /** Success and documented error statuses; 400/401/403/429/500/503 are added from auth and limits. */
  responses: Record<number, RouteResponse>;
  /** Returns the JSON body of a 200 (or sets ctx.status/ctx.body itself and returns undefined). */
  handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown> | unknown;
  /** Extra fields for the OpenAPI operation. */
  openapi?: Record<string, unknown>;
}

/** Keeps the generic parameters of one route while letting routes be listed together. */
export function defineRoute<P extends AnyObjectSchema, Q extends AnyObjectSchema, B extends AnyObjectSchema>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export interface MountContext {
  authenticator: Authenticator;
  rateLimiters: RateLimiters;
  bodyLimitBytes: number;
}

/** Mounts a route on the router: [per-IP limit] -> [auth -> per-key limit] -> validation -> handler. */
export function mountRoute(router: Router, route: RouteDefinition, mount: MountContext): void {
  const chain: Array<(ctx: Context, next: () => Promise<unknown>) => Promise<unknown>> = [];
  if (route.auth === null) {
    if (route.rateLimit) chain.push(mount.rateLimiters.middleware(route.rateLimit) as never);
  } else {
    const requirement = route.auth;
    chain.push(async (ctx, next) => {
      const principal = await mount.authenticator.identify(ctx);
      mount.authenticator.authorize(principal, requirement);
      ctx.state.principal = principal;
      return next();
    });
    if (route.rateLimit) chain.push(mount.rateLimiters.middleware(route.rateLimit) as never);
  }
  chain.push(async (ctx) => {
    const params = route.params ? parseWith(route.params, ctx.params ?? {}, "path") : {};
    const query = parseWith(route.query ?? emptyQuery, singleValuedQuery(ctx), "query");
    const body = route.body ? parseWith(route.body, await readJsonBody(ctx, mount.bodyLimitBytes), "body") : undefined;
    const result = await route.handler({ params, query, body, ctx } as RouteInput<never, never, never>);
    if (result !== undefined) ctx.body = result;
  });
  router.register(route.path, [route.method.toUpperCase()], chain as never);
}
