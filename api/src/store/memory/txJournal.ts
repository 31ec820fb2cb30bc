import type { NewIntent, TxExpectation, TxJournalEntry, TxJournalStore, TxPatch, WalletLease } from "../../tx/journal";
import { newIntentEntry, OPEN_STATES } from "../../tx/journal";

/**
 * In-memory journal and leases for a single process (tests, `npm start` without a database). Every method runs
 * its check and its write in one synchronous step, so JavaScript's single thread makes each of them atomic.
 * Entries are immutable snapshots: each write stores a new, deeply frozen entry, and reads hand that snapshot out
 * as it is (no copy per read, on the engine's hot path), so no caller can change what the store holds.
 */
export class MemoryTxJournal implements TxJournalStore {
  readonly #entries = new Map<string, TxJournalEntry>();
  readonly #leases = new Map<string, WalletLease>();

  async init(): Promise<void> {}

  async createIntent(intent: NewIntent, now: Date = new Date()): Promise<{ created: boolean; entry: TxJournalEntry }> {
    const existing = this.#entries.get(intent.intentKey);
    if (existing) return { created: false, entry: existing };
    const entry = frozen(newIntentEntry(intent, now));
    this.#entries.set(intent.intentKey, entry);
    return { created: true, entry };
  }

  async get(intentKey: string): Promise<TxJournalEntry | null> {
    const entry = this.#entries.get(intentKey);
    return entry ?? null;
  }

  async transition(
    intentKey: string,
    expect: TxExpectation,
    patch: TxPatch,
    now: Date = new Date(),
  ): Promise<TxJournalEntry | null> {
    const entry = this.#entries.get(intentKey);
    if (!entry || !expect.states.includes(entry.state)) return null;
    if (expect.hash !== undefined && entry.hash !== expect.hash) return null;
    // The entry is frozen already: only the patch's values need freezing.
    const next: Record<string, unknown> = { ...entry, updatedAt: new Date(now) };
    for (const [field, value] of Object.entries(patch)) next[field] = frozen(value);
    Object.freeze(next);
    this.#entries.set(intentKey, next as unknown as TxJournalEntry);
    return next as unknown as TxJournalEntry;
  }

  async listOpen(from?: string): Promise<TxJournalEntry[]> {
    const wallet = from?.toLowerCase();
    return [...this.#entries.values()]
      .filter((e) => OPEN_STATES.includes(e.state) && (wallet === undefined || e.from === wallet))
      .sort(byCreation);
  }

  async listByRequestor(requestor: string, limit: number): Promise<TxJournalEntry[]> {
    return [...this.#entries.values()]
      .filter((e) => e.requestor === requestor)
      .sort((a, b) => byCreation(b, a))
      .slice(0, limit);
  }

  async findByHash(hash: string): Promise<TxJournalEntry | null> {
    const wanted = hash.toLowerCase();
    for (const entry of this.#entries.values()) {
      if (entry.hash?.toLowerCase() === wanted || entry.replacedHashes.some((h) => h.toLowerCase() === wanted)) {
        return entry;
      }
    }
    return null;
  }

  async acquireLease(wallet: string, holder: string, ttlMs: number, now: Date = new Date()): Promise<boolean> {
    const key = wallet.toLowerCase();
    const lease = this.#leases.get(key);
    if (lease && lease.holder !== holder && lease.expiresAt.getTime() > now.getTime()) return false;
    this.#leases.set(key, { wallet: key, holder, expiresAt: new Date(now.getTime() + ttlMs) });
    return true;
  }

  async releaseLease(wallet: string, holder: string): Promise<void> {
    const key = wallet.toLowerCase();
    if (this.#leases.get(key)?.holder === holder) this.#leases.delete(key);
  }

  async getLease(wallet: string): Promise<WalletLease | null> {
    const lease = this.#leases.get(wallet.toLowerCase());
    return lease ? { ...lease, expiresAt: new Date(lease.expiresAt) } : null;
  }
}

function byCreation(a: TxJournalEntry, b: TxJournalEntry): number {
  // Array.prototype.sort is stable: entries of one millisecond keep their insertion order.
  return a.createdAt.getTime() - b.createdAt.getTime();
}

/** A deeply frozen copy of `value` (Dates are copied, as freezing does not protect their value). */
function frozen<T>(value: T): T {
  if (value instanceof Date) return new Date(value) as T;
  if (value === null || typeof value !== "object") return value;
  const copy = (
    Array.isArray(value) ? value.map(frozen) : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, frozen(v)]))
  ) as T;
  return Object.freeze(copy);
}
