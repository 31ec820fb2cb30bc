import { randomUUID } from "node:crypto";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "../../domain/apiKeys";
import { keyRevocationStatement, scopedKeyStatement } from "../../domain/custodyStatements";
import { describeScope, nextUtcMidnight, utcDay, type KeyScope } from "../../domain/keyScopes";
import { usdcString } from "../../domain/units";
import { AuthenticationError, ConflictError, DuplicateKeyError, NotFoundError, PermissionError } from "../../errors";
import { KEY_USE_RESOLUTION_MS, type AgentRecord, type AgentService } from "../agents";
import type { IssuedNonce } from "../registration";
import type { SignedNonces } from "./signedNonces";

/**
 * Scoped API keys: second keys of an agent for handing to an LLM. Each reads, calls only the operations it names and
 * moves at most its `usdcPerDay` out of the agent's wallet per UTC day; it expires (default 30 days, at most 365)
 * and is revoked by its prefix with the full key. Issued by the full key or by a signature of the agent's wallet.
 * Keys are stored as their SHA-256 hash and prefix only, in a collection of their own, and checked against the store
 * of record on every request, so a revocation stops a key on every instance at once. The full key's rotation does not
 * end them: each is revoked by its own prefix.
 *
 * The daily limit is a ledger in the store: a route that moves USDC out reserves its amount for the key and the UTC
 * day before the transaction is sent, atomically (ScopedKeyStore.reserveUsdc), so instances sharing the store and a
 * restarted instance count against one total. A reservation is named by its request's Idempotency-Key, so a retry is
 * counted once; it stands even when the transaction then fails (a failed transfer may have cost the limit, never more).
 */

/** Live (unexpired, unrevoked) scoped keys one agent may hold: a leaked full key cannot flood the store. */
export const MAX_LIVE_SCOPED_KEYS = 20;

const NONCE_ROUTE = "POST /api/v1/agents/{agent_id}/keys/nonce";
const RAISE_THE_LIMIT =
  "issue a key with a higher usdc_per_day: POST /api/v1/agent/keys with the full key, or by the agent's wallet " +
  "signature (POST /api/v1/agents/{agent_id}/keys/nonce, then POST /api/v1/agents/{agent_id}/keys)";

