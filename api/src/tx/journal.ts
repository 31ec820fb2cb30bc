import type { WalletRef } from "../chain/wallets";
import type { JsonValue } from "../errors";
import type { JournalError } from "./errors";

/**
 * The transaction journal and the per-wallet leases of the transaction engine, as the engine needs them: the store
 * interface belongs here, beside its one user. Two adapters implement it (store/memory/txJournal.ts,
 * store/mongo/txJournal.ts) and pass one conformance suite
 * (test/api/tx/journalConformance.ts). Every state change is a conditional update on the expected state, so
 * that two writers can never both move one entry, without needing database transactions.
 *
 * Lifecycle of an entry:
 *   intent ──sign──> signed ──broadcast──> broadcast ──receipt──> mined (status 1 success, 0 reverted)
 *      │                │                      │
 *      └──> failed <────┴──────────────────────┘   (failed: never mined; `error` says why)
 *   A failed entry without a hash (nothing was signed) may be reopened to intent by a retry with the same key.
 *   A signed/broadcast entry whose nonce was taken by another transaction is re-signed (signed → signed, new
 *   hash), which is safe because its old transaction can no longer be mined.
 */

export type TxState = "intent" | "signed" | "broadcast" | "mined" | "failed";

export const FINAL_STATES: readonly TxState[] = ["mined", "failed"];
export const OPEN_STATES: readonly TxState[] = ["intent", "signed", "broadcast"];

export interface TxJournalEntry {
  /** Unique key of the intent (derived from the Idempotency-Key, or random). */
  readonly intentKey: string;
  /** Which server wallet signs. */
  readonly wallet: WalletRef;
  /** Address of that wallet, lowercase 0x-hex. */
  readonly from: string;
  readonly chainId: number;
  /** Target address, lowercase 0x-hex. */
  readonly to: string;
  readonly data: string;
  /** Wei, decimal string. */
  readonly value: string;
  /** Operation name, e.g. "vault.approve", "vault.deposit", "strategy.submit", "faucet.drip". */
  readonly kind: string;
  /** Who asked (agent id, "system"...). */
  readonly requestor: string | null;
  /** Free data for the caller (vault id, amount...), returned as stored. */
  readonly meta: Record<string, JsonValue>;
  /** Intent key that must be mined successfully before this one is signed (multi-step operations). */
  readonly after: string | null;
  readonly state: TxState;
  readonly nonce: number | null;
  readonly hash: string | null;
  readonly rawTx: string | null;
  /** Earlier hashes of this intent whose nonce was taken by another transaction (never mined). */
  readonly replacedHashes: readonly string[];
  readonly blockNumber: number | null;
  readonly gasUsed: string | null;
  /** Receipt status: 1 success, 0 reverted onchain. */
  readonly status: number | null;
  readonly error: JournalError | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Fields given when an intent is recorded; everything else starts empty. */
export type NewIntent = Pick<
  TxJournalEntry,
  "intentKey" | "wallet" | "from" | "chainId" | "to" | "data" | "value" | "kind" | "requestor" | "meta" | "after"
>;

/**
 * The entry of an intent just recorded: addresses lowercase, nothing signed yet. Both adapters build it here so that
 * a new entry looks the same whichever store holds it.
 */
export function newIntentEntry(intent: NewIntent, createdAt: Date): TxJournalEntry {
  return {
    ...intent,
    from: intent.from.toLowerCase(),
    to: intent.to.toLowerCase(),
    state: "intent",
    nonce: null,
    hash: null,
    rawTx: null,
    replacedHashes: [],
    blockNumber: null,
    gasUsed: null,
    status: null,
    error: null,
    createdAt,
    updatedAt: createdAt,
  };
}

/** Fields a transition may set. */
export type TxPatch = Partial<
  Pick<
    TxJournalEntry,
    | "state"
    | "nonce"
    | "hash"
    | "rawTx"
    | "replacedHashes"
    | "blockNumber"
    | "gasUsed"
    | "status"
    | "error"
    | "to"
    | "data"
    | "value"
    | "meta"
  >
>;

/** Conditions a transition checks atomically against the stored entry. */
export interface TxExpectation {
  /** The entry must be in one of these states. */
  readonly states: readonly TxState[];
  /** When given, the entry's hash must equal it (null: must have no hash). */
  readonly hash?: string | null;
}

export interface WalletLease {
  readonly wallet: string;
  readonly holder: string;
  readonly expiresAt: Date;
}

export interface TxJournalStore {
  /** Creates indexes and collections; idempotent. */
  init(): Promise<void>;

  /**
   * Records an intent unless its key exists. Returns the stored entry and whether this call created it
   * (exactly one of many concurrent calls with one key gets created = true).
   */
  createIntent(intent: NewIntent, now?: Date): Promise<{ created: boolean; entry: TxJournalEntry }>;

  get(intentKey: string): Promise<TxJournalEntry | null>;

  /**
   * Applies `patch` only if the entry still matches `expect`; returns the updated entry, or null when it did not
   * match (another writer moved it first, or it does not exist).
   */
  transition(intentKey: string, expect: TxExpectation, patch: TxPatch, now?: Date): Promise<TxJournalEntry | null>;

  /** Entries not final (intent, signed, broadcast), oldest first; optionally of one wallet (`from`). */
  listOpen(from?: string): Promise<TxJournalEntry[]>;

  /** Entries of one requestor, newest first (for listings and audits). */
  listByRequestor(requestor: string, limit: number): Promise<TxJournalEntry[]>;

  /**
   * The entry whose transaction has `hash` (0x-hex, any letter case), as its current hash or one it replaced, or
   * null (the status endpoint of a transaction the service sent).
   */
  findByHash(hash: string): Promise<TxJournalEntry | null>;

  /**
   * Takes or renews the lease of `wallet` for `holder` until now + ttlMs. Succeeds when the lease is free, expired
   * (expiry compared with `now` in code, no TTL index needed) or already held by `holder`. Exactly one of many
   * concurrent callers with distinct holders succeeds.
   */
  acquireLease(wallet: string, holder: string, ttlMs: number, now?: Date): Promise<boolean>;

  /** Gives the lease up if `holder` holds it. */
  releaseLease(wallet: string, holder: string): Promise<void>;

  getLease(wallet: string): Promise<WalletLease | null>;
}
