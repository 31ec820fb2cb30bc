import fc from "fast-check";
import { parse, validate, type GraphQLSchema } from "graphql";
import { BOUNDS, VOLUME } from "./bounds";
import {
  brokenOperations,
  fanOutOperations,
  operations,
  shapedOperations,
  withVariables,
  type Operation,
} from "./documents";
import { errorCodes, send, type Answer, type Outgoing } from "./http";
import type { Record } from "./record";
import type { Stack } from "./stack";

/**
 * GraphQL over HTTP under generated input: every answer under 500, within BOUNDS.answerMs, never INTERNAL_ERROR;
 * client mistakes (broken documents, batches, cut JSON) 4xx; bodies past BOUNDS.bodyBytes 413.
 */

/** A request's timeout: well past the bound, so that a slow answer is measured rather than cut. */
const CLIENT_TIMEOUT_MS = 10_000;

export interface Expectation {
  /** The status the answer must have (any under 500 when absent). */
  status?: number | ((status: number) => boolean);
  maxMs?: number;
  /**
   * A streamed body may meet a closed connection instead of the refusal: a server that refuses it and closes while
   * the client still sends makes the client's kernel reset the connection, and the answer can be lost with it. Taken
   * as a refusal when the API is still up (the memory check below tells whether the body was buffered).
   */
  resetIsRefusal?: boolean;
}

export interface Context {
  stack: Stack;
  record: Record;
  schema: GraphQLSchema;
  seed: number;
}

/**
 * Sends one request and checks its answer. Answers whether the category should stop: the API was found down and
 * started again (whatever else is in flight then is not judged).
 */
