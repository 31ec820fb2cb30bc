/**
 * The stable error codes of both APIs, as a client matches on them. A code is never renamed or reused for another
 * meaning; a new one may be added. The service's doors map their errors to these (docs/api.md, docs/data-api.md).
 */

/** The live API (`/api/v1`): the code behind each `{ "error": message }` and its HTTP status. */
export const LIVE_ERROR_CODES = [
  /** The request is malformed or breaks a rule; the message names the field and the rule. */
  "VALIDATION_FAILED",
  /** The request body is larger than the body limit; `details.max` is the limit in bytes. */
  "PAYLOAD_TOO_LARGE",
  /** Missing or unknown credentials. */
  "UNAUTHENTICATED",
  /** Authenticated, but the caller's kind or tier lacks permission. */
  "FORBIDDEN",
  /** Unknown route or resource. */
  "NOT_FOUND",
  /** Known path, method not allowed. */
  "METHOD_NOT_ALLOWED",
  /** The resource already exists, or a key was reused with a different request. */
  "CONFLICT",
  /** A rate limit or cooldown; Retry-After says when to come back. */
  "RATE_LIMITED",
  /** The wallet cannot pay for gas (and value); the faucet helps. */
  "INSUFFICIENT_GAS",
  /** The contract rejected the transaction (at estimation or onchain); `details.revert` decodes why. */
  "TX_REVERTED",
  /** A later step of a multi-step operation was not sent because an earlier one failed. */
  "PREVIOUS_STEP_FAILED",
  /** The node refused a signed transaction for a reason none of the above covers. */
  "TX_REJECTED",
  /** Sent, not mined within the wait; a retry with the same Idempotency-Key picks it up. */
  "TX_PENDING",
  /** Another instance holds the wallet longer than this one waits. */
  "WALLET_BUSY",
  /** The chain's RPC endpoint did not answer. */
  "CHAIN_UNAVAILABLE",
  /** Something the operation needs is not configured (server wallets, deployment, API keys). */
  "NOT_CONFIGURED",
  /** A dependency other than the chain (store, rate limiter) is unavailable, or the faucet's window budget is spent. */
  "UNAVAILABLE",
  /** A bug: nothing about it is told to the client. */
  "INTERNAL",
] as const;
export type LiveErrorCode = (typeof LIVE_ERROR_CODES)[number];

/** The data API's REST door (`/v1`): `{ "error": { code, message, details } }`, each code with its HTTP status. */
export const DATA_ERROR_STATUS = {
  VAULT_NOT_FOUND: 404,
  INVALID_ADDRESS: 400,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  /** Bad input, one code per kind (the message names the field). */
  INVALID_PERIOD: 400,
  INVALID_INTERVAL: 400,
  TOO_MANY_POINTS: 400,
  INVALID_LIMIT: 400,
  INVALID_OFFSET: 400,
  INVALID_TRANSACTION_TYPE: 400,
  INVALID_MIN_BLOCK: 400,
  INVALID_STRATEGY_ID: 400,
  INVALID_BODY: 400,
  UNKNOWN_PARAMETER: 400,
  /** A body above the body limit (`details.max`), refused before the rest of it is kept. */
  PAYLOAD_TOO_LARGE: 413,
  STRATEGY_NOT_FOUND: 404,
  /** Unknown /v1 path, or a known one with another method. */
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** Keys (the access layer): missing, invalid, expired or revoked. */
  UNAUTHORIZED: 401,
  /** A valid key without the scope the route declares (RFC 6750's insufficient_scope: 401 too). */
  INSUFFICIENT_SCOPE: 401,
  /** The access routes: no such key among the caller's, an owner's key limit, a node id another holds. */
  KEY_NOT_FOUND: 404,
  KEY_LIMIT_REACHED: 409,
  NODE_ID_TAKEN: 409,
  /** The chain, the store or a setting the answer needs is unavailable. */
  SERVICE_UNAVAILABLE: 503,
  /** The rate limiter's store (Redis) is unavailable. */
  UNAVAILABLE: 503,
  /** The block a read asked for (minBlock) is not indexed yet: retry after Retry-After. */
  NOT_YET_INDEXED: 503,
  /** Signed writes: a deadline (the intent's, the permit's or the operator authorisation's) already passed. */
  SIGNATURE_EXPIRED: 400,
  /** Signed writes: a signature that is not the owner's for exactly this message (vault, amounts, receiver...). */
  INVALID_SIGNATURE: 400,
  /** Signed writes: the router's nonce (or the ERC-7741 nonce) was already used or invalidated by the owner. */
  NONCE_USED: 409,
  /** Signed writes: the owner holds fewer USDC (deposit) or shares (redemptions) than the message moves. */
  INSUFFICIENT_BALANCE: 400,
  /** Signed deposit: the router's USDC allowance is below the amount and no permit covers it. */
  INSUFFICIENT_ALLOWANCE: 400,
  /** Signed redemptions: the router is not the owner's operator on the vault and no authorisation came with it. */
  OPERATOR_NOT_AUTHORIZED: 400,
  /** Signed writes: a synchronous action on an ERC-7540 vault, or the reverse. */
  WRONG_VAULT_KIND: 400,
  /** Signed claim: fewer claimable shares than asked. */
  NOTHING_TO_CLAIM: 400,
  /** Signed cancel: no pending redemption request. */
  NOTHING_TO_CANCEL: 400,
  /** Signed writes: the chain refused the relayed transaction for a reason none of the above covers. */
  TRANSACTION_REVERTED: 400,
  /** An Idempotency-Key reused with a different request. */
  IDEMPOTENCY_KEY_REUSED: 409,
  /** GET /v1/relays/{relay_id}: no relay under that id. */
  RELAY_NOT_FOUND: 404,
} as const;
export type DataErrorCode = keyof typeof DATA_ERROR_STATUS;
export const DATA_ERROR_CODES = Object.keys(DATA_ERROR_STATUS) as DataErrorCode[];