export interface ScopedKeyRecord {
  /** `${agentId}:${keyPrefix}`: a prefix names one key of its agent. */
  keyId: string;
  agentId: string;
  /** SHA-256 hex of the key: the only form of it that is stored. */
  keyHash: string;
  keyPrefix: string;
  label: string | null;
  scope: KeyScope;
  issuedBy: "full_key" | "wallet";
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A reservation against a key's daily limit. */
export interface UsdcReservation {
  keyId: string;
  /** The UTC day (YYYY-MM-DD) it counts in. */
  day: string;
  /** Names the request: the same claim reserved again is the same reservation, counted once. */
  claim: string;
  amount: bigint;
  limit: bigint;
}

export interface ReservationResult {
  reserved: boolean;
  /** Spent on the day after this reservation when reserved; before it (without it) when refused. */
  spent: bigint;
}

export interface ScopedKeyStore {
  /** Throws DuplicateKeyError("keyId" | "keyHash") when either is taken. */
  insert(record: ScopedKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ScopedKeyRecord | null>;
  findById(keyId: string): Promise<ScopedKeyRecord | null>;
  /** Every scoped key of the agent, revoked and expired ones included, newest first. */
  listByAgent(agentId: string): Promise<ScopedKeyRecord[]>;
  /** Marks the key revoked at `at` unless it already is (the first revocation time stays); null if unknown. */
  revoke(keyId: string, at: Date): Promise<ScopedKeyRecord | null>;
  /** Records a use of the key at `at` (a missed write only ages it). */
  touch(keyId: string, at: Date): Promise<void>;
  /**
   * Adds `amount` to what the key spent on `day` if the total stays within `limit`, atomically against every other
   * reservation of the key and day from any process; a claim reserved before is not added again (reserved: true).
   */
  reserveUsdc(reservation: UsdcReservation): Promise<ReservationResult>;
  /** What the key spent on `day`. */
  spentOn(keyId: string, day: string): Promise<bigint>;
}

/** What a new scoped key may do, its label and lifetime. */
export interface ScopedKeyRequest {
  label: string | null;
  scope: KeyScope;
  lifetimeSeconds: number;
}

export interface IssuedScopedKey {
  record: ScopedKeyRecord;
  /** The key in clear: returned once, never stored. */
  apiKey: string;
}

export type ScopedKeyState = "active" | "expired" | "revoked";

export function scopedKeyState(record: ScopedKeyRecord, now: Date): ScopedKeyState {
  if (record.revokedAt) return "revoked";
  return record.expiresAt.getTime() <= now.getTime() ? "expired" : "active";
}

export class ScopedKeys {
  constructor(
    private readonly store: ScopedKeyStore,
    private readonly agents: AgentService,
    private readonly signed: SignedNonces,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A scoped key issued with the agent's full key. */
  issue(agent: AgentRecord, request: ScopedKeyRequest): Promise<IssuedScopedKey> {
    return this.#issue(agent, request, "full_key");
  }

  /** A nonce for the agent's wallet and the message naming the scope it will sign. */
  async issueNonce(agentId: string, request: ScopedKeyRequest): Promise<IssuedNonce> {
    const agent = await this.agents.getById(agentId);
    return this.signed.issue(agent.walletAddress, statementOf(agent, request));
  }

  /** A scoped key issued by the agent wallet's signature of the message naming exactly this scope. */
  async issueBySignature(
    agentId: string,
    request: ScopedKeyRequest,
    nonce: string,
    signature: string,
  ): Promise<IssuedScopedKey> {
    const agent = await this.agents.getById(agentId);
    await this.signed.prove(nonce, signature, [agent.walletAddress], statementOf(agent, request), {
      denied: "signature: only the agent's wallet (the one that registered it) can issue a scoped key by signature",
      nonceRoute: NONCE_ROUTE,
      signature:
        "not a valid signature by the agent's wallet of the scoped key message issued with this nonce " +
        "(the scope, label and expires_in_seconds must be those sent to the nonce step)",
    });
    return this.#issue(agent, request, "wallet");
  }

  /**
   * The agent and scoped key of an API key, or null when it is no scoped key; 401 naming the moment when the key was
   * revoked or has expired.
   */
  async authenticate(apiKey: string): Promise<{ agent: AgentRecord; key: ScopedKeyRecord } | null> {
    const key = await this.store.findByHash(hashApiKey(apiKey));
    if (!key) return null;
    const now = this.clock();
    if (key.revokedAt) {
      throw new AuthenticationError(`API key ${key.keyPrefix} was revoked at ${key.revokedAt.toISOString()}`, {
        api_key_prefix: key.keyPrefix,
        revoked_at: key.revokedAt.toISOString(),
      });
    }
    if (scopedKeyState(key, now) === "expired") {
      throw new AuthenticationError(
        `API key ${key.keyPrefix} expired at ${key.expiresAt.toISOString()}; issue a new scoped key: ` +
          "POST /api/v1/agent/keys with the full key",
        { api_key_prefix: key.keyPrefix, expires_at: key.expiresAt.toISOString() },
      );
    }
    const agent = await this.agents.getById(key.agentId);
    if (now.getTime() - (key.lastUsedAt?.getTime() ?? 0) >= KEY_USE_RESOLUTION_MS) {
      // Not awaited: the last use is a hint, not a record of every call.
      this.store.touch(key.keyId, now).catch(() => undefined);
    }
    return { agent, key };
  }

  /** The agent's scoped keys, newest first. */
  list(agentId: string): Promise<ScopedKeyRecord[]> {
    return this.store.listByAgent(agentId);
  }

  /** Whether the key is active, expired or revoked now (the service's clock). */
  stateOf(key: ScopedKeyRecord): ScopedKeyState {
    return scopedKeyState(key, this.clock());
  }

  /** Revokes the agent's scoped key `prefix`: 404 when it has none by that prefix, 409 when revoked already. */
  async revoke(agent: AgentRecord, prefix: string): Promise<ScopedKeyRecord> {
    const keyId = scopedKeyId(agent.agentId, prefix);
    const key = await this.store.findById(keyId);
    if (!key) {
      const hint =
        prefix === agent.apiKeyPrefix
          ? "; it is the agent's full key, revoked by the wallet's or operator's signature: " +
            "POST /api/v1/agents/{agent_id}/key/revoke"
          : "";
      throw new NotFoundError(`prefix: the agent has no scoped key ${prefix}${hint}`);
    }
    if (key.revokedAt) {
      throw new ConflictError(`the scoped key ${prefix} was revoked already, at ${key.revokedAt.toISOString()}`);
    }
    const revoked = await this.store.revoke(keyId, this.clock());
    if (!revoked) throw new NotFoundError(`prefix: the agent has no scoped key ${prefix}`);
    return revoked;
  }

  /** A nonce for `signer` and the message revoking the agent's scoped key `prefix` (the full key's message form). */
  async issueRevocationNonce(agentId: string, signer: string, prefix: string): Promise<IssuedNonce> {
    const agent = await this.agents.getById(agentId);
    await this.#existing(agent, prefix);
    return this.signed.issue(signer, keyRevocationStatement(agent.agentId, prefix));
  }

  /**
   * Revokes the agent's scoped key `prefix` by the signature of the agent's wallet or its operator, as the full key is
   * revoked: neither needs an API key, so a scoped key handed to an LLM is stopped without the full key.
   */
  async revokeBySignature(agentId: string, prefix: string, nonce: string, signature: string): Promise<ScopedKeyRecord> {
    const agent = await this.agents.getById(agentId);
    const key = await this.#existing(agent, prefix);
    if (key.revokedAt) {
      throw new ConflictError(`the scoped key ${prefix} was revoked already, at ${key.revokedAt.toISOString()}`);
    }
    await this.signed.prove(
      nonce,
      signature,
      [agent.walletAddress, agent.operatorAddress],
      keyRevocationStatement(agent.agentId, prefix),
      {
        denied: "signature: only the agent's wallet or its operator can revoke its key",
        nonceRoute: "POST /api/v1/agents/{agent_id}/key/nonce",
        signature: "not a valid signature by the agent's wallet or operator of the revocation message of this nonce",
      },
    );
    const revoked = await this.store.revoke(key.keyId, this.clock());
    if (!revoked) throw new NotFoundError(`api_key_prefix: the agent has no scoped key ${prefix}`);
    return revoked;
  }

  async #existing(agent: AgentRecord, prefix: string): Promise<ScopedKeyRecord> {
    const key = await this.store.findById(scopedKeyId(agent.agentId, prefix));
    if (!key) {
      throw new NotFoundError(
        `api_key_prefix: the agent has no scoped key ${prefix} (omit api_key_prefix to revoke the full key)`,
      );
    }
    return key;
  }