export async function judged(
  ctx: Context,
  category: string,
  outgoing: Omit<Outgoing, "timeoutMs">,
  expect: Expectation = {},
): Promise<boolean> {
  const { stack, record } = ctx;
  const generation = stack.restarts;
  const answer: Answer = await send({ ...outgoing, timeoutMs: CLIENT_TIMEOUT_MS });
  if (stack.restarts !== generation) return true;
  const label = `${outgoing.method} ${outgoing.url.replace(stack.url, "")}${outgoing.body !== undefined ? ` ${outgoing.body}` : ""}`;
  const door = "graphql-http";
  const violation = (kind: string, what: string) => record.violation({ door, category, kind, what, input: label });
  record.request(door, answer.ms, label);
  record.outcome(
    door,
    answer.status === -1 ? "no answer" : answer.status === 0 ? "connection failed" : String(answer.status),
  );
  if (answer.status === 0 && expect.resetIsRefusal && !(await stack.restartIfDown())) {
    console.log(
      `    ${label.slice(0, 60)}: the connection was closed after ${answer.sentBytes} bytes, without an answer`,
    );
    return false;
  }
  if (answer.status <= 0) {
    violation(
      answer.status === -1 ? "no answer" : "connection failed",
      answer.status === -1 ? `no answer within ${CLIENT_TIMEOUT_MS} ms` : "the connection failed before an answer",
    );
    return stack.restartIfDown();
  }
  const maxMs = expect.maxMs ?? BOUNDS.answerMs;
  if (answer.ms > maxMs)
    violation("slow", `answered ${answer.status} after ${Math.round(answer.ms)} ms, above ${maxMs} ms`);
  if (answer.status >= 500)
    violation(`server error ${answer.status}`, `answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  const codes = errorCodes(answer.body);
  if (codes.includes("INTERNAL_ERROR")) violation("INTERNAL_ERROR", `answered ${answer.status} with INTERNAL_ERROR`);
  const expected = expect.status;
  if (expected !== undefined && answer.status < 500) {
    const fits = typeof expected === "number" ? answer.status === expected : expected(answer.status);
    if (!fits)
      violation(
        `status ${answer.status}`,
        `answered ${answer.status}, expected ${typeof expected === "number" ? expected : "another status"}: ${answer.body.slice(0, 160)}`,
      );
  }
  return false;
}

/** Runs `inputs` through `each`, a few at a time, until done or one of them stops the category. */
export async function pool<T>(inputs: T[], concurrency: number, each: (input: T) => Promise<boolean>): Promise<void> {
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < inputs.length) {
      const input = inputs[next++];
      if (await each(input)) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The operation as a POST or a GET (GET only takes queries), with or without the data key. */
function outgoingOf(
  ctx: Context,
  op: Operation,
  how: { get: boolean; key: KeyKind; path: string },
): Omit<Outgoing, "timeoutMs"> {
  const key = how.key === "full" ? ctx.stack.key : how.key === "narrow" ? ctx.stack.narrowKey : undefined;
  const auth: { [name: string]: string } = key ? { authorization: `Bearer ${key}` } : {};
  const base = `${ctx.stack.url}${how.path}`;
  if (how.get) {
    const params = new URLSearchParams();
    params.set("query", typeof op.query === "string" ? op.query : JSON.stringify(op.query));
    if (op.variables !== undefined) params.set("variables", JSON.stringify(op.variables));
    if (typeof op.operationName === "string") params.set("operationName", op.operationName);
    return {
      method: "GET",
      url: `${base}?${params}`,
      headers: { accept: "application/graphql-response+json", ...auth },
    };
  }
  return {
    method: "POST",
    url: base,
    headers: {
      "content-type": "application/json",
      accept: "application/graphql-response+json, application/json",
      ...auth,
    },
    body: JSON.stringify(op),
  };
}

/**
 * What the answer to a generated operation must be: graphql-js' own parse and validation against the served schema
 * is the oracle, so a document they refuse must be answered 4xx (never 200 with errors, never 5xx).
 */
function expectationFor(schema: GraphQLSchema, op: Operation): Expectation {
  const clientMistake = { status: (s: number) => s >= 400 && s < 500 };
  if (typeof op.query !== "string") return clientMistake;
  // Documents the generators make large on purpose are judged by the server's bounds, not re-parsed here.
  if (op.query.length > 20_000) return { status: (s: number) => s < 500 };
  try {
    if (validate(schema, parse(op.query)).length > 0) return clientMistake;
  } catch {
    return clientMistake;
  }
  return { status: (s: number) => s < 500 };
}

/** No key (Public tier), a key with the default scopes, or one with nodes:read only. */
type KeyKind = "none" | "full" | "narrow";

const how = fc.record({
  get: fc.boolean(),
  key: fc.constantFrom<KeyKind>("none", "full", "narrow"),
  path: fc.constantFrom("/graphql", "/v1/graphql"),
});

/** Every generated operation selects a root field that needs a scope, so a nodes:read key is always refused. */
function expectationWith(schema: GraphQLSchema, op: Operation, key: KeyKind): Expectation {
  return key === "narrow" ? { status: (s: number) => s >= 400 && s < 500 } : expectationFor(schema, op);
}

function sample<T>(arbitrary: fc.Arbitrary<T>, ctx: Context, salt: number, numRuns: number): T[] {
  return fc.sample(arbitrary, { seed: ctx.seed + salt, numRuns });
}

/**
 * Runs one category of input under its name; at its end the API must still answer /health (a document that blocks
 * it after its own answer went out is caught here, and the API started again for the next category).
 */
export async function runCategory(ctx: Context, name: string, run: () => Promise<void>): Promise<void> {
  ctx.stack.category = name;
  const started = Date.now();
  await run();
  await ctx.stack.restartIfDown();
  console.log(`  ${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function category(ctx: Context, name: string, run: () => Promise<void>): Promise<void> {
  return runCategory(ctx, `graphql-http / ${name}`, run);
}

export async function attackGraphqlHttp(ctx: Context): Promise<void> {
  const vaults = ctx.stack.vaults;
  const notServerError = { status: (s: number) => s < 500 };
  const clientMistake = { status: (s: number) => s >= 400 && s < 500 };

  await category(ctx, "valid queries", async () => {
    const inputs = sample(
      fc.tuple(fc.oneof(operations(ctx.schema, "query", vaults), withVariables(vaults)), how),
      ctx,
      1,
      VOLUME.validDocuments,
    );
    await pool(inputs, VOLUME.concurrency, ([op, h]) =>
      judged(ctx, "valid queries", outgoingOf(ctx, op, h), expectationWith(ctx.schema, op, h.key)),
    );
  });

  await category(ctx, "broken queries", async () => {
    const inputs = sample(fc.tuple(brokenOperations(ctx.schema, vaults), how), ctx, 2, VOLUME.invalidDocuments);
    await pool(inputs, VOLUME.concurrency, ([op, h]) =>
      judged(ctx, "broken queries", outgoingOf(ctx, op, h), expectationWith(ctx.schema, op, h.key)),
    );
  });

  await category(ctx, "cut and foreign bodies", async () => {
    const bodies = sample(
      fc.oneof(
        fc.string({ maxLength: 300 }),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        operations(ctx.schema, "query", vaults).chain((op) =>
          fc.nat().map((n) => JSON.stringify(op).slice(0, n % 200)),
        ),
      ),
      ctx,
      3,
      60,
    );
    const types = [
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/graphql",
      "multipart/form-data; boundary=x",
    ];
    await pool(bodies, VOLUME.concurrency, (body) =>
      judged(
        ctx,
        "cut and foreign bodies",
        {
          method: "POST",
          url: `${ctx.stack.url}/graphql`,
          headers: { "content-type": types[body.length % types.length] },
          body,
        },
        notServerError,
      ),
    );
    // A browser's visit, GET without a query, gets GraphiQL; a GraphQL client's GET without a query is its mistake.
    await judged(
      ctx,
      "cut and foreign bodies",
      { method: "GET", url: `${ctx.stack.url}/graphql`, headers: { accept: "text/html" } },
      { status: (s: number) => s === 200 },
    );
    await judged(
      ctx,
      "cut and foreign bodies",
      { method: "GET", url: `${ctx.stack.url}/graphql`, headers: { accept: "application/graphql-response+json" } },
      clientMistake,
    );
  });

  await category(ctx, "batches", async () => {
    const inputs = sample(
      fc.array(operations(ctx.schema, "query", vaults), { minLength: 0, maxLength: 50 }),
      ctx,
      4,
      VOLUME.batches,
    );
    await pool(inputs, VOLUME.concurrency, (ops) =>
      judged(
        ctx,
        "batches",
        {
          method: "POST",
          url: `${ctx.stack.url}/graphql`,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(ops),
        },
        clientMistake,
      ),
    );
  });

  await category(ctx, "deep, wide and aliased documents", async () => {
    const inputs = sample(fc.tuple(shapedOperations(vaults), fc.boolean()), ctx, 5, VOLUME.shapedDocuments);
    await pool(inputs, VOLUME.concurrency, ([{ shape, op }, keyed]) =>
      judged(
        ctx,
        `shape: ${shape}`,
        outgoingOf(ctx, op, { get: false, key: keyed ? "full" : "none", path: "/graphql" }),
        notServerError,
      ),
    );
  });

  await category(ctx, "fragment fan-out", async () => {
    // Sent one at a time and smallest first, so that the first one that blocks the server is the one reported.
    const inputs = sample(fc.tuple(fanOutOperations(), fc.boolean()), ctx, 6, VOLUME.fanOutDocuments).sort(
      ([a], [b]) => String(a.op.query).length - String(b.op.query).length,
    );
    await pool(inputs, 1, ([{ op }, get]) =>
      judged(ctx, "fragment fan-out", outgoingOf(ctx, op, { get, key: "none", path: "/graphql" }), notServerError),
    );
  });

  await category(ctx, "bodies past the limit", async () => {
    const padded = (bytes: number) => {
      const head = '{"query":"{ __typename }","extensions":{"pad":"';
      const tail = '"}}';
      return head + "a".repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
    };
    const json = { "content-type": "application/json" };
    const c = "bodies past the limit";
    // GraphQL refuses with 413; the REST routes with their documented 400 INVALID_BODY.
    const refusal = (path: string): Expectation =>
      path.includes("graphql") ? { status: 413 } : { status: (s: number) => s === 413 || s === 400 };
    await judged(
      ctx,
      c,
      { method: "POST", url: `${ctx.stack.url}/graphql`, headers: json, body: padded(BOUNDS.bodyBytes - 256) },
      { status: (s) => s !== 413 && s < 500 },
    );
    for (const path of ["/graphql", "/v1/graphql", "/v1/vaults/batch"]) {
      await judged(
        ctx,
        c,
        { method: "POST", url: `${ctx.stack.url}${path}`, headers: json, body: padded(BOUNDS.bodyBytes + 1) },
        refusal(path),
      );
      await judged(
        ctx,
        c,
        { method: "POST", url: `${ctx.stack.url}${path}`, headers: json, body: padded(1024 * 1024) },
        refusal(path),
      );
    }
    const chunk = Buffer.alloc(1024 * 1024, "a");
    const started = '{"query":"{ __typename }","extensions":{"pad":"';
    for (const path of ["/graphql", "/v1/vaults/batch"]) {
      // A chunked body with no length: refused once past the limit, before the rest is read.
      const rssBefore = ctx.stack.rssNowMb();
      const stop = await judged(
        ctx,
        c,
        {
          method: "POST",
          url: `${ctx.stack.url}${path}`,
          headers: json,
          stream: { chunk: Buffer.concat([Buffer.from(started), chunk]), chunks: VOLUME.hugeBodyMb },
        },
        { ...refusal(path), maxMs: BOUNDS.hugeBodyAnswerMs, resetIsRefusal: true },
      );
      if (stop) return;
      const grew = ctx.stack.rssNowMb() - rssBefore;
      console.log(`    chunked ${VOLUME.hugeBodyMb} MiB to ${path}: API RSS grew ${Math.round(grew)} MB`);
      if (grew > BOUNDS.hugeBodyRssGrowthMb) {
        ctx.record.violation({
          door: "graphql-http",
          category: c,
          kind: "body buffered",
          what: `a chunked body of ${VOLUME.hugeBodyMb} MiB to ${path} grew the API's RSS by ${Math.round(grew)} MB (bound ${BOUNDS.hugeBodyRssGrowthMb} MB)`,
        });
      }
    }
    await judged(
      ctx,
      c,
      { method: "GET", url: `${ctx.stack.url}/graphql?query=${"%7B".repeat(40_000)}` },
      { status: (s) => s >= 400 && s < 500 },
    );
  });
}
