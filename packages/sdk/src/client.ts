import { randomUUID } from "node:crypto";
import { NapApiError } from "./errors";
import type { operations } from "./openapi";
import { signerAddress, signText, type MessageSigner } from "./signer";
import { HttpTransport, type TransportOptions } from "./transport";

/**
 * The NAP live API client. Types come from the API's OpenAPI document (openapi.ts, generated), so a field renamed
 * on the server is a compile error here. Every call resolves with the 200 body or rejects with a NapApiError that
 * carries the API's message and status.
 *
 * - Retries: those of the shared transport (transport.ts): Retry-After is honoured, and a request that got no answer
 *   is resent only when that is safe (reads, and writes that carry an Idempotency-Key).
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

/** The 201 body of an operation that creates something. */
export type Created<K extends keyof operations> = operations[K] extends { responses: { 201: infer R } }
  ? JsonOf<R>
  : never;

/** What a scoped key may do: exactly one of `read_only: true` or `operations`, with `usdc_per_day` and a lifetime. */
export type ScopedKeyRequest = RequestBody<"postApiV1AgentKeys">;
/** A scoped key as issued: the key itself (shown once), its prefix, scope and expiry. */
export type ScopedKey = Created<"postApiV1AgentKeys">;
/** A scoped key's revocation. */
export type ScopedKeyRevocation = Answer<"deleteApiV1AgentKeysPrefix">;

export interface NapClientOptions extends TransportOptions {
  /** The agent's API key (X-API-Key); register() sets it. */
  apiKey?: string;
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

export class NapClient {
  readonly baseUrl: string;
  apiKey: string | undefined;
  readonly #transport: HttpTransport;

  constructor(options: NapClientOptions) {
    this.#transport = new HttpTransport(options);
    this.baseUrl = this.#transport.baseUrl;
    this.apiKey = options.apiKey;
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

  /** Sends USDC, ETH or a vault's shares from the agent's server wallet to its operator address (the only exit). */
  exitToOperator(
    body: RequestBody<"postApiV1AgentExit">,
    options: WriteOptions = {},
  ): Promise<Answer<"postApiV1AgentExit">> {
    return this.#write("POST", "/api/v1/agent/exit", body, options);
  }

  // ------------------------------------------------------------------------------------------------ custody

  /** Hands agent `agentId` to a new operator: `signer` must be its current operator's wallet. Needs no API key. */
  async changeOperator(
    agentId: string,
    signer: MessageSigner,
    newOperatorAddress: string,
  ): Promise<Answer<"postApiV1AgentsAgentIdOperator">> {
    const base = `/api/v1/agents/${encodeURIComponent(agentId)}/operator`;
    const nonce = await this.#call<Answer<"postApiV1AgentsAgentIdOperatorNonce">>("POST", `${base}/nonce`, {
      body: { operator_address: await signerAddress(signer), new_operator_address: newOperatorAddress },
      auth: false,
    });
    const signature = await signText(signer, nonce.message);
    return this.#call("POST", base, {
      body: { new_operator_address: newOperatorAddress, nonce: nonce.nonce, signature },
      auth: false,
    });
  }

  /**
   * A new API key for agent `agentId`, signed by the agent's wallet (`signer`); the previous key stops at once. The
   * new key is set on this client and returned once: store it.
   */
  async rotateKey(agentId: string, signer: MessageSigner): Promise<Answer<"postApiV1AgentsAgentIdKeyRotate">> {
    const rotated = await this.#keyAction<Answer<"postApiV1AgentsAgentIdKeyRotate">>(agentId, signer, "rotate");
    this.apiKey = rotated.api_key;
    return rotated;
  }

  /** Revokes agent `agentId`'s API key, signed by the agent's wallet or its operator (`signer`). */
  revokeKey(agentId: string, signer: MessageSigner): Promise<Answer<"postApiV1AgentsAgentIdKeyRevoke">> {
    return this.#keyAction(agentId, signer, "revoke");
  }

  /** The agent's keys by prefix, newest first, with creation, last use and how each ended. */
  keys(): Promise<Answer<"getApiV1AgentKeys">> {
    return this.#call("GET", "/api/v1/agent/keys");
  }

  async #keyAction<T>(agentId: string, signer: MessageSigner, action: "rotate" | "revoke"): Promise<T> {
    const base = `/api/v1/agents/${encodeURIComponent(agentId)}/key`;
    const nonce = await this.#call<Answer<"postApiV1AgentsAgentIdKeyNonce">>("POST", `${base}/nonce`, {
      body: { signer_address: await signerAddress(signer), action },
      auth: false,
    });
    const signature = await signText(signer, nonce.message);
    return this.#call<T>("POST", `${base}/${action}`, { body: { nonce: nonce.nonce, signature }, auth: false });
  }

  // ------------------------------------------------------------------------------------------------ scoped keys

  /**
   * A scoped key for this agent, issued with its full key (this client's): `read_only: true`, or limited to
   * `operations`; optionally at most `usdc_per_day` (USDC base units, 6 decimals) out of the agent's wallet per UTC
   * day, and a lifetime. The key is returned once: hand it on (to an LLM's tools); this client keeps its own key.
   */
  createScopedKey(scope: ScopedKeyRequest): Promise<ScopedKey> {
    return this.#call("POST", "/api/v1/agent/keys", { body: scope });
  }

  /**
   * The same, signed by the agent's wallet (`signer`) instead of sent with the full key: the nonce's message names
   * the agent and the scope, so the signature issues this scope only. Needs no API key.
   */
  async createScopedKeyBySignature(
    agentId: string,
    signer: MessageSigner,
    scope: ScopedKeyRequest,
  ): Promise<ScopedKey> {
    const base = `/api/v1/agents/${encodeURIComponent(agentId)}/keys`;
    const nonce = await this.#call<Answer<"postApiV1AgentsAgentIdKeysNonce">>("POST", `${base}/nonce`, {
      body: scope,
      auth: false,
    });
    const signature = await signText(signer, nonce.message);
    return this.#call("POST", base, { body: { ...scope, nonce: nonce.nonce, signature }, auth: false });
  }

  /** Revokes one of the agent's scoped keys by its prefix (`nap-` and 8 characters), with the full key. */
  revokeScopedKey(prefix: string): Promise<ScopedKeyRevocation> {
    return this.#call("DELETE", `/api/v1/agent/keys/${encodeURIComponent(prefix)}`);
  }

  // ------------------------------------------------------------------------------------------------ transport

  #write<T>(method: string, path: string, body: unknown, options: WriteOptions): Promise<T> {
    return this.#call<T>(method, path, { body, idempotencyKey: options.idempotencyKey ?? randomUUID() });
  }

  #call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.auth !== false) {
      if (!this.apiKey) {
        throw new NapApiError("no API key: register first, or pass apiKey", 401, null, undefined, `${method} ${path}`);
      }
      headers["X-API-Key"] = this.apiKey;
    }
    const { query, body, idempotencyKey } = options;
    return this.#transport.request<T>({ method, path, headers, query, body, idempotencyKey });
  }
}
