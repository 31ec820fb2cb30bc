import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { makeExecutableSchema } from "@graphql-tools/schema";
import { GraphQLError, printSchema, type ExecutionArgs, type ExecutionResult } from "graphql";
import { createHandler, type Request as GraphQLRequest, type Response as GraphQLResponse } from "graphql-http";
import type { ServerOptions } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import type { Context, Middleware } from "koa";
import compose from "koa-compose";
import { WebSocketServer, type WebSocket } from "ws";
import type { ChainAccess } from "../../chain";
import type { Indexer } from "../../indexer/indexer";
import type { Logger } from "../../logger";
import type { EventFeed } from "../../readmodel/feed";
import type { DataQueries } from "../../readmodel/queries";
import type { DataAccess } from "../data/access";
import type { DataKeyRecord } from "../data/access";
import { isCredentialRefusal } from "../data/errors";
import { refusalMessage } from "../data/access/limits";
import type { DataCaller } from "../data/access/middleware";
import { OwnerCaps, ownerOf as capOwnerOf, SocketCaps, type Holder } from "../sockets/caps";
import { refuseUpgrade, type UpgradeDoor } from "../sockets/upgrades";
import { DocumentCache } from "./documentCache";
import { graphiqlIde, wantsIde } from "./ide";
import { UNAVAILABLE_RETRY_AFTER_SECONDS, UnavailableError } from "../../errors";
import { apiError, errorFormatter, unavailableError, unavailableRetryAfter } from "./errors";
import { isRefusal, prepareOperation, type Refusal } from "./operations";
import { readRequestParams, RequestRefusal } from "./requests";
import { minBlockDeps, minBlockErrors, minBlockRefusal } from "./minBlock";
import { resolvers, type GraphQLContext } from "./resolvers";
import { typeDefs } from "./schema";
import { DEFAULT_SUBSCRIPTION_CAPS, presentedKey, type SubscriptionCaps } from "./socketLimits";
import { DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS, MessageGate, type SubscriptionMessageLimits } from "./messageGate";

/**
 * The data API's GraphQL door: queries over HTTP (graphql-http, GraphQL over HTTP: POST, or GET for queries) and
 * subscriptions over WebSocket (graphql-ws protocol) on the same paths, /graphql and /v1/graphql, and the schema as
 * SDL at /graphql/schema.graphql. The access layer, when mounted, runs in front of the HTTP handler: one operation
 * is one request against the caller's tier (its errors become GraphQL errors with REST's status). On the sockets,
 * a data key given when the connection is initialised sets the tier, each subscription opened is one request
 * against it, and socketLimits.ts caps the sockets and subscriptions of each IP and key. A browser that opens either
 * path gets GraphiQL (ide.ts).
 */

export const GRAPHQL_PATHS = ["/graphql", "/v1/graphql"] as const;
/** Heartbeat of the subscription sockets: a ping every this, and a socket that missed the last pong is closed. */
export const SUBSCRIPTION_KEEPALIVE_MS = 12_000;
/** How often the key of every keyed socket is checked again: a revoked or expired key's sockets close within this. */
export const KEY_CHECK_MS = 10_000;
/** Bytes a socket may leave unsent (a client that does not read): past it the socket is closed with 1008. */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** The body limit of every door (config.bodyLimitBytes), and the largest message a subscription socket takes. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export interface GraphQLDoorOptions {
  queries: DataQueries;
  chain: ChainAccess;
  indexer: Indexer | null;
  feed: EventFeed;
  logger: Logger;
  access?: DataAccess;
  /** The client IP of an upgrade request, as the HTTP doors see it (sockets/clientIp.ts). */
  clientIp(request: IncomingMessage): string;
  /** Default DEFAULT_SUBSCRIPTION_CAPS. */
  subscriptionCaps?: SubscriptionCaps;
  /** Message rate and backlog of one subscription socket; default DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS. */
  subscriptionMessages?: SubscriptionMessageLimits;
  /** Largest request body and socket message; default DEFAULT_BODY_LIMIT_BYTES. */
  bodyLimitBytes?: number;
  /** Default KEY_CHECK_MS. */
  keyCheckMs?: number;
}

