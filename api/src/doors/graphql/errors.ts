import { GraphQLError } from "graphql";
import { UNAVAILABLE_RETRY_AFTER_SECONDS, UnavailableError } from "../../errors";
import type { Logger } from "../../logger";

/**
 * The GraphQL door's errors, in the spec's shape: `{ errors: [{ message, locations, path, extensions: { code } }] }`.
 *
 * Errors before execution answer 4xx without data (whatever the Accept header; graphql-http would answer 200 to
 * application/json), and are never logged as errors: they are the client's.
 *
 * | code                      | when                                                                     | HTTP |
 * |---------------------------|--------------------------------------------------------------------------|------|
 * | BAD_REQUEST               | not a GraphQL request: no query, a batch (a JSON array), cut JSON        | 400  |
 * | UNSUPPORTED_MEDIA_TYPE    | a POST body that is not application/json                                 | 415  |
 * | METHOD_NOT_ALLOWED, NOT_ACCEPTABLE | a method other than GET and POST; an Accept header it cannot answer | 405, 406 |
 * | PAYLOAD_TOO_LARGE         | a body above the body limit (refused while it arrives)                   | 413  |
 * | QUERY_TOO_LARGE           | a query text above MAX_QUERY_CHARS, or above MAX_SELECTIONS once expanded | 400  |
 * | TOO_MANY_TOKENS           | a query text of more than MAX_TOKENS tokens                              | 400  |
 * | GRAPHQL_PARSE_FAILED      | the query is not GraphQL                                                 | 400  |
 * | GRAPHQL_VALIDATION_FAILED | the query does not fit the schema (unknown field, wrong argument)        | 400  |
 * | OPERATION_NOT_FOUND       | no operation of that operationName (or several and none named)          | 400  |
 * | QUERY_TOO_DEEP, TOO_MANY_ALIASES, TOO_MANY_DIRECTIVES, QUERY_TOO_COMPLEX | over a bound of limits.ts | 400  |
 * | BAD_USER_INPUT            | a BigInt or DateTime literal or variable that does not parse             | 400  |
 * | INSUFFICIENT_SCOPE        | the data key lacks the scope of a root field (fieldScopes.ts)             | 401  |
 * | INVALID_ADDRESS           | an address argument that is not an Ethereum address (field named)        | 200  |
 * | INVALID_LIMIT, INVALID_OFFSET, TOO_MANY_POINTS | out-of-range paging or history arguments            | 200  |
 * | NOT_FOUND                 | vault, vaultHistory: no such vault                                       | 200  |
 * | UNAUTHENTICATED, RATE_LIMITED | the access layer refused the request (REST's 401 and 429)            | 401, 429 |
 * | UNAVAILABLE               | the store or the rate limiter's Redis is away (`retryAfter`; Retry-After) | 503      |
 * | INTERNAL_ERROR            | anything unexpected (logged; the message says nothing more)              | 200, 500 |
 *
 * Errors raised while executing a field follow GraphQL over HTTP: status 200, the field is null and the error names
 * its path; except UNAVAILABLE (the store or a rate limiter away), which fails the whole request: 503, no data.
 */

export type GraphQLErrorCode =
  | "BAD_REQUEST"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "METHOD_NOT_ALLOWED"
  | "NOT_ACCEPTABLE"
  | "PAYLOAD_TOO_LARGE"
  | "QUERY_TOO_LARGE"
  | "TOO_MANY_TOKENS"
  | "GRAPHQL_PARSE_FAILED"
  | "GRAPHQL_VALIDATION_FAILED"
  | "QUERY_TOO_DEEP"
  | "OPERATION_NOT_FOUND"
  | "TOO_MANY_ALIASES"
  | "TOO_MANY_DIRECTIVES"
  | "QUERY_TOO_COMPLEX"
  | "BAD_USER_INPUT"
  | "INSUFFICIENT_SCOPE"
  | "INVALID_ADDRESS"
  | "INVALID_LIMIT"
  | "INVALID_OFFSET"
  | "TOO_MANY_POINTS"
  | "NOT_FOUND"
  | "UNAUTHENTICATED"
  | "RATE_LIMITED"
  | "UNAVAILABLE"
  | "INTERNAL_ERROR";

/** An error a resolver or rule raises on purpose, with its code and details (e.g. the argument at fault). */
export function apiError(code: GraphQLErrorCode, message: string, details: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...details } });
}

/**
 * Seconds to come back after, when the store or a rate limiter being away is among `errors` (the request then failed
 * as a whole: 503 with Retry-After), else undefined.
 */
export function unavailableRetryAfter(errors: readonly GraphQLError[] | undefined): number | undefined {
  for (const error of errors ?? []) {
    const cause = error.originalError;
    if (cause instanceof UnavailableError) return cause.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS;
  }
  return undefined;
}

/** The whole request refused because a dependency is away: its one error, in the door's shape. */
export function unavailableError(error: UnavailableError): GraphQLError {
  return apiError("UNAVAILABLE", error.message, {
    retryAfter: error.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS,
  });
}

/**
 * Gives every error a code: ours keep theirs; graphql-js's own parse and validation errors get
 * GRAPHQL_PARSE_FAILED or GRAPHQL_VALIDATION_FAILED; anything thrown by code that did not mean to (a store or
 * chain failure) becomes INTERNAL_ERROR with a generic message, and is logged.
 */
export function errorFormatter(logger: Logger) {
  return (error: Readonly<GraphQLError | Error>): GraphQLError => {
    if (!(error instanceof GraphQLError)) return internal(logger, error);
    const original = error.originalError;
    if (original && !(original instanceof GraphQLError)) {
      // graphql-js wraps scalar parse failures of variables in a GraphQLError without an original GraphQLError.
      if (original instanceof TypeError || original.name === "SyntaxError" || original.name === "RangeError") {
        return withCode(error, "BAD_USER_INPUT");
      }
      // The store or a rate limiter away: the client retries (extensions.retryAfter seconds), nothing is logged.
      if (original instanceof UnavailableError) {
        return withCode(error, "UNAVAILABLE", { retryAfter: original.retryAfterSeconds ?? null });
      }
      return internal(logger, original, error);
    }
    const code = (original?.extensions?.code ?? error.extensions?.code) as string | undefined;
    if (code) return withCode(error, code, original?.extensions);
    if (error.message.startsWith("Syntax Error")) return withCode(error, "GRAPHQL_PARSE_FAILED");
    return withCode(error, "GRAPHQL_VALIDATION_FAILED");
  };
}

function withCode(
  error: GraphQLError,
  code: string,
  extensions: Readonly<Record<string, unknown>> | undefined = error.extensions,
): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...extensions, code },
  });
}

function internal(logger: Logger, cause: Readonly<Error>, error?: GraphQLError): GraphQLError {
  logger.error({ err: cause, path: error?.path }, "GraphQL: unexpected error");
  return new GraphQLError("internal error", {
    nodes: error?.nodes,
    source: error?.source,
    positions: error?.positions,
    path: error?.path,
    extensions: { code: "INTERNAL_ERROR" },
  });
}