  /**
   * Reserves `amount` micro-USDC leaving the agent's wallet against the key's daily limit, before the transaction is
   * sent; 403 naming the limit, what is spent today, what this request needs, when the limit resets and how to raise
   * it. `claim` names the request (its operation and Idempotency-Key), so a retry is counted once.
   */
  async reserveUsdc(key: ScopedKeyRecord, amount: bigint, claim: string | undefined): Promise<void> {
    const limit = key.scope.usdcPerDay;
    if (limit === null) return;
    const now = this.clock();
    const day = utcDay(now);
    const result = await this.store.reserveUsdc({
      keyId: key.keyId,
      day,
      claim: claim ?? randomUUID(),
      amount,
      limit,
    });
    if (result.reserved) return;
    const resetsAt = nextUtcMidnight(now).toISOString();
    throw new PermissionError(
      `usdc_per_day: the scoped key ${key.keyPrefix} may move ${limit} USDC base units (${usdcString(limit)} USDC) ` +
        `out of the agent's wallet per UTC day; spent today: ${result.spent} (${usdcString(result.spent)} USDC); ` +
        `this request needs ${amount} (${usdcString(amount)} USDC); the limit resets at ${resetsAt}. ` +
        `To raise it, ${RAISE_THE_LIMIT}`,
      {
        api_key_prefix: key.keyPrefix,
        usdc_per_day: limit.toString(),
        spent_today: result.spent.toString(),
        needed: amount.toString(),
        resets_at: resetsAt,
      },
    );
  }

  async #issue(
    agent: AgentRecord,
    request: ScopedKeyRequest,
    issuedBy: ScopedKeyRecord["issuedBy"],
  ): Promise<IssuedScopedKey> {
    const now = this.clock();
    const live = (await this.store.listByAgent(agent.agentId)).filter((key) => scopedKeyState(key, now) === "active");
    if (live.length >= MAX_LIVE_SCOPED_KEYS) {
      throw new ConflictError(
        `the agent holds ${live.length} live scoped keys, the most allowed (${MAX_LIVE_SCOPED_KEYS}); revoke one ` +
          "first: DELETE /api/v1/agent/keys/{prefix}",
      );
    }
    for (;;) {
      const apiKey = generateApiKey();
      const prefix = apiKeyPrefix(apiKey);
      const record: ScopedKeyRecord = {
        keyId: scopedKeyId(agent.agentId, prefix),
        agentId: agent.agentId,
        keyHash: hashApiKey(apiKey),
        keyPrefix: prefix,
        label: request.label,
        scope: request.scope,
        issuedBy,
        createdAt: now,
        expiresAt: new Date(now.getTime() + request.lifetimeSeconds * 1000),
        lastUsedAt: null,
        revokedAt: null,
      };
      try {
        await this.store.insert(record);
        return { record, apiKey };
      } catch (error) {
        // A clash of random keys or prefixes: draw again.
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
    }
  }
}

export function scopedKeyId(agentId: string, prefix: string): string {
  return `${agentId}:${prefix}`;
}

function statementOf(agent: AgentRecord, request: ScopedKeyRequest): string {
  return scopedKeyStatement(agent.agentId, describeScope(request.scope), request.label, request.lifetimeSeconds);
}