/**
 * Close codes of refused graphql-ws connections (the protocol's 4401, also for a key revoked or expired while the
 * socket is open; 4429 for a cap, with the code as reason; 1008 for a client that does not read what it is sent).
 */
export const SOCKET_CLOSE = { UNAUTHENTICATED: 4401, RATE_LIMITED: 4429, SLOW_CONSUMER: 1008 } as const;

/** Who a socket belongs to and what it holds open. */
interface SocketState {
  socket: WebSocket;
  ip: string;
  /** What the socket is counted against (its IP, and its key once it presents one). */
  holder: Holder;
  key?: DataKeyRecord;
  /** The credential the key was presented with, to check it again. */
  token?: string;
  subscriptions: Set<string>;
  /** Counts every message before graphql-ws sees it (messageGate.ts). */
  gate?: MessageGate;
}

export interface GraphQLDoor extends UpgradeDoor {
  middleware: Middleware;
  /** The schema as SDL (the published contract). */
  sdl: string;
  /** Takes the upgrade requests to the GraphQL paths (subscriptions); see doors/sockets/upgrades.ts. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Subscription sockets open on this instance. */
  readonly connections: number;
  close(): Promise<void>;
}

type SubscribeHook = NonNullable<ServerOptions<Record<string, unknown>, { socket: WebSocket }>["onSubscribe"]>;

const ACCESS_CODES: Record<string, string> = { UNAUTHORIZED: "UNAUTHENTICATED", RATE_LIMITED: "RATE_LIMITED" };

/** graphql-http answers an Accept header it cannot serve with a bare 406: the same with a code. */
function bodyOfBareRefusal(status: number): string | null {
  if (status !== 406) return null;
  const message = "accept application/graphql-response+json or application/json";
  return JSON.stringify({ errors: [{ message, extensions: { code: "NOT_ACCEPTABLE" } }] });
}

