import { randomBytes } from "node:crypto";
import { hashApiKey } from "../../domain/apiKeys";
import { buildSignInMessage } from "../../domain/signInMessage";
import { AuthenticationError, ConflictError, DuplicateKeyError, NotFoundError, invalidField } from "../../errors";
import type { NonceRecord, NonceStore, SignatureVerifier } from "../registration";
import { NONCE_TTL_SECONDS } from "../registration";
import type { AgentRecord } from "../agents";
import {
  DATA_KEY_PATTERN,
  LIVE_KEY_PATTERN,
  MAX_LIVE_KEYS_PER_OWNER,
  keyState,
  newDataKey,
  type DataKeyRecord,
  type DataKeyStore,
  type KeyOwner,
} from "./keys";
import { OPERATOR_ONLY_SCOPES, type Scope } from "./scopes";

/**
 * Issuing, checking and revoking data API keys. There is no dashboard; a key is issued by POST /v1/auth/keys to a
 * caller who proves who it is in one of three ways:
 * - an agent of the live API, with its agent key in `X-API-Key`: the key belongs to `agent:<agentId>`;
 * - any wallet, by signing (EIP-191, or EIP-1271 for contract wallets) the sign-in message of a single-use nonce from
 *   GET /v1/auth/nonce: the key belongs to `wallet:<address>`. The message is the live API's EIP-4361 sign-in message
 *   with DATA_KEY_STATEMENT, so a signature for one purpose is never valid for the other;
 * - an operator, with a key of AGENT_API_KEYS in `X-API-Key`: it may issue Node Operator keys (and `nodes:write`)
 *   for an owner label it names.
 */

export const DATA_KEY_STATEMENT = "I authorize the NAP data API to issue an API key for this wallet.";

/** Who is asking for, listing or revoking keys. */
export type KeyIssuer =
  | { kind: "agent"; agent: AgentRecord }
  /** `nonce`: the proof's nonce, used up only when the key is stored. */
  | { kind: "wallet"; walletAddress: string; nonce?: string }
  | { kind: "operator"; operatorId: string }
  | { kind: "key"; key: DataKeyRecord };

export interface IssueRequest {
  name: string;
  scopes: Scope[];
  lifetimeDays: number;
  /** Operators only. */
  tier?: DataKeyRecord["tier"];
  /** Operators only: the label the key is issued for (`operator:<label>`). */
  ownerLabel?: string;
}

export interface SignInSettings {
  domain: string;
  uri: string;
  chainId: number;
}

/** Counts one issuance per client IP (`ip:<address>`) or per owner; throws a RateLimitError when a window is full. */
export interface IssuanceGate {
  admit(kind: "ip" | "owner", subject: string): Promise<void>;
}

export interface DataKeyServiceDeps {
  store: DataKeyStore;
  /** The live API's sign-in nonces, shared: a nonce's message names its purpose. */
  nonces: NonceStore;
  /** Wallet signatures (EIP-191, EIP-1271), as registration checks them. */
  verifySignature: SignatureVerifier;
  signIn: SignInSettings;
  operatorApiKeys: readonly string[];
  /** Live API agents by their agent key. */
  agents: { byApiKey(apiKey: string): Promise<AgentRecord | null> };
  /** Keys issued per IP and per owner (operators are not counted). */
  gate: IssuanceGate;
  clock: () => Date;
}

/** How a request for a key proves who asks: a live API key, or a wallet's signature over a nonce's message. */
export interface IssuanceProof {
  /** X-API-Key: a live API agent key or an operator key. */
  apiKey?: string;
  wallet?: string;
  nonce?: string;
  signature?: string;
  /** The client's IP, counted by the issuance limit. */
  ip: string;
}

export class DataKeyService {
  /** hash of an operator key -> `operator:<n>`, as the live API names them. */
  private readonly operatorKeys = new Map<string, string>();
  private readonly store: DataKeyStore;
  private readonly nonces: NonceStore;
  private readonly verifySignature: SignatureVerifier;
  private readonly signIn: SignInSettings;
  private readonly agents: DataKeyServiceDeps["agents"];
  private readonly gate: IssuanceGate;
  private readonly clock: () => Date;

  constructor(deps: DataKeyServiceDeps) {
    this.store = deps.store;
    this.nonces = deps.nonces;
    this.verifySignature = deps.verifySignature;
    this.signIn = deps.signIn;
    this.agents = deps.agents;
    this.gate = deps.gate;
    this.clock = deps.clock;
    deps.operatorApiKeys.forEach((key, index) => this.operatorKeys.set(hashApiKey(key), `operator:${index + 1}`));
  }

