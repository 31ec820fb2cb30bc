import type { NewIntent, TxExpectation, TxJournalEntry, TxJournalStore, TxPatch, WalletLease } from "../../tx/journal";
import { newIntentEntry, OPEN_STATES } from "../../tx/journal";

/**
 * In-memory journal and leases for a single process (tests, `npm start` without a database). Every method runs
 * its check and its write in one synchronous step, so JavaScript's single thread makes each of them atomic.
 * Entries are copied in and out so that callers never share mutable state with the store.
 */
export class MemoryTxJournal implements TxJournalStore {
  readonly #entries = new Map<string, TxJournalEntry>();
  readonly #leases = new Map<string, WalletLease>();

  async init(): Promise<void> {}

  async createIntent(intent: NewIntent, now: Date = new Date()): Promise<{ created: boolean; entry: TxJournalEntry }> {
    const existing = this.#entries.get(intent.intentKey);
    if (existing) return { created: false, entry: copy(existing) };
    const entry = newIntentEntry(intent, now);
    this.#entries.set(intent.intentKey, copy(entry));
    return { created: true, entry: copy(entry) };
  }

  async get(intentKey: string): Promise<TxJournalEntry | null> {
    const entry = this.#entries.get(intentKey);
    return entry ? copy(entry) : null;
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
    const next: TxJournalEntry = { ...entry, ...copy(patch), updatedAt: now };
    this.#entries.set(intentKey, next);
    return copy(next);
  }

  async listOpen(from?: string): Promise<TxJournalEntry[]> {
    const wallet = from?.toLowerCase();
    return [...this.#entries.values()]
      .filter((e) => OPEN_STATES.includes(e.state) && (wallet === undefined || e.from === wallet))
      .sort(byCreation)
      .map(copy);
  }

  async listByRequestor(requestor: string, limit: number): Promise<TxJournalEntry[]> {
    return [...this.#entries.values()]
      .filter((e) => e.requestor === requestor)
      .sort((a, b) => byCreation(b, a))
      .slice(0, limit)
      .map(copy);
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

function copy<T>(value: T): T {
  return structuredClone(value);
}
