import type { paths } from "./dataOpenapi";
import { NapGraphQLError } from "./errors";
import { QUERIES } from "./graphql/operations";
import type { QueryTypes } from "./graphql/types";
import { signerAddress, signText, type MessageSigner } from "./signer";
import type {
  CancelRedeemRequest,
  ClaimRequest,
  DepositRequest,
  RedeemRequest,
  RequestRedeemRequest,
} from "./signed/actions";
import type { RelayState } from "./signed/errors";
import {
  SignedWrites,
  type RelaySubmitted,
  type SignedWriteOptions,
  type SignedWritesOptions,
  type WaitOptions,
} from "./signed/signedWrites";
import type { TypedDataSigner } from "./signed/typedDataSigner";
import { subscribe, type SubscribeOptions, type Subscription, type SubscriptionHandlers } from "./subscriptions";
import type { SubscriptionTypes } from "./graphql/types";
import { HttpTransport, type TransportOptions } from "./transport";

/**
 * The client of NAP's public data API: REST /v1 (types generated from /v1/openapi.json), GraphQL queries (types
 * generated from the SDK's operations and the schema) and GraphQL subscriptions with resume (subscriptions.ts).
 * Reads need no key (the Public tier); a data API key (`napd-...`, sent as `Authorization: Bearer`) raises the
 * rate limits. Errors are NapApiErrors with the API's `code` (VAULT_NOT_FOUND, RATE_LIMITED ...); a GraphQL answer
 * with errors rejects with a NapGraphQLError. Retries are the shared transport's (Retry-After is honoured).
 * Writes by a wallet's own signature (deposit, redeem, requestRedeem, claim, cancelRedeem) are checked, signed and
 * relayed by signed/signedWrites.ts.
 */

type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Operation<P extends keyof paths, M extends "get" | "post" | "delete"> = NonNullable<paths[P][M]>;
/** The 200 (or 201) body of a data API route. */
export type DataAnswer<P extends keyof paths, M extends "get" | "post" | "delete" = "get"> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: infer OK }
      ? Json<OK>
      : R extends { 201: infer Created }
        ? Json<Created>
        : never
    : never;
/** The query parameters of a data API GET route. */
export type DataQuery<P extends keyof paths> =
  Operation<P, "get"> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON body of a data API POST route. */
export type DataBody<P extends keyof paths> =
  Operation<P, "post"> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

export type DataSchemas = import("./dataOpenapi").components["schemas"];
export type { QueryTypes, SubscriptionTypes };

export interface NapDataClientOptions extends TransportOptions, Omit<SignedWritesOptions, "now"> {
  /** A data API key (`napd-...`), sent as `Authorization: Bearer <key>`; without one, reads are on the Public tier. */
  apiKey?: string;
  /** WebSocket constructor for subscriptions (default: the `ws` package's). */
  webSocketImpl?: unknown;
}

/** Read-your-writes: the block the answer must include (the read waits up to 2 s for the indexer). */
export interface Consistency {
  minBlock?: number;
}

export class NapDataClient {
  readonly baseUrl: string;
  apiKey: string | undefined;
  readonly #transport: HttpTransport;
  readonly #webSocketImpl: unknown;
  readonly #timeoutMs: number | undefined;
  readonly #maxResponseBytes: number | undefined;
  readonly #signed: SignedWrites;

  constructor(options: NapDataClientOptions) {
    this.#transport = new HttpTransport(options);
    this.baseUrl = this.#transport.baseUrl;
    this.apiKey = options.apiKey;
    this.#webSocketImpl = options.webSocketImpl;
    this.#timeoutMs = options.timeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes;
    const { chainId, router, maxValiditySeconds } = options;
    this.#signed = new SignedWrites(this.#transport, () => this.#auth(), { chainId, router, maxValiditySeconds });
  }

  // ------------------------------------------------------------------------------------------------ REST /v1

  vaults(): Promise<DataAnswer<"/v1/vaults">> {
    return this.#get("/v1/vaults");
  }

  /** A vault by address or deployment id (`moderate`). */
  vault(address: string, consistency: Consistency = {}): Promise<DataAnswer<"/v1/vaults/{address}">> {
    return this.#get(`/v1/vaults/${encodeURIComponent(address)}`, consistency);
  }