export function graphqlDoor(options: GraphQLDoorOptions): GraphQLDoor {
  const schema = makeExecutableSchema({ typeDefs, resolvers: resolvers as never });
  const sdl = printSchema(schema);
  const formatError = errorFormatter(options.logger);
  const context = (): GraphQLContext => ({
    queries: options.queries,
    chain: options.chain,
    indexer: options.indexer,
    feed: options.feed,
  });

  const freshness = minBlockDeps(options.queries, options.chain);
  const documents = new DocumentCache();
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const answer = (refusal: Refusal, request: GraphQLRequest<IncomingMessage, { ctx: Context }>): GraphQLResponse => {
    const accept = request.raw.headers.accept ?? "";
    const type = accept.includes("application/graphql-response+json")
      ? "application/graphql-response+json; charset=utf-8"
      : "application/json; charset=utf-8";
    const body = JSON.stringify({ errors: refusal.errors.map((error) => formatError(error).toJSON()) });
    return [body, { status: refusal.status, statusText: "", headers: { "content-type": type, ...refusal.headers } }];
  };
  const handler = createHandler<IncomingMessage, { ctx: Context }>({
    schema,
    parseRequestParams: async (request) => {
      try {
        return await readRequestParams({ method: request.method, url: request.url, raw: request.raw }, bodyLimitBytes);
      } catch (error) {
        if (!(error instanceof RequestRefusal)) throw error;
        return answer({ status: error.status, errors: [error.error], headers: error.headers }, request);
      }
    },
    onSubscribe: async (request, params) => {
      const key = (request.context.ctx.state.dataCaller as DataCaller | undefined)?.key;
      const prepared = prepareOperation(schema, documents, params, key);
      if (isRefusal(prepared)) return answer(prepared, request);
      if (prepared.kind === "subscription") {
        const message = "subscriptions are served over WebSocket (graphql-ws) on this path";
        return answer({ status: 400, errors: [apiError("BAD_REQUEST", message)] }, request);
      }
      // Read-your-writes (minBlock.ts): runs once the block asked for is indexed, or answers the refusal.
      const behind = await minBlockRefusal(freshness, request.headers, params.extensions);
      if (behind) return answer(behind, request);
      return { ...prepared.args, contextValue: context() as never };
    },
    // The store or a rate limiter away while the operation ran: the request failed as a whole (GraphQL over HTTP
    // allows a non-200 then, without data), 503 with Retry-After as on every other door.
    onOperation: (request, _args, result) => {
      const errors = (result as ExecutionResult).errors;
      const retryAfter = unavailableRetryAfter(errors);
      if (retryAfter === undefined || errors === undefined) return undefined;
      return answer({ status: 503, errors, headers: { "retry-after": String(retryAfter) } }, request);
    },
    formatError,
  });
  /** A dependency that is away before the operation ran (a key or minBlock lookup in the store): 503, never 500. */
  const answerUnavailable = (ctx: Context, error: UnavailableError) => {
    const refusal = unavailableError(error);
    ctx.status = 503;
    ctx.set("Retry-After", String(refusal.extensions.retryAfter));
    ctx.body = { errors: [refusal.toJSON()] };
    ctx.type = "application/graphql-response+json; charset=utf-8";
  };
  const handle: Middleware = async (ctx) => {
    let response: GraphQLResponse;
    try {
      response = await handler({
        url: ctx.url,
        method: ctx.method,
        headers: ctx.headers,
        body: null,
        raw: ctx.req,
        context: { ctx },
      });
    } catch (error) {
      if (error instanceof UnavailableError) return answerUnavailable(ctx, error);
      // Not a client's mistake: logged as internal by the formatter, answered without detail.
      ctx.status = 500;
      ctx.body = { errors: [formatError(error as Error).toJSON()] };
      return;
    }
    const [body, init] = response;
    ctx.body = body ?? bodyOfBareRefusal(init.status);
    ctx.status = init.status;
    for (const [name, value] of Object.entries(init.headers ?? {})) ctx.set(name, String(value));
  };

  /** Access-layer refusals (no key, bad key, rate limit) in the GraphQL error shape, with REST's status. */
  const accessErrors: Middleware = async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof UnavailableError) return answerUnavailable(ctx, error);
      throw error;
    }
    // The access layer answers its refusals itself, in REST's shape `{ error: { code, message, details } }`: the
    // same refusal (status and headers kept) in GraphQL's.
    const refusal = (ctx.body as { error?: { code?: string; message?: string; details?: object } } | null)?.error;
    if (ctx.status < 400 || typeof refusal?.code !== "string") return;
    ctx.body = {
      errors: [
        {
          message: refusal.message,
          extensions: { ...refusal.details, code: ACCESS_CODES[refusal.code] ?? refusal.code },
        },
      ],
    };
    // After the body: Koa types an object body as JSON.
    ctx.type = "application/graphql-response+json; charset=utf-8";
  };
  const serve = compose([accessErrors, ...(options.access ? [options.access.middleware] : []), handle]);
  const ide = graphiqlIde();
  const middleware: Middleware = async (ctx, next) => {
    const path = ctx.path.replace(/\/$/, "");
    if (GRAPHQL_PATHS.some((p) => `${p}/schema.graphql` === path) && ctx.method === "GET") {
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = sdl;
      return;
    }
    if (ide.asset(ctx, ctx.path)) return;
    if (!(GRAPHQL_PATHS as readonly string[]).includes(path)) return next();
    // A browser's visit gets GraphiQL; GraphQL clients (POST, or GET with a query) the API.
    if (wantsIde(ctx)) return ide.page(ctx);
    await serve(ctx, next);
  };

  const caps = options.subscriptionCaps ?? DEFAULT_SUBSCRIPTION_CAPS;
  const messageLimits = options.subscriptionMessages ?? DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS;
  const limiter = options.access?.limiter;
  const states = new WeakMap<WebSocket, SocketState>();
  const keyed = new Set<SocketState>();
  const connections = new SocketCaps(caps.connectionsPerIp, caps.connectionsPerKey);
  const openSubscriptions = new OwnerCaps(caps.subscriptionsPerIp, caps.subscriptionsPerKey);
  const ownerOf = (state: SocketState) => capOwnerOf(state.ip, state.key?.keyId);
  const stateOf = (ctx: { extra: { socket: WebSocket } }) => states.get(ctx.extra.socket) as SocketState;
  /** An operation's opening counts in its socket's backlog while it runs (messageGate.ts). */
  const whileOpening =
    (hook: SubscribeHook): SubscribeHook =>
    (ctx, id, payload) =>
      (stateOf(ctx).gate as MessageGate).opening(async () => hook(ctx, id, payload));
  const refuse = (socket: WebSocket, code: keyof typeof SOCKET_CLOSE, message: string) => {
    // A close reason is at most 123 bytes.
    let reason = `${code}: ${message}`;
    while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
    socket.close(SOCKET_CLOSE[code], reason);
    return false;
  };
  const release = (state: SocketState) => {
    for (const _ of state.subscriptions) openSubscriptions.release(ownerOf(state));
    state.subscriptions.clear();
    connections.close(state.holder);
    keyed.delete(state);
  };

  /**
   * The socket's key, looked up again (revoked and expired keys are refused by the key service); a key that no longer
   * holds closes the socket, which ends every stream it opened. Errors when refused.
   */
  const recheckKey = async (state: SocketState): Promise<GraphQLError[] | undefined> => {
    if (!state.key || !options.access || state.token === undefined) return undefined;
    try {
      state.key = await options.access.keys.authenticate(state.token);
      return undefined;
    } catch (error) {
      if (!isCredentialRefusal(error)) throw error;
      refuse(state.socket, "UNAUTHENTICATED", `the key was revoked or expired: ${error.message}`);
      return [apiError("UNAUTHENTICATED", error.message)];
    }
  };
  const keyCheck = setInterval(() => {
    for (const state of keyed) {
      recheckKey(state).catch((error: unknown) =>
        // The key store did not answer: the key is checked again at the next round.
        options.logger.warn({ err: error }, "GraphQL: subscription key check failed"),
      );
    }
  }, options.keyCheckMs ?? KEY_CHECK_MS);
  keyCheck.unref();

  /** The refusal of an operation past its owner's cap of open subscriptions. */
  const tooManyOperations = (state: SocketState): GraphQLError => {
    const cap = openSubscriptions.capOf(ownerOf(state));
    const per = state.key ? "API key" : "IP address";
    return apiError(
      "RATE_LIMITED",
      `at most ${cap} open subscriptions per ${per}: complete one before opening another`,
      {
        limit: cap,
      },
    );
  };

  /** Opening an operation, whose place is already taken: one request on its tier's rate limits. Errors when refused. */
  const admit = async (state: SocketState): Promise<GraphQLError[] | undefined> => {
    if (!limiter) return undefined;
    const tier = state.key?.tier ?? "public";
    const { kind, id } = ownerOf(state);
    try {
      const decision = await limiter.consume(tier, `${kind}:${id}`, { ip: state.ip, key: state.key });
      if (decision.allowed) return undefined;
      const { binding, retryAfterSeconds } = decision;
      return [
        apiError("RATE_LIMITED", refusalMessage(decision), {
          tier,
          window: binding.window,
          limit: binding.limit,
          reset: binding.reset,
          retryAfter: retryAfterSeconds,
        }),
      ];
    } catch (error) {
      if (error instanceof UnavailableError) {
        return [apiError("UNAVAILABLE", error.message, { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS })];
      }
      throw error;
    }
  };

  // A message past the body limit closes its socket (1009) before it is kept.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: bodyLimitBytes });
  const subscriptions = useServer<Record<string, unknown>, { socket: WebSocket }>(
    {
      schema,
      context: () => context() as never,
      // A key in the connection_init payload (or the upgrade's Authorization header) sets the socket's tier.
      onConnect: async (ctx) => {
        const state = stateOf(ctx);
        const token = presentedKey(ctx.connectionParams, (ctx.extra as { request: IncomingMessage }).request);
        if (token === undefined || !options.access) return true;
        let key: DataKeyRecord;
        try {
          key = await options.access.keys.authenticate(token);
        } catch (error) {
          if (isCredentialRefusal(error)) return refuse(ctx.extra.socket, "UNAUTHENTICATED", error.message);
          throw error;
        }
        // The socket may have closed while the key was looked up: then it was released without a key.
        if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false;
        const holder = connections.addKey(state.holder, key.keyId);
        if (!holder) {
          return refuse(ctx.extra.socket, "RATE_LIMITED", `at most ${caps.connectionsPerKey} connections per API key`);
        }
        state.holder = holder;
        state.key = key;
        state.token = token;
        keyed.add(state);
        return true;
      },
      onSubscribe: whileOpening(async (ctx, id, payload) => {
        const state = stateOf(ctx);
        // The place is taken before the rate limiter is asked, so that concurrent subscribes cannot pass one cap.
        const owner = ownerOf(state);
        if (!openSubscriptions.take(owner)) return [formatError(tooManyOperations(state))];
        const refused = await admit(state).catch((error: unknown) => [formatError(error as Error)]);
        const done = (errors: readonly GraphQLError[]) => (openSubscriptions.release(owner), errors.map(formatError));
        if (refused) return done(refused);
        const revoked = await recheckKey(state).catch((error: unknown) => [formatError(error as Error)]);
        if (revoked) return done(revoked);
        const prepared = prepareOperation(schema, documents, payload, state.key);
        if (isRefusal(prepared)) return done(prepared.errors);
        const behind = await minBlockErrors(freshness, payload.extensions);
        if (behind) return done(behind);
        // The socket may have closed while the limiter was asked: then its places were already given back.
        if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) {
          return done([apiError("UNAVAILABLE", "the socket closed before the operation started")]);
        }
        state.subscriptions.add(id);
        const args: ExecutionArgs = { ...prepared.args, contextValue: context() };
        return args;
      }),
      onComplete: (ctx, id) => {
        const state = stateOf(ctx);
        if (state.subscriptions.delete(id)) openSubscriptions.release(ownerOf(state));
      },
      // Each message says which log entry it came from, so that a client can resume with afterSeq.
      onNext: (ctx, _id, _payload, args, result) => {
        const socket = ctx.extra.socket;
        // A client that does not read would make the server hold every message for it.
        if (socket.bufferedAmount > MAX_UNSENT_BYTES) {
          // Nothing more is sent on a closing socket.
          refuse(socket, "SLOW_CONSUMER", "the client reads too slowly");
          return undefined;
        }
        const seq = (args.contextValue as GraphQLContext).seq;
        const errors = result.errors?.map((error) => formatError(error).toJSON());
        return seq === undefined
          ? { ...result, errors }
          : { ...result, errors, extensions: { ...result.extensions, seq } };
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error).toJSON()),
    },
    sockets,
    SUBSCRIPTION_KEEPALIVE_MS,
  );

  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname.replace(/\/$/, "");
    if (!(GRAPHQL_PATHS as readonly string[]).includes(path)) return false;
    const ip = options.clientIp(request);
    if (!connections.ipHasRoom(ip)) {
      const message = `at most ${caps.connectionsPerIp} subscription connections per IP address: close one first`;
      refuseUpgrade(socket, 429, {
        errors: [{ message, extensions: { code: "RATE_LIMITED", limit: caps.connectionsPerIp } }],
      });
      return true;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      const holder = connections.openForIp(ip);
      if (!holder) {
        // Others of the address opened while this handshake ran.
        ws.on("error", (error) => options.logger.debug({ err: error, ip }, "GraphQL: client socket error"));
        return void refuse(ws, "RATE_LIMITED", `at most ${caps.connectionsPerIp} connections per IP address`);
      }
      const state: SocketState = { socket: ws, ip, holder, subscriptions: new Set() };
      states.set(ws, state);
      ws.once("close", () => release(state));
      state.gate = MessageGate.open(ws, messageLimits, () => sockets.emit("connection", ws, request));
      // graphql-ws prints a socket's errors to the console as internal ones; they are the client's (an oversized or
      // malformed frame, which ws answers by closing the socket itself).
      ws.removeAllListeners("error");
      ws.on("error", (error) => options.logger.debug({ err: error, ip }, "GraphQL: client socket error"));
    });
    return true;
  };

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= (clearInterval(keyCheck), Promise.resolve(subscriptions.dispose())));

  return {
    middleware,
    sdl,
    handleUpgrade,
    get connections() {
      return sockets.clients.size;
    },
    close,
  };
}
