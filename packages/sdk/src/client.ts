import { randomUUID } from "node:crypto";
import { errorFor, NapApiError, NapNetworkError } from "./errors";
import type { operations } from "./openapi";
import { signerAddress, signText, type MessageSigner } from "./signer";

/**
 * The NAP live API client. Types come from the API's OpenAPI document (openapi.ts, generated), so a field renamed
 * on the server is a compile error here. Every call resolves with the 200 body or rejects with a NapApiError that
 * carries the API's message and status.
 *
 * - Retries: a 429 or 503 with Retry-After is retried after that many seconds (at most `maxRetries` times, and only
 *   when the wait is at most `maxRetryWaitSeconds`; a faucet cooldown of a day is thrown at once, with
 *   retryAfterSeconds). A request that never reached an answer (connection refused or reset) is retried only when
 *   it is safe: reads, and writes that carry an Idempotency-Key.
 * - Idempotency: every call that moves value sends an Idempotency-Key (a new UUID per call unless one is given) and
 *   keeps it across its retries, so a retry never makes a second transaction.
 */

type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B : never;
/** The 200 body of an operation. */
export type Answer<K extends keyof operations> = operations[K] extends { responses: { 200: infer R } }
  ? JsonOf<R>
  : never;
/** The JSON request body of an operation. */
export type RequestBody<K extends keyof operations> = operations[K] extends {
  requestBody: { content: { "application/json": infer B } };
}
  ? B
  : never;

export type Schemas = import("./openapi").components["schemas"];

export interface NapClientOptions {
  /** Base URL of the API, e.g. http://127.0.0.1:3000 (no trailing path). */
  baseUrl: string;
  /** The agent's API key (X-API-Key); register() sets it. */
  apiKey?: string;
  /** Retries of 429/503 with Retry-After and of requests that never got an answer (default 3). */
  maxRetries?: number;
  /** Longest Retry-After honoured by waiting, in seconds (default 30); longer ones are thrown. */
  maxRetryWaitSeconds?: number;
  /** Wait before retrying a request that got no answer, in milliseconds (default 500, doubled each time). */
  networkRetryDelayMs?: number;
  /** fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Called before each retry: attempt number (1-based), the wait in ms and why. */
  onRetry?: (info: { attempt: number; waitMs: number; reason: string }) => void;
}

/** Options of a call that moves value. */
export interface WriteOptions {
  /** Idempotency-Key of this operation (default: a new UUID). Give your own to retry across process restarts. */
  idempotencyKey?: string;
}

export interface RegisterOptions {
  /** The wallet that owns the agent: an ethers Signer, a viem Account, anything with signMessage. */
  signer: MessageSigner;
  agentName: string;
  agentType?: RequestBody<"postApiV1AgentAuthRegister">["agent_type"];
  /** Default: the signer's address. */
  operatorAddress?: string;
  description?: string;
  operatorEmail?: string;
  operatorName?: string;
  framework?: string;
  repoUrl?: string;
}

interface CallOptions {
  body?: unknown;
  query?: Record<string, string>;
  idempotencyKey?: string;
  auth?: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class NapClient {
  readonly baseUrl: string;
  apiKey: string | undefined;
  readonly #maxRetries: number;
  readonly #maxRetryWaitSeconds: number;
  readonly #networkRetryDelayMs: number;
  readonly #fetch: typeof fetch;
  readonly #onRetry: NapClientOptions["onRetry"];

  constructor(options: NapClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? 30;
    this.#networkRetryDelayMs = options.networkRetryDelayMs ?? 500;
    this.#fetch = options.fetch ?? fetch;
    this.#onRetry = options.onRetry;
  }

  // ------------------------------------------------------------------------------------------------ registration

  /**
   * Registers an agent owned by `signer`'s wallet: asks for a nonce, signs its message (EIP-191) and registers.
   * The API key is returned once (and set on this client): store it.
   */
  async register(options: RegisterOptions): Promise<Answer<"postApiV1AgentAuthRegister">> {
    const wallet = await signerAddress(options.signer);
    const nonce = await this.nonce(wallet);
    const signature = await signText(options.signer, nonce.message);
    const body: RequestBody<"postApiV1AgentAuthRegister"> = {
      wallet_address: wallet,
      signature,
      nonce: nonce.nonce,
      agent_name: options.agentName,
      operator_address: options.operatorAddress ?? wallet,
      ...(options.agentType ? { agent_type: options.agentType } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
      ...(options.operatorEmail ? { operator_email: options.operatorEmail } : {}),
      ...(options.operatorName ? { operator_name: options.operatorName } : {}),
      ...(options.framework ? { framework: options.framework } : {}),
      ...(options.repoUrl ? { repo_url: options.repoUrl } : {}),
    };
    const registered = await this.#call<Answer<"postApiV1AgentAuthRegister">>("POST", "/api/v1/agent/auth/register", {
      body,
      auth: false,
    });
    this.apiKey = registered.api_key;
    return registered;
  }

  nonce(wallet: string): Promise<Answer<"getApiV1AgentAuthNonce">> {
    return this.#call("GET", "/api/v1/agent/auth/nonce", { query: { wallet }, auth: false });
  }

  lookup(wallet: string): Promise<Answer<"getApiV1AgentAuthLookup">> {
    return this.#call("GET", "/api/v1/agent/auth/lookup", { query: { wallet }, auth: false });
  }

  // ------------------------------------------------------------------------------------------------ public reads

  health(): Promise<Answer<"getHealth">> {
    return this.#call("GET", "/health", { auth: false });
  }