  vaultHistory(
    address: string,
    query: DataQuery<"/v1/vaults/{address}/history"> = {},
  ): Promise<DataAnswer<"/v1/vaults/{address}/history">> {
    return this.#get(`/v1/vaults/${encodeURIComponent(address)}/history`, query);
  }

  vaultsBatch(vaultIds: string[]): Promise<DataAnswer<"/v1/vaults/batch", "post">> {
    const body: DataBody<"/v1/vaults/batch"> = { vaultIds };
    return this.#transport.request({ method: "POST", path: "/v1/vaults/batch", body, headers: this.#auth() });
  }

  strategies(): Promise<DataAnswer<"/v1/strategies">> {
    return this.#get("/v1/strategies");
  }

  strategyPerformance(id: string): Promise<DataAnswer<"/v1/strategies/{id}/performance">> {
    return this.#get(`/v1/strategies/${encodeURIComponent(id)}/performance`);
  }

  userPositions(address: string, consistency: Consistency = {}): Promise<DataAnswer<"/v1/users/{address}/positions">> {
    return this.#get(`/v1/users/${encodeURIComponent(address)}/positions`, consistency);
  }

  userTransactions(
    address: string,
    query: DataQuery<"/v1/users/{address}/transactions"> = {},
  ): Promise<DataAnswer<"/v1/users/{address}/transactions">> {
    return this.#get(`/v1/users/${encodeURIComponent(address)}/transactions`, query);
  }

  protocolStats(): Promise<DataAnswer<"/v1/protocol/stats">> {
    return this.#get("/v1/protocol/stats");
  }

  status(): Promise<DataAnswer<"/v1/status">> {
    return this.#get("/v1/status");
  }

  nodes(): Promise<DataAnswer<"/v1/nodes">> {
    return this.#get("/v1/nodes");
  }

  /** The caller's tier and both rate-limit windows. */
  rateLimitStatus(): Promise<DataAnswer<"/v1/rate-limit-status">> {
    return this.#get("/v1/rate-limit-status");
  }

  /** What the key in use is (needs a key). */
  tokenInfo(): Promise<DataAnswer<"/v1/auth/token-info">> {
    return this.#get("/v1/auth/token-info");
  }

