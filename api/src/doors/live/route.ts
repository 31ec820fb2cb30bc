import type { Context, Middleware } from "koa";
import { z } from "zod";
import type { ErrorCode } from "../../errors";
import type { Logger } from "../../logger";
import type { UseCases } from "../../usecases";
import type { AuthRequirement, Authenticator } from "./auth";
import type { RateLimitClass, RateLimiters } from "./rateLimit";
import { parseWith, readJsonBody, singleValuedQuery } from "./validation";

/**
 * A route, declared once: method, path, auth, rate-limit class, the zod schemas of its path parameters, query,
 * headers, body and responses, and the error codes its use case can raise. The same declaration mounts the Koa
 * handler (validate -> call a use case -> shape the response) and produces the route's OpenAPI entry (openapi.ts),
 * with every status the route can answer, so the document cannot drift from what is validated and answered.
 */

type AnyObjectSchema = z.ZodType<Record<string, unknown>>;

/** What route factories receive. */
export interface RouteContext {
  useCases: UseCases;
  logger: Logger;
}

/** Routes without a query schema still reject unknown query parameters. */
const emptyQuery = z.strictObject({}) as unknown as AnyObjectSchema;

export interface RouteInput<P, Q, H, B> {
  params: P;
  query: Q;
  headers: H;
  body: B;
  ctx: Context;
}

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** Default application/json. */
  contentType?: string;
}

export interface RouteDefinition<
  P extends AnyObjectSchema = AnyObjectSchema,
  Q extends AnyObjectSchema = AnyObjectSchema,
  H extends AnyObjectSchema = AnyObjectSchema,
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
  /** Request headers the route reads, by their canonical names (others pass untouched). */
  headers?: H;
  body?: B;
  /** The success answer, and any answer whose body is not `{ error }`. */
  responses: Record<number, RouteResponse>;
  /**
   * Error codes the handler can raise besides validation, auth and limits (whose statuses are added from the
   * declaration): each becomes a documented status (doors/live/errors.ts).
   */
  errors?: ErrorCode[];
  /** Answers carry `Cache-Control: no-store` (they hold a secret or an agent's private data). */
  noStore?: boolean;
  /** Returns the JSON body of a 200 (or sets ctx.status/ctx.body itself and returns undefined). */
  handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<H>, z.output<B>>): Promise<unknown> | unknown;
}

/** Keeps the generic parameters of one route while letting routes be listed together. */
export function defineRoute<
  P extends AnyObjectSchema,
  Q extends AnyObjectSchema,
  H extends AnyObjectSchema,
  B extends AnyObjectSchema,
>(route: RouteDefinition<P, Q, H, B>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

export interface MountContext {
  authenticator: Authenticator;
  rateLimiters: RateLimiters;
  bodyLimitBytes: number;
}

/** The request headers a route declares, read by their canonical names (Node lowercases them). */
function declaredHeaders(ctx: Context, schema: AnyObjectSchema): Record<string, unknown> {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.fromEntries(Object.keys(shape).map((name) => [name, ctx.headers[name.toLowerCase()]]));
}

/**
 * The middleware of a route, in order: [per-IP limit] or [auth -> per-key limit], then validation and the handler.
 */
export function routeChain(route: RouteDefinition, mount: MountContext): Middleware[] {
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
  const queryOf = queryParser(route);
  // Not an async function, and nothing made per request that a route without parameters, headers or body does not
  // need: a handler that answers from memory returns its body at once, and the request then takes no extra promise
  // turns or allocations here (the hot public reads).
  chain.push((ctx) => {
    if (route.noStore) ctx.set("Cache-Control", "no-store");
    const params = route.params ? parseWith(route.params, ctx.params ?? {}, "path") : NO_INPUT;
    const query = queryOf(ctx);
    const headers = route.headers ? parseWith(route.headers, declaredHeaders(ctx, route.headers), "headers") : NO_INPUT;
    if (!route.body) return answer(route, { params, query, headers, body: undefined, ctx });
    const schema = route.body;
    return readJsonBody(ctx, mount.bodyLimitBytes).then((raw) =>
      answer(route, { params, query, headers, body: parseWith(schema, raw, "body"), ctx }),
    );
  });
  return chain;
}

/** What a route without path parameters or declared headers receives for them: one frozen empty object. */
const NO_INPUT: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Runs the handler on the validated input; its return value is the body of a 200 (undefined: it answered itself).
 * A body returned at once is set at once, without a promise.
 */
function answer(route: RouteDefinition, input: RouteInput<unknown, unknown, unknown, unknown>): Promise<void> | void {
  const result = route.handler(input as RouteInput<never, never, never, never>);
  if (result instanceof Promise) return result.then((value) => respond(input.ctx, value));
  respond(input.ctx, result);
}

/** A handler's return value is the body of a 200; undefined means it answered itself. */
function respond(ctx: Context, result: unknown): void {
  if (result !== undefined) ctx.body = result;
}

/**
 * The validated query of a request. A request without a query string validates to the same value every time, so
 * that value is computed once per route (frozen, shared by those requests); when the route requires a parameter, the
 * empty query fails every time and nothing is kept.
 */
function queryParser(route: RouteDefinition): (ctx: Context) => Record<string, unknown> {
  const schema = route.query ?? emptyQuery;
  let withoutQuery: Readonly<Record<string, unknown>> | undefined;
  return (ctx) => {
    if (ctx.querystring !== "") return parseWith(schema, singleValuedQuery(ctx), "query");
    withoutQuery ??= Object.freeze(parseWith(schema, {}, "query"));
    return withoutQuery;
  };
}

/** True when the route's path has no `:name` parameters (it is served from a table of exact paths). */
export function isStaticPath(route: RouteDefinition): boolean {
  return !route.path.includes(":");
}