  vaults(): Promise<Answer<"getApiV1Vaults">> {
    return this.#call("GET", "/api/v1/vaults", { auth: false });
  }

  agents(query: Record<string, string> = {}): Promise<Answer<"getApiV1Agents">> {
    return this.#call("GET", "/api/v1/agents", { query, auth: false });
  }

  proposals(): Promise<Answer<"getApiV1Proposals">> {
    return this.#call("GET", "/api/v1/proposals", { auth: false });
  }

  positionsOf(walletAddress: string): Promise<Answer<"postApiV1Positions">> {
    return this.#call("POST", "/api/v1/positions", { body: { wallet_address: walletAddress }, auth: false });
  }

  nftsOf(walletAddress: string): Promise<Answer<"postApiV1Nfts">> {
    return this.#call("POST", "/api/v1/nfts", { body: { wallet_address: walletAddress }, auth: false });
  }

  // ------------------------------------------------------------------------------------------------ the agent

  wallet(): Promise<Answer<"getApiV1AgentWallet">> {
    return this.#call("GET", "/api/v1/agent/wallet");
  }

  positions(): Promise<Answer<"getApiV1AgentVaultPositions">> {
    return this.#call("GET", "/api/v1/agent/vault/positions");
  }

  strategies(): Promise<Answer<"getApiV1AgentStrategyList">> {
    return this.#call("GET", "/api/v1/agent/strategy/list");
  }

  eligibility(): Promise<Answer<"getApiV1AgentGalaxyEligibility">> {
    return this.#call("GET", "/api/v1/agent/galaxy/eligibility");
  }

  transaction(txHash: string): Promise<Answer<"getApiV1AgentTransactionsTxHash">> {
    return this.#call("GET", `/api/v1/agent/transactions/${encodeURIComponent(txHash)}`);
  }

  transactions(): Promise<Answer<"getApiV1AgentTransactions">> {
    return this.#call("GET", "/api/v1/agent/transactions");
  }

  // ------------------------------------------------------------------------------------------------ value-moving

  faucet(options: WriteOptions = {}): Promise<Answer<"postApiV1AgentFaucet">> {
    return this.#write("POST", "/api/v1/agent/faucet", undefined, options);
  }

  deposit(
    body: RequestBody<"postApiV1AgentVaultDeposit">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentVaultDeposit">> {
    return this.#write("POST", "/api/v1/agent/vault/deposit", body, options);
  }

  withdraw(
    body: RequestBody<"postApiV1AgentVaultWithdraw">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentVaultWithdraw">> {
    return this.#write("POST", "/api/v1/agent/vault/withdraw", body, options);
  }

  requestRedeem(
    body: RequestBody<"postApiV1AgentVaultRedeemRequest">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentVaultRedeemRequest">> {
    return this.#write("POST", "/api/v1/agent/vault/redeem-request", body, options);
  }

  claim(
    body: RequestBody<"postApiV1AgentVaultClaim">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentVaultClaim">> {
    return this.#write("POST", "/api/v1/agent/vault/claim", body, options);
  }

  cancelRedeem(
    body: RequestBody<"postApiV1AgentVaultRedeemCancel">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentVaultRedeemCancel">> {
    return this.#write("POST", "/api/v1/agent/vault/redeem-cancel", body, options);
  }

  submitStrategy(
    body: RequestBody<"postApiV1AgentStrategySubmit">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentStrategySubmit">> {
    return this.#write("POST", "/api/v1/agent/strategy/submit", body, options);
  }

  vote(
    body: RequestBody<"postApiV1AgentGovernanceVote">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentGovernanceVote">> {
    return this.#write("POST", "/api/v1/agent/governance/vote", body, options);
  }

  // ------------------------------------------------------------------------------------------------ transport

  #write<T>(method: string, path: string, body: unknown, options: WriteOptions): Promise<T> {
    return this.#call<T>(method, path, { body, idempotencyKey: options.idempotencyKey ?? randomUUID() });
  }

  async #call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const query =
      options.query && Object.keys(options.query).length > 0 ? `?${new URLSearchParams(options.query)}` : "";
    const url = `${this.baseUrl}${path}${query}`;
    const label = `${method} ${path}`;
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.auth !== false) {
      if (!this.apiKey)
        throw new NapApiError("no API key: register first, or pass apiKey", 401, null, undefined, label);
      headers["X-API-Key"] = this.apiKey;
    }
    if (options.idempotencyKey) headers["Idempotency-Key"] = options.idempotencyKey;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const safeToResend = method === "GET" || options.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
      } catch (cause) {
        if (safeToResend && attempt < this.#maxRetries) {
          const waitMs = this.#networkRetryDelayMs * 2 ** attempt;
          this.#onRetry?.({ attempt: attempt + 1, waitMs, reason: `no answer: ${(cause as Error).message}` });
          await sleep(waitMs);
          continue;
        }
        throw new NapNetworkError(
          `${label}: no answer from ${this.baseUrl}: ${(cause as Error).message}`,
          label,
          cause,
        );
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text === "" ? null : JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      if (response.ok) return body as T;
      const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      const error = errorFor(response.status, body, retryAfter, label);
      const retryable = response.status === 429 || response.status === 503;
      if (
        retryable &&
        retryAfter !== undefined &&
        retryAfter <= this.#maxRetryWaitSeconds &&
        attempt < this.#maxRetries
      ) {
        this.#onRetry?.({ attempt: attempt + 1, waitMs: retryAfter * 1000, reason: error.message });
        await sleep(retryAfter * 1000);
        continue;
      }
      throw error;
    }
  }
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110). */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