  /**
   * Issues a key to whoever `proof` proves. Order: every check that needs no count (input, issuer, proof) comes first;
   * then the IP's issuance count, which also bounds signature checks; the owner's count and the nonce are spent only
   * by a request about to succeed.
   */
  async issueKey(proof: IssuanceProof, request: IssueRequest): Promise<{ key: string; record: DataKeyRecord }> {
    const walletProof = proof.wallet !== undefined || proof.nonce !== undefined || proof.signature !== undefined;
    let issuer = await this.liveIssuer(proof.apiKey);
    if (issuer && walletProof) {
      throw invalidField("body", "give either X-API-Key or wallet, nonce and signature, not both");
    }
    if (!issuer) {
      if (!walletProof) {
        throw new AuthenticationError(
          "issuing a key needs X-API-Key (a live API agent key or an operator key), or wallet, nonce and signature " +
            "(GET /v1/auth/nonce)",
        );
      }
      for (const field of ["wallet", "nonce", "signature"] as const) {
        if (proof[field] === undefined) throw invalidField(field, "required with a wallet signature");
      }
      await this.gate.admit("ip", `ip:${proof.ip}`);
      issuer = await this.proveWallet(proof.wallet!, proof.nonce!, proof.signature!);
    } else if (issuer.kind !== "operator") {
      await this.gate.admit("ip", `ip:${proof.ip}`);
    }
    const counted = issuer.kind !== "operator";
    return this.issue(issuer, request, counted ? (owner) => this.gate.admit("owner", owner) : undefined);
  }

  /** The issuer a live API credential (X-API-Key) stands for: undefined without one, a 401 for an unknown one. */
  async liveIssuer(apiKey: string | undefined): Promise<KeyIssuer | undefined> {
    if (apiKey === undefined || apiKey === "") return undefined;
    const operatorId = this.operatorOf(apiKey);
    if (operatorId) return { kind: "operator", operatorId };
    const agent = await this.agents.byApiKey(apiKey);
    if (!agent) throw new AuthenticationError("unknown X-API-Key: send a live API agent key or an operator key");
    if (agent.status !== "active") throw new AuthenticationError(`the agent of this X-API-Key is ${agent.status}`);
    return { kind: "agent", agent };
  }

  /** The active key a Bearer token stands for, or the 401 that says why not. */
  async authenticate(token: string): Promise<DataKeyRecord> {
    if (LIVE_KEY_PATTERN.test(token)) {
      throw new AuthenticationError(
        "this is a live API agent key (X-API-Key of /api/v1): exchange it for a data API key with POST /v1/auth/keys",
      );
    }
    const record = DATA_KEY_PATTERN.test(token) ? await this.store.findByHash(hashApiKey(token)) : null;
    if (!record) throw new AuthenticationError("unknown API key");
    const state = keyState(record, this.clock());
    if (state === "revoked") {
      throw new AuthenticationError(`API key revoked at ${record.revokedAt!.toISOString()}`, { key_id: record.keyId });
    }
    if (state === "expired") {
      throw new AuthenticationError(`API key expired at ${record.expiresAt.toISOString()}`, { key_id: record.keyId });
    }
    return record;
  }

  /** The operator id of an operator key, if `key` is one. */
  operatorOf(key: string): string | undefined {
    return this.operatorKeys.get(hashApiKey(key));
  }

