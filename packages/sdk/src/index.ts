/**
 * The NAP TypeScript SDK: typed clients of the live agent API (NapClient) and of the public data API
 * (NapDataClient: REST /v1, GraphQL queries, subscriptions with resume). See packages/sdk/README.md.
 */
export { NapClient } from "./client";
export type {
  Answer,
  NapClientOptions,
  RegisterOptions,
  RequestBody,
  Schemas,
  ScopedKey,
  ScopedKeyRequest,
  ScopedKeyRevocation,
  WriteOptions,
} from "./client";
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
export type {
  Amount,
  CancelRedeemRequest,
  ClaimRequest,
  DepositRequest,
  RedeemRequest,
  RequestRedeemRequest,
} from "./signed/actions";
export type { PreparedWrite } from "./signed/check";
export { NapRelayError, NapTypedDataMismatchError, type RelayState } from "./signed/errors";
export type { RelaySubmitted, SignedWriteOptions, SignedWritesOptions, WaitOptions } from "./signed/signedWrites";
export { INTENT_TYPES, OPERATOR_TYPES, PERMIT_TYPES, ROUTER_DOMAIN } from "./signed/typedData";
export type { TypedData, TypedDataDomain, TypedDataField } from "./signed/typedData";
export type {
  EthersTypedDataSigner,
  TypedDataSigner,
  ViemTypedDataAccount,
  ViemTypedDataWalletClient,
} from "./signed/typedDataSigner";
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "./transport";
export type { TransportOptions } from "./transport";
export type { components, operations, paths } from "./openapi";
export type * as graphql from "./graphql/types";
export * from "./operations";
