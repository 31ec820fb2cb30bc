/** The NAP TypeScript SDK: a typed client of the live agent API (see packages/sdk/README.md). */
export { NapClient } from "./client";
export type { Answer, NapClientOptions, RegisterOptions, RequestBody, Schemas, WriteOptions } from "./client";
export {
  NapApiError,
  NapAuthError,
  NapConflictError,
  NapNetworkError,
  NapNotFoundError,
  NapRateLimitError,
  NapUnavailableError,
  NapValidationError,
} from "./errors";
export type { EthersLikeSigner, MessageSigner, ViemLikeAccount } from "./signer";
export type { components, operations, paths } from "./openapi";