  /** A single-use nonce for `walletAddress` (checksummed) and the exact message to sign. */
  async issueNonce(walletAddress: string): Promise<{ nonce: string; message: string; expires_in_seconds: number }> {
    const issuedAt = new Date(Math.floor(this.clock().getTime() / 1000) * 1000);
    const record: NonceRecord = {
      nonce: randomBytes(16).toString("hex"),
      walletAddress,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + NONCE_TTL_SECONDS * 1000),
    };
    await this.nonces.insert(record);
    return { nonce: record.nonce, message: this.messageFor(record), expires_in_seconds: NONCE_TTL_SECONDS };
  }

  messageFor(record: NonceRecord): string {
    return buildSignInMessage({ ...this.signIn, ...record, statement: DATA_KEY_STATEMENT });
  }

  /**
   * Proves a wallet by its signature over the message of an unused nonce. The nonce stays unused until issue() stores
   * the key, so that a request refused for any other reason can be sent again with the same nonce.
   */
  async proveWallet(walletAddress: string, nonce: string, signature: string): Promise<KeyIssuer> {
    const now = this.clock();
    const record = await this.nonces.find(nonce);
    if (!record) throw invalidField("nonce", "unknown nonce; request one from GET /v1/auth/nonce");
    if (record.consumedAt) throw invalidField("nonce", "already used; request a new nonce");
    if (record.walletAddress.toLowerCase() !== walletAddress.toLowerCase()) {
      throw invalidField("nonce", "issued for another wallet than `wallet`");
    }
    if (record.expiresAt.getTime() <= now.getTime()) {
      throw invalidField("nonce", `expired (valid for ${NONCE_TTL_SECONDS} seconds); request a new nonce`);
    }
    if (!(await this.verifySignature(walletAddress, this.messageFor(record), signature))) {
      throw invalidField("signature", "not a valid signature by `wallet` of the message issued with this nonce");
    }
    return { kind: "wallet", walletAddress, nonce };
  }

  /**
   * Issues a key once every check has passed; `admit` (the issuance limit) runs last before the wallet's nonce is
   * used up and the key stored, so a refusal leaves both the nonce and the limit's count as they were.
   */
  async issue(
    issuer: KeyIssuer,
    request: IssueRequest,
    admit: (owner: KeyOwner) => Promise<void> = async () => undefined,
  ): Promise<{ key: string; record: DataKeyRecord }> {
    const operator = issuer.kind === "operator";
    if (!operator && (request.tier !== undefined || request.ownerLabel !== undefined)) {
      throw invalidField(request.tier !== undefined ? "tier" : "owner", "only an operator key may set it");
    }
    const tier = operator ? (request.tier ?? "node_operator") : "authenticated";
    const operatorOnly = request.scopes.find((scope) => OPERATOR_ONLY_SCOPES.includes(scope));
    if (operatorOnly && tier !== "node_operator") {
      throw invalidField("scopes", `${operatorOnly} is only granted to Node Operator keys (issued by an operator)`);
    }
    const owner = this.ownerOf(issuer, request.ownerLabel);
    const now = this.clock();
    const live = (await this.store.listByOwner(owner)).filter((key) => keyState(key, now) === "active");
    if (live.length >= MAX_LIVE_KEYS_PER_OWNER) {
      throw new ConflictError(
        `${owner} already holds ${MAX_LIVE_KEYS_PER_OWNER} active keys: revoke one with DELETE /v1/auth/keys/{key_id}`,
        { owner, limit: MAX_LIVE_KEYS_PER_OWNER },
        { reason: "KEY_LIMIT_REACHED" },
      );
    }
    await admit(owner);
    if (issuer.kind === "wallet" && issuer.nonce !== undefined) {
      if (!(await this.nonces.consume(issuer.nonce, issuer.walletAddress, this.clock()))) {
        throw invalidField("nonce", "already used; request a new nonce");
      }
    }
    for (;;) {
      const issued = newDataKey({
        owner,
        name: request.name,
        tier,
        scopes: [...new Set(request.scopes)],
        issuedBy: operator ? issuer.operatorId : owner,
        createdAt: now,
        expiresAt: new Date(now.getTime() + request.lifetimeDays * 86_400_000),
      });
      try {
        await this.store.insert(issued.record);
        return issued;
      } catch (error) {
        // A clash of random ids or hashes (never in practice): draw again.
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
    }
  }

  /** The keys the issuer may see: its own owner's (an operator: those of `ownerLabel`). */
  async list(issuer: KeyIssuer, ownerLabel?: string): Promise<DataKeyRecord[]> {
    return this.store.listByOwner(this.ownerOf(issuer, ownerLabel));
  }

  /**
   * Revokes a key of the issuer's owner (any key, for an operator). An unknown id and another owner's key get the
   * same 404, so that ids of other owners cannot be probed.
   */
  async revoke(issuer: KeyIssuer, keyId: string): Promise<DataKeyRecord> {
    const record = await this.store.findById(keyId);
    if (!record || (issuer.kind !== "operator" && record.owner !== this.ownerOf(issuer))) {
      throw keyNotFound(`no key ${keyId} among this caller's keys`, keyId);
    }
    const revoked = await this.store.revoke(keyId, this.clock());
    if (!revoked) throw keyNotFound(`no key ${keyId}`, keyId);
    return revoked;
  }

  ownerOf(issuer: KeyIssuer, ownerLabel?: string): KeyOwner {
    switch (issuer.kind) {
      case "agent":
        return `agent:${issuer.agent.agentId}`;
      case "wallet":
        return `wallet:${issuer.walletAddress.toLowerCase()}`;
      case "operator":
        return `operator:${ownerLabel ?? issuer.operatorId.slice("operator:".length)}`;
      case "key":
        return issuer.key.owner;
    }
  }
}

function keyNotFound(message: string, keyId: string): NotFoundError {
  return new NotFoundError(message, { key_id: keyId }, { reason: "KEY_NOT_FOUND" });
}
