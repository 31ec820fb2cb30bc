import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { makeExecutableSchema } from "@graphql-tools/schema";
import { GraphQLError, parse, printSchema, validate, specifiedRules, type ExecutionArgs } from "graphql";
import { createHandler } from "graphql-http/lib/use/koa";
import { useServer } from "graphql-ws/use/ws";
import type { Middleware } from "koa";
import compose from "koa-compose";
import { WebSocketServer } from "ws";
import type { ChainAccess } from "../../chain";
import type { Indexer } from "../../indexer/indexer";
import type { Logger } from "../../logger";
import type { EventFeed } from "../../readmodel/feed";
import type { DataQueries } from "../../readmodel/queries";
import type { DataAccess } from "../data";
import { DataApiError } from "../data/errors";
import type { UpgradeDoor } from "../upgrades";
import { errorFormatter } from "./errors";
import { limitRules } from "./limits";
import { resolvers, type GraphQLContext } from "./resolvers";
import { typeDefs } from "./schema";

/**
 * The data API's GraphQL door: queries over HTTP (graphql-http, GraphQL over HTTP: POST, or GET for queries) and
 * subscriptions over WebSocket (graphql-ws protocol) on the same paths, /graphql and /v1/graphql, and the schema as
 * SDL at /graphql/schema.graphql. The access layer, when mounted, runs in front of the HTTP handler: one operation
 * is one request against the caller's tier (its errors become GraphQL errors with REST's status).
 */

export const GRAPHQL_PATHS = ["/graphql", "/v1/graphql"] as const;
/** Heartbeat of the subscription sockets: a ping every this, and a socket that missed the last pong is closed. */
export const SUBSCRIPTION_KEEPALIVE_MS = 12_000;

export interface GraphQLDoorOptions {
  queries: DataQueries;
  chain: ChainAccess;
  indexer: Indexer | null;
  feed: EventFeed;
  logger: Logger;
  access?: DataAccess;
}

export interface GraphQLDoor extends UpgradeDoor {
  middleware: Middleware;
  /** The schema as SDL (the published contract). */
  sdl: string;
  /** Takes the upgrade requests to the GraphQL paths (subscriptions); see doors/upgrades.ts. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

const ACCESS_CODES: Record<string, string> = { UNAUTHORIZED: "UNAUTHENTICATED", RATE_LIMITED: "RATE_LIMITED" };

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

  const handler = createHandler({
    schema,
    context: () => context() as never,
    validationRules: (_req, args, rules) => [...rules, ...limitRules(args.variableValues)],
    formatError,
  });

  /** Access-layer refusals (no key, bad key, rate limit) in the GraphQL error shape, with REST's status. */
  const accessErrors: Middleware = async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof DataApiError)) throw error;
      ctx.status = error.status;
      if (error.retryAfterSeconds !== undefined) ctx.set("Retry-After", String(error.retryAfterSeconds));
      ctx.type = "application/graphql-response+json";
      ctx.body = {
        errors: [{ message: error.message, extensions: { code: ACCESS_CODES[error.code] ?? error.code } }],
      };
    }
  };
  const serve = compose([accessErrors, ...(options.access ? [options.access.middleware] : []), handler]);
  const middleware: Middleware = async (ctx, next) => {
    const path = ctx.path.replace(/\/$/, "");
    if (GRAPHQL_PATHS.some((p) => `${p}/schema.graphql` === path) && ctx.method === "GET") {
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = sdl;
      return;
    }
    if (!(GRAPHQL_PATHS as readonly string[]).includes(path)) return next();
    await serve(ctx, next);
  };

  const sockets = new WebSocketServer({ noServer: true });
  const subscriptions = useServer<Record<string, unknown>>(
    {
      schema,
      context: () => context() as never,
      onSubscribe: (_ctx, _id, payload) => {
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [formatError(error as GraphQLError)];
        }
        const errors = validate(schema, document, [...specifiedRules, ...limitRules(payload.variables)]);
        if (errors.length > 0) return errors.map(formatError);
        const args: ExecutionArgs = {
          schema,
          document,
          variableValues: payload.variables,
          operationName: payload.operationName,
          contextValue: context(),
        };
        return args;
      },
      // Each message says which log entry it came from, so that a client can resume with afterSeq.
      onNext: (_ctx, _id, _payload, args, result) => {
        const seq = (args.contextValue as GraphQLContext).seq;
        const errors = result.errors?.map((error) => formatError(error).toJSON());
        return { ...result, errors, extensions: { ...result.extensions, seq } };
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error).toJSON()),
    },
    sockets,
    SUBSCRIPTION_KEEPALIVE_MS,
  );

  const handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname.replace(/\/$/, "");
    if (!(GRAPHQL_PATHS as readonly string[]).includes(path)) return false;
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
    return true;
  };

  let closing: Promise<void> | undefined;
  const close = () => (closing ??= Promise.resolve(subscriptions.dispose()));

  return {
    middleware,
    sdl,
    handleUpgrade,
    close,
  };
}
