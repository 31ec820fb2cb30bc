/**
 * The NAP TypeScript SDK: typed clients of the live agent API (NapClient) and of the public data API
 * (NapDataClient: REST /v1, GraphQL queries, subscriptions with resume). See packages/sdk/README.md.
 */
export { NapClient } from "./client";
export type { Answer, NapClientOptions, RegisterOptions, RequestBody, Schemas, WriteOptions } from "./client";
export { NapDataClient } from "./data";
export type {
  Consistency,
  DataAnswer,
  DataBody,
  DataQuery,
  DataSchemas,
  NapDataClientOptions,
  QueryTypes,
  SubscriptionTypes,
} from "./data";
export type { SubscriptionEvent, SubscriptionHandlers, Subscription, SubscribeOptions } from "./subscriptions";
export {
  NapApiError,
  NapAuthError,
  NapConflictError,
  NapGraphQLError,
  NapNetworkError,
  NapNotFoundError,
  NapRateLimitError,
  NapRedirectError,
  NapResponseTooLargeError,
  NapTimeoutError,
  NapUnavailableError,
  NapValidationError,
} from "./errors";
export type { EthersLikeSigner, MessageSigner, ViemLikeAccount } from "./signer";
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "./transport";
export type { TransportOptions } from "./transport";
export type { components, operations, paths } from "./openapi";
export type * as graphql from "./graphql/types";
export * from "./operations";
