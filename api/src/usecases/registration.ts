import { randomBytes, randomUUID } from "node:crypto";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "../domain/apiKeys";
import type { AgentType } from "../domain/model";
import { buildSignInMessage } from "../domain/signInMessage";
import { ConflictError, DuplicateKeyError, ValidationError } from "../errors";
import type { AgentRecord, AgentStore } from "./agents";
import { NONCE_TTL_SECONDS } from "../../../packages/wire/src/live/vocabulary";

/**
 * Registration: a single-use nonce, the signature of the sign-in message, the agent record and its API key. The
 * nonce store interface below is what this use case needs; adapters in store/ implement it.
 */

/** Nonce lifetime of the spec (the wire contract's, which tells clients). */
export { NONCE_TTL_SECONDS };

/** A sign-in nonce as stored. */
export interface NonceRecord {
  nonce: string;
  /** Checksummed wallet the nonce was issued to. */
  walletAddress: string;
  issuedAt: Date;
  expiresAt: Date;
  /** Set once, by the one consume that won. */
  consumedAt?: Date;
}

export interface NonceStore {
  /** Stores a fresh nonce. Throws DuplicateKeyError("nonce") if it exists (never, with 128 random bits). */
  insert(record: NonceRecord): Promise<void>;
  find(nonce: string): Promise<NonceRecord | null>;
  /**
   * Atomically marks the nonce consumed if it exists, belongs to `walletAddress` (case-insensitive), is not consumed
   * and has not expired at `now`. Exactly one of any number of concurrent calls returns the record; the others null.
   */
  consume(nonce: string, walletAddress: string, now: Date): Promise<NonceRecord | null>;
  /** Deletes nonces that expired before `before`; returns how many. */
  purgeExpired(before: Date): Promise<number>;
}

/** Gives a new agent the index of its server wallet (usecases/wallet.ts: never one already used onchain). */
export type WalletIndexAllocator = () => Promise<number>;

export interface RegistrationSettings {
  /** EIP-4361 domain (host[:port]). */
  domain: string;
  /** EIP-4361 URI (public base URL). */
  uri: string;
  chainId: number;
}

/** Checks a wallet signature (EIP-191, or EIP-1271 for contract wallets). */
export type SignatureVerifier = (wallet: string, message: string, signature: string) => Promise<boolean>;

/** Addresses EIP-55 checksummed (the door's schema checks and converts them). */
export interface RegistrationInput {
  wallet_address: string;
  signature: string;
  nonce: string;
  agent_name: string;
  agent_type: AgentType;
  description?: string;
  operator_address: string;
  operator_email?: string;
  operator_name?: string;
  framework?: string;
  repo_url?: string;
}

export interface IssuedNonce {
  nonce: string;
  message: string;
  expires_in_seconds: number;
}

export interface RegistrationResult {
  agent: AgentRecord;
  /** The API key in clear: returned to the caller once, never stored. */
  apiKey: string;
}

export class RegistrationService {
  constructor(
    private readonly stores: { agents: AgentStore; nonces: NonceStore },
    private readonly settings: RegistrationSettings,
    private readonly verifySignature: SignatureVerifier,
    private readonly allocateWalletIndex: WalletIndexAllocator,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Issues a single-use nonce for `wallet` (EIP-55 checksummed) and the exact message to sign. */
  async issueNonce(wallet: string): Promise<IssuedNonce> {
    const walletAddress = wallet;
    // Whole seconds, so that the message (which shows seconds) can be rebuilt exactly from the stored record.
    const issuedAt = new Date(Math.floor(this.clock().getTime() / 1000) * 1000);
    const record: NonceRecord = {
      nonce: randomBytes(16).toString("hex"),
      walletAddress,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + NONCE_TTL_SECONDS * 1000),
    };
    await this.stores.nonces.insert(record);
    return { nonce: record.nonce, message: this.messageFor(record), expires_in_seconds: NONCE_TTL_SECONDS };
  }

  /** The message a nonce record stands for (rebuilt, never stored, so it cannot drift from the rules). */
  messageFor(record: NonceRecord): string {
    return buildSignInMessage({ ...this.settings, ...record });
  }

  /**
   * Registers an agent: checks the nonce, verifies the signature of the nonce's message, allocates the agent's wallet
   * index, consumes the nonce atomically (one winner among concurrent requests) and issues the key. The index comes
   * before the nonce is used, so that a failure there (the chain unreachable) leaves the nonce usable for a retry.
   */
  async register(input: RegistrationInput): Promise<RegistrationResult> {
    const walletAddress = input.wallet_address;
    const now = this.clock();
    const record = await this.stores.nonces.find(input.nonce);
    this.assertNonceUsable(record, walletAddress, now);

    // The store is read while the signature is checked (on a worker thread): the answers are awaited in order.
    const [valid, existing] = await Promise.all([
      this.verifySignature(walletAddress, this.messageFor(record!), input.signature),
      this.stores.agents.findByWallet(walletAddress),
    ]);
    if (!valid) {
      throw new ValidationError(
        "signature: not a valid signature by wallet_address of the message issued with this nonce",
      );
    }
    if (existing) {
      throw new ConflictError("wallet_address: an agent is already registered for this wallet");
    }
    const agentIndex = await this.allocateWalletIndex();
    const consumed = await this.stores.nonces.consume(input.nonce, walletAddress, this.clock());
    if (!consumed) {
      // Lost a race (another request consumed it) or it expired meanwhile: report which.
      this.assertNonceUsable(await this.stores.nonces.find(input.nonce), walletAddress, this.clock());
      throw new ValidationError("nonce: already used; request a new nonce");
    }

    const apiKey = generateApiKey();
    const createdAt = this.clock();
    const agent: AgentRecord = {
      agentId: randomUUID(),
      agentIndex,
      walletAddress,
      agentName: input.agent_name,
      agentType: input.agent_type,
      description: input.description ?? "",
      operatorAddress: input.operator_address,
      tier: "unverified",
      status: "active",
      strategiesSubmitted: 0,
      strategiesPassedScreening: 0,
      depositsMicroUsdc: "0",
      performanceScore: 0,
      apiKeyHash: hashApiKey(apiKey),
      apiKeyPrefix: apiKeyPrefix(apiKey),
      createdAt,
      updatedAt: createdAt,
      ...(input.operator_email !== undefined ? { operatorEmail: input.operator_email } : {}),
      ...(input.operator_name !== undefined ? { operatorName: input.operator_name } : {}),
      ...(input.framework !== undefined ? { framework: input.framework } : {}),
      ...(input.repo_url !== undefined ? { repoUrl: input.repo_url } : {}),
    };
    try {
      await this.stores.agents.insert(agent);
    } catch (error) {
      if (error instanceof DuplicateKeyError && error.field === "walletAddress") {
        throw new ConflictError("wallet_address: an agent is already registered for this wallet");
      }
      throw error;
    }
    return { agent, apiKey };
  }

  private assertNonceUsable(record: NonceRecord | null, walletAddress: string, now: Date): void {
    if (!record) throw new ValidationError("nonce: unknown nonce; request one from GET /api/v1/agent/auth/nonce");
    if (record.consumedAt) throw new ValidationError("nonce: already used; request a new nonce");
    if (record.walletAddress.toLowerCase() !== walletAddress.toLowerCase()) {
      throw new ValidationError("nonce: issued for another wallet than wallet_address");
    }
    if (record.expiresAt.getTime() <= now.getTime()) {
      throw new ValidationError(`nonce: expired (valid for ${NONCE_TTL_SECONDS} seconds); request a new nonce`);
    }
  }
}
