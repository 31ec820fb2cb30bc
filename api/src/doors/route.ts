import type { Context, Middleware } from "koa";
import { z } from "zod";
import type { Scope } from "../usecases/dataKeys/scopes";
import type { AuthRequirement } from "./live/auth";
import type { RateLimitClass } from "./live/rateLimit";
import { SerializedJson } from "./serializedJson";

/**
 * A REST route, declared once for every door (the live API, the data API and its access routes): method, path, who
 * may call it, the zod schemas of its path parameters, query, headers, body and responses, the error codes it can
 * answer, and its handler. The door mounts the declaration (its guard, then `routeHandler`: validate -> call a use
 * case -> shape the answer) and builds its OpenAPI document from the same declarations, so that neither can drift
 * from what is validated and answered. Handlers are ordinary functions, async or not.
 */

type AnyObjectSchema = z.ZodType<Record<string, unknown>>;

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

/**
 * A fast path: an answer kept in memory (the vault list of the indexed block, the health snapshot of the second) is
 * sent without a promise turn, its JSON serialized once per kept value. The handler then returns the value itself
 * (not its body), which is serialized the same way.
 */
export interface RouteCache<T extends object = object> {
  /**
   * The value this request can be answered with at once (it may set the headers that go with it), or undefined: the
   * handler runs.
   */
  kept(input: RouteInput<never, never, never, never>): T | undefined;
  /** The wire body of a value. */
  body(value: T): unknown;
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
  /** The live API: who may call it (null: public). */
  auth?: AuthRequirement | null;
  /** The live API: its rate-limit class (null: not rate limited). */
  rateLimit?: RateLimitClass | null;
  /** The data API: the scope a key must hold to call it (null: any key, or none). */
  scope?: Scope | null;
  /** The data API: the security requirements its OpenAPI operation lists (default: no key or a Bearer key). */
  security?: Array<Record<string, string[]>>;
  params?: P;
  query?: Q;
  /** Request headers the route reads, by their canonical names (others pass untouched). */
  headers?: H;
  body?: B;
  /**
   * The data API: the error code of a bad input field when it is not INVALID_<FIELD> (`minBlock`:
   * INVALID_MIN_BLOCK; a batch's `vaultIds`: INVALID_BODY).
   */
  inputCodes?: Readonly<Record<string, string>>;
  /** The success answer, and any answer whose body is not an error. */
  responses: Record<number, RouteResponse>;
  /** Error codes the handler can raise besides validation, auth and limits; each becomes a documented status. */
  errors?: string[];
  /** Answers carry `Cache-Control: no-store` (they hold a secret or a caller's private data). */
  noStore?: boolean;
  cache?: RouteCache;
  /** Returns the JSON body of a 200 (with `cache`: the value), or sets ctx.status/ctx.body and returns undefined. */
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

/** Where a request's parts are read from. */
export type InputPart = "path" | "query" | "headers" | "body";

/** How a door reads and validates input: each door answers bad input in its own shape and codes. */
export interface InputPolicy {
  /** Validates one part of the request against its declared schema (throws the door's error). */
  parse(route: RouteDefinition, schema: AnyObjectSchema, value: unknown, part: InputPart): Record<string, unknown>;
  /** The query string's parameters (a repeated one is the door's error). */
  query(ctx: Context): Record<string, unknown>;
  /** The JSON body, at most the body limit. */
  body(ctx: Context): Promise<unknown>;
}

/** Routes without a query schema still reject unknown query parameters. */
const emptyQuery = z.strictObject({}) as unknown as AnyObjectSchema;

/** The request headers a route declares, read by their canonical names (Node lowercases them). */
function declaredHeaders(ctx: Context, schema: AnyObjectSchema): Record<string, unknown> {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.fromEntries(Object.keys(shape).map((name) => [name, ctx.headers[name.toLowerCase()]]));
}

/** What a route without path parameters or declared headers receives for them: one frozen empty object. */
const NO_INPUT: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The last middleware of a route: validation, the fast path when declared, the handler, the answer. It answers
 * without a promise when nothing needs one (a kept answer of a route without a body), so that the hot reads take no
 * promise turn here; an async handler is awaited as any other.
 */
export function routeHandler(
  route: RouteDefinition,
  policy: InputPolicy,
  options: {
    /**
     * A kept answer is written to the socket by the route (SerializedJson.send) rather than by Koa: only for a door
     * that nothing after the route adds headers to.
     */
    writeDirectly?: boolean;
  } = {},
): Middleware {
  const queryOf = queryParser(route, policy);
  const cache = route.cache;
  const encoded = cache ? new SerializedJson(cache.body) : undefined;
  const respond = (ctx: Context, result: unknown): void => {
    if (result === undefined) return;
    if (!encoded || !cache) {
      ctx.body = result;
      return;
    }
    if (options.writeDirectly) encoded.send(ctx, result as object);
    else ctx.body = encoded.respond(ctx, result as object);
  };
  const run = (input: RouteInput<unknown, unknown, unknown, unknown>): Promise<void> | void => {
    const result = route.handler(input as RouteInput<never, never, never, never>);
    if (result instanceof Promise) return result.then((value) => respond(input.ctx, value));
    respond(input.ctx, result);
  };
  return (ctx) => {
    if (route.noStore) ctx.set("Cache-Control", "no-store");
    const params = route.params ? policy.parse(route, route.params, ctx.params ?? {}, "path") : NO_INPUT;
    const query = queryOf(ctx);
    const headers = route.headers
      ? policy.parse(route, route.headers, declaredHeaders(ctx, route.headers), "headers")
      : NO_INPUT;
    if (!route.body) {
      const input = { params, query, headers, body: undefined, ctx };
      const kept = cache?.kept(input as RouteInput<never, never, never, never>);
      if (kept !== undefined) return respond(ctx, kept);
      return run(input);
    }
    const schema = route.body;
    return policy
      .body(ctx)
      .then((raw) => run({ params, query, headers, body: policy.parse(route, schema, raw, "body"), ctx }));
  };
}

/**
 * The validated query of a request. A request without a query string validates to the same value every time, so
 * that value is computed once per route (frozen, shared by those requests); when the route requires a parameter, the
 * empty query fails every time and nothing is kept.
 */
function queryParser(route: RouteDefinition, policy: InputPolicy): (ctx: Context) => Record<string, unknown> {
  const schema = route.query ?? emptyQuery;
  let withoutQuery: Readonly<Record<string, unknown>> | undefined;
  return (ctx) => {
    if (ctx.querystring !== "") return policy.parse(route, schema, policy.query(ctx), "query");
    withoutQuery ??= Object.freeze(policy.parse(route, schema, {}, "query"));
    return withoutQuery;
  };
}

/** True when the route's path has no `:name` parameters. */
export function isStaticPath(route: RouteDefinition): boolean {
  return !route.path.includes(":");
}