  /**
   * Issues a data API key, proven either by a live API agent key (`{ agentApiKey }`) or by a wallet's signature of
   * a single-use nonce (`{ signer }`). The key is returned once (and set on this client): store it.
   */
  async issueKey(
    proof: { agentApiKey: string } | { signer: MessageSigner },
    body: Omit<DataBody<"/v1/auth/keys">, "wallet" | "nonce" | "signature" | "owner" | "tier"> = {},
  ): Promise<DataAnswer<"/v1/auth/keys", "post">> {
    let request: { headers: Record<string, string>; body: DataBody<"/v1/auth/keys"> };
    if ("agentApiKey" in proof) {
      request = { headers: { "X-API-Key": proof.agentApiKey }, body };
    } else {
      const wallet = await signerAddress(proof.signer);
      const nonce = await this.#get<DataAnswer<"/v1/auth/nonce">>("/v1/auth/nonce", { wallet });
      const signature = await signText(proof.signer, nonce.message);
      request = { headers: {}, body: { ...body, wallet, nonce: nonce.nonce, signature } };
    }
    const issued = await this.#transport.request<DataAnswer<"/v1/auth/keys", "post">>({
      method: "POST",
      path: "/v1/auth/keys",
      ...request,
    });
    this.apiKey = issued.key;
    return issued;
  }

  // ------------------------------------------------------------------------------------------------ signed writes
  // The signer is any viem Account or WalletClient or ethers Signer; it needs no ETH and no registration. Each
  // answers the relay (202); waitForRelay follows it to the transaction's outcome.

  /** Deposits `amount` (base units) of the vault's asset, with an EIP-2612 permit when the router needs one. */
  deposit(request: DepositRequest, signer: TypedDataSigner, options?: SignedWriteOptions): Promise<RelaySubmitted> {
    return this.#signed.write("deposit", request, signer, options);
  }

  /** Redeems shares of a synchronous vault. */
  redeem(request: RedeemRequest, signer: TypedDataSigner, options?: SignedWriteOptions): Promise<RelaySubmitted> {
    return this.#signed.write("redeem", request, signer, options);
  }

  /** Asks an ERC-7540 vault to redeem shares (claimable once fulfilled). */
  requestRedeem(
    request: RequestRedeemRequest,
    signer: TypedDataSigner,
    options?: SignedWriteOptions,
  ): Promise<RelaySubmitted> {
    return this.#signed.write("requestRedeem", request, signer, options);
  }

  /** Claims fulfilled shares of an ERC-7540 redemption as assets. */
  claim(request: ClaimRequest, signer: TypedDataSigner, options?: SignedWriteOptions): Promise<RelaySubmitted> {
    return this.#signed.write("claim", request, signer, options);
  }

  /** Cancels a pending ERC-7540 redemption and takes the shares back. */
  cancelRedeem(
    request: CancelRedeemRequest,
    signer: TypedDataSigner,
    options?: SignedWriteOptions,
  ): Promise<RelaySubmitted> {
    return this.#signed.write("cancelRedeem", request, signer, options);
  }

  /** A signed write's relay: submitted, confirmed (with its result) or failed (with its code). */
  relay(relayId: string): Promise<RelayState> {
    return this.#signed.relay(relayId);
  }

  /** Follows a relay until it is confirmed (answered) or failed (a NapRelayError), at most `timeoutMs`. */
  waitForRelay(relayId: string, options?: WaitOptions): Promise<RelayState> {
    return this.#signed.waitForRelay(relayId, options);
  }

  // ------------------------------------------------------------------------------------------------ GraphQL

  /** Runs one of the SDK's GraphQL queries (see graphql/operations.ts) and answers its typed `data`. */
  async query<K extends keyof QueryTypes>(
    name: K,
    ...[variables]: Record<string, never> extends QueryTypes[K]["variables"]
      ? [variables?: QueryTypes[K]["variables"]]
      : [variables: QueryTypes[K]["variables"]]
  ): Promise<QueryTypes[K]["result"]> {
    const answer = await this.#transport.request<{ data?: unknown; errors?: NapGraphQLError["errors"] }>({
      method: "POST",
      path: "/graphql",
      body: { query: QUERIES[name], variables: variables ?? {} },
      headers: { ...this.#auth(), accept: "application/graphql-response+json, application/json" },
    });
    if (answer.errors && answer.errors.length > 0)
      throw new NapGraphQLError(answer.errors, answer.data, `query ${name}`);
    return answer.data as QueryTypes[K]["result"];
  }

  /**
   * Subscribes to `vaultUpdated` or `transactionCreated` over graphql-ws. Each event carries the event log's `seq`;
   * after a dropped connection the helper reconnects (with backoff) and resumes after the last seq it delivered,
   * so nothing is missed or delivered twice. Start from a known seq with `afterSeq`. `close()` ends it. The
   * client's `timeoutMs` bounds the socket's handshake and connection_ack, its `maxResponseBytes` each message.
   */
  subscribe<K extends keyof SubscriptionTypes>(
    name: K,
    variables: Omit<SubscriptionTypes[K]["variables"], "afterSeq">,
    handlers: SubscriptionHandlers<SubscriptionTypes[K]["result"]>,
    options: Omit<SubscribeOptions, "url" | "apiKey" | "webSocketImpl"> = {},
  ): Subscription {
    return subscribe(name, variables, handlers, {
      timeoutMs: this.#timeoutMs,
      maxMessageBytes: this.#maxResponseBytes,
      ...options,
      url: `${this.baseUrl.replace(/^http/, "ws")}/graphql`,
      apiKey: this.apiKey,
      webSocketImpl: this.#webSocketImpl,
    });
  }

  // ------------------------------------------------------------------------------------------------ transport

  #auth(): Record<string, string> {
    return this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
  }

  #get<T>(path: string, query: object = {}): Promise<T> {
    return this.#transport.request<T>({ method: "GET", path, query, headers: this.#auth() });
  }
}