/** The data API's GraphQL door: `errors[].extensions.code`. */
export const GRAPHQL_ERROR_CODES = [
  "BAD_REQUEST",
  "UNSUPPORTED_MEDIA_TYPE",
  "METHOD_NOT_ALLOWED",
  "NOT_ACCEPTABLE",
  "PAYLOAD_TOO_LARGE",
  "QUERY_TOO_LARGE",
  "TOO_MANY_TOKENS",
  "GRAPHQL_PARSE_FAILED",
  "GRAPHQL_VALIDATION_FAILED",
  "QUERY_TOO_DEEP",
  "OPERATION_NOT_FOUND",
  "TOO_MANY_ALIASES",
  "TOO_MANY_DIRECTIVES",
  "QUERY_TOO_COMPLEX",
  "BAD_USER_INPUT",
  "INSUFFICIENT_SCOPE",
  "INVALID_ADDRESS",
  "INVALID_LIMIT",
  "INVALID_OFFSET",
  "TOO_MANY_POINTS",
  "NOT_FOUND",
  "UNAUTHENTICATED",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "INTERNAL_ERROR",
] as const;
export type GraphQLErrorCode = (typeof GRAPHQL_ERROR_CODES)[number];

/** The data API's `/ws` door: `{ type: "error", code }` (REST's codes where one fits, INVALID_<FIELD> for bad input). */
export const WS_ERROR_CODES = [
  "INVALID_BODY",
  "INVALID_TYPE",
  "INVALID_CHANNEL",
  "INVALID_ADDRESS",
  "INVALID_AFTER_SEQ",
  "INVALID_MIN_BLOCK",
  "NOT_YET_INDEXED",
  "INVALID_ID",
  "INVALID_TOKEN",
  "UNKNOWN_PARAMETER",
  "VAULT_NOT_FOUND",
  "SUBSCRIPTION_NOT_FOUND",
  "SUBSCRIPTION_LIMIT_REACHED",
  "CONNECTION_LIMIT_REACHED",
  "ALREADY_AUTHENTICATED",
  "UNAUTHORIZED",
  "INSUFFICIENT_SCOPE",
  "RATE_LIMITED",
  "UNAVAILABLE",
  "INTERNAL_ERROR",
] as const;
export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

/** The `/ws` door's close codes (1xxx are the WebSocket protocol's own, 4xxx this service's). */
export const WS_CLOSE_CODES = {
  /** The server is shutting down: reconnect (to another instance) and resume with afterSeq. */
  GOING_AWAY: 1001,
  /** The client sent more messages than the burst or sustained message rate allows. */
  MESSAGE_RATE: 1008,
  /** A client message larger than the message size limit. */
  MESSAGE_TOO_BIG: 1009,
  /** The key the connection authenticated with was revoked or expired. */
  KEY_REJECTED: 4401,
  /** No client message within the idle timeout. */
  IDLE: 4408,
  /** The client reads too slowly: more than the send buffer limit waited to be sent to it. */
  SLOW_CONSUMER: 4413,
  /** The key already holds the most connections a key may hold. */
  CONNECTION_LIMIT: 4429,
} as const;
