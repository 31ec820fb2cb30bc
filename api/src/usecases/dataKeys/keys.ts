import { randomBytes } from "node:crypto";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "../../domain/apiKeys";
import type { Scope } from "./scopes";

/**
 * Data API keys: issued once in clear, stored as their SHA-256 hash with a short prefix (to recognise a key in a
 * list), an owner, a tier, scopes, an expiry and, once revoked, the revocation time. The store interface below is
 * what this module needs; store/memory and store/mongo implement it.
 */

export const DATA_KEY_PREFIX = "napd-";
export const DATA_KEY_PATTERN = /^napd-[0-9A-Za-z]{32}$/;
/** Keys of the live API (X-API-Key), recognised to tell a caller who sends one here what to do instead. */
export const LIVE_KEY_PATTERN = /^nap-[0-9A-Za-z]{32}$/;

/** A key's default and longest lifetime, in days (the wire contract's, which tells clients). */
export { DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS } from "../../../../packages/wire/src/data/vocabulary";
/** Live (unexpired, unrevoked) keys one owner may hold: a leaked issuing credential cannot flood the store. */
export const MAX_LIVE_KEYS_PER_OWNER = 10;

/** The tiers a key may stand for (without a key, a caller reads on the Public tier). */
export type KeyTier = "authenticated" | "node_operator";

/** Who a key belongs to: `agent:<agentId>`, `wallet:<lowercase address>` or `operator:<label>`. */
export type KeyOwner = string;

export interface DataKeyRecord {
  keyId: string;
  /** SHA-256 hex of the key: the only form of the key that is stored. */
  keyHash: string;
  /** `napd-` and the first 7 characters of the key body. */
  keyPrefix: string;
  owner: KeyOwner;
  name: string;
  tier: KeyTier;
  scopes: Scope[];
  /** Who issued it: the owner itself, or `operator:<n>` for keys an operator issued. */
  issuedBy: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
}

export interface DataKeyStore {
  /** Throws DuplicateKeyError("keyId" | "keyHash") when either is taken. */
  insert(record: DataKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<DataKeyRecord | null>;
  findById(keyId: string): Promise<DataKeyRecord | null>;
  /** Every key of the owner, revoked and expired ones included, newest first. */
  listByOwner(owner: KeyOwner): Promise<DataKeyRecord[]>;
  /** Marks the key revoked at `at` unless it already is (the first revocation time stays); null if unknown. */
  revoke(keyId: string, at: Date): Promise<DataKeyRecord | null>;
}

export type KeyState = "active" | "expired" | "revoked";

export function keyState(record: DataKeyRecord, now: Date): KeyState {
  if (record.revokedAt) return "revoked";
  if (record.expiresAt.getTime() <= now.getTime()) return "expired";
  return "active";
}

/** A new key in clear and the record that stands for it. */
export function newDataKey(fields: Omit<DataKeyRecord, "keyId" | "keyHash" | "keyPrefix">): {
  key: string;
  record: DataKeyRecord;
} {
  const key = generateApiKey(DATA_KEY_PREFIX);
  const record: DataKeyRecord = {
    keyId: `dk_${randomBytes(8).toString("hex")}`,
    keyHash: hashApiKey(key),
    keyPrefix: apiKeyPrefix(key),
    ...fields,
  };
  return { key, record };
}
