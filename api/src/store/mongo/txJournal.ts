import type { Collection, Db } from "mongodb";
import type {
  NewIntent,
  TxExpectation,
  TxJournalEntry,
  TxJournalStore,
  TxPatch,
  TxState,
  WalletLease,
} from "../../tx/journal";
import { newIntentEntry, OPEN_STATES } from "../../tx/journal";
import { retryBusy } from "./busy";
import { isDuplicate } from "./duplicate";

/**
 * MongoDB journal and leases, written for what FerretDB v1 serves correctly and fast.
 *
 * FerretDB v1 (SQLite backend) does NOT apply a conditional update atomically: of concurrent
 * `updateOne({ _id, state: "a" }, { $set: { state: "b" } })` calls, several may report a modification, and
 * `findOneAndUpdate` behaves the same. An insert into the unique `_id` is atomic, and lookups by `_id` are the
 * only ones it answers without scanning the collection. So:
 * - The journal is append-only. `tx_intents` holds each intent as recorded (`_id` = intent key). Each transition
 *   inserts a snapshot of the whole entry into `tx_steps` with `_id = "<intentKey>#<version>"`; the entry is the
 *   snapshot of the highest version. A transition reads the entry, checks the expectation in code, and inserts the
 *   next version: of concurrent writers from one version exactly one insert succeeds.
 * - Reading an entry probes `_id`s upward from the last version this process saw, so a read of an entry nobody
 *   else moved is one lookup.
 * - `tx_open` lists the keys of open entries (added before an entry can be open, removed after it is final), so
 *   that start-up and lease take-over read only what is open, not the whole history.
 * - A wallet lease is a series of epochs, `_id = "<wallet>#<epoch>"`; taking a free or expired lease inserts the
 *   next epoch. Only the holder of the newest epoch writes to it (renewal, release), so those updates never race.
 *   Expiry is compared with the caller's clock in code; no TTL index is relied on.
 */

interface IntentDoc {
  _id: string;
  wallet: TxJournalEntry["wallet"];
  from: string;
  chainId: number;
  to: string;
  data: string;
  value: string;
  kind: string;
  requestor: string | null;
  meta: TxJournalEntry["meta"];
  after: string | null;
  createdAt: Date;
}

interface StepDoc {
  _id: string;
  intentKey: string;
  version: number;
  entry: Omit<TxJournalEntry, "intentKey">;
}

interface OpenDoc {
  _id: string;
  from: string;
  createdAt: Date;
}

interface LeaseDoc {
  _id: string;
  wallet: string;
  epoch: number;
  holder: string;
  expiresAt: Date;
  released: boolean;
}

/** A marker in tx_open whose entry is final (or missing) for this long is a leftover of a crash: removed. */
const STALE_OPEN_MARKER_MS = 60_000;

export const TX_INTENTS_COLLECTION = "tx_intents";
export const TX_STEPS_COLLECTION = "tx_steps";
export const TX_OPEN_COLLECTION = "tx_open";
export const TX_LEASES_COLLECTION = "tx_leases";

interface Versioned {
  readonly entry: TxJournalEntry;
  readonly version: number;
}

export class MongoTxJournal implements TxJournalStore {
  readonly #intents: Collection<IntentDoc>;
  readonly #steps: Collection<StepDoc>;
  readonly #open: Collection<OpenDoc>;
  readonly #leases: Collection<LeaseDoc>;
  /** Entries this process wrote or read last, by key: where reads start probing for newer versions. */
  readonly #recent = new Map<string, Versioned>();

  constructor(db: Db) {
    this.#intents = db.collection<IntentDoc>(TX_INTENTS_COLLECTION);
    this.#steps = db.collection<StepDoc>(TX_STEPS_COLLECTION);
    this.#open = db.collection<OpenDoc>(TX_OPEN_COLLECTION);
    this.#leases = db.collection<LeaseDoc>(TX_LEASES_COLLECTION);
  }

  async init(): Promise<void> {
    await retryBusy(() => this.#intents.createIndex({ requestor: 1, createdAt: -1 }, { name: "by_requestor" }));
    await retryBusy(() => this.#open.createIndex({ from: 1, createdAt: 1 }, { name: "by_wallet" }));
    await retryBusy(() => this.#leases.createIndex({ wallet: 1, epoch: -1 }, { name: "by_wallet" }));
  }

  async createIntent(intent: NewIntent, now: Date = new Date()): Promise<{ created: boolean; entry: TxJournalEntry }> {
    const { intentKey, ...rest } = intent;
    const doc: IntentDoc = {
      _id: intentKey,
      ...rest,
      from: intent.from.toLowerCase(),
      to: intent.to.toLowerCase(),
      createdAt: now,
    };
    // The open marker first: an intent must never exist without it, or a crash right here would hide it from
    // reconcile. A marker without an intent is harmless (listOpen skips it).
    await ignoreDuplicate(() => this.#open.insertOne({ _id: intentKey, from: doc.from, createdAt: now }));
    try {
      await retryBusy(() => this.#intents.insertOne(doc));
      return { created: true, entry: this.#remember({ entry: initialEntry(doc), version: 0 }).entry };
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      const existing = await this.#load(intentKey);
      if (!existing) throw err;
      return { created: false, entry: existing.entry };
    }
  }

  async get(intentKey: string): Promise<TxJournalEntry | null> {
    return (await this.#load(intentKey))?.entry ?? null;
  }

  async transition(
    intentKey: string,
    expect: TxExpectation,
    patch: TxPatch,
    now: Date = new Date(),
  ): Promise<TxJournalEntry | null> {
    // Optimistic: start from the entry this process last saw, without reading. If it is stale, the insert of its
    // next version collides (that version exists) and we read the truth; if it fails the expectation we read too,
    // since only the stored entry may refuse a transition.
    let current: Versioned | null = this.#recent.get(intentKey) ?? null;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (!current || !matches(current.entry, expect)) {
        current = await this.#load(intentKey);
        if (!current || !matches(current.entry, expect)) return null;
      }
      const next: TxJournalEntry = { ...current.entry, ...patch, updatedAt: now };
      const version = current.version + 1;
      const reopening = !isOpen(current.entry.state) && isOpen(next.state);
      if (reopening) {
        await ignoreDuplicate(() =>
          this.#open.insertOne({ _id: intentKey, from: next.from, createdAt: next.createdAt }),
        );
      }
      const { intentKey: _key, ...snapshot } = next;
      void _key;
      try {
        await retryBusy(() =>
          this.#steps.insertOne({ _id: stepId(intentKey, version), intentKey, version, entry: snapshot }),
        );
      } catch (err) {
        if (!isDuplicate(err)) throw err;
        current = null; // someone moved it from this version first: read again and re-check the expectation
        continue;
      }
      this.#remember({ entry: next, version });
      if (isOpen(current.entry.state) && !isOpen(next.state))
        await retryBusy(() => this.#open.deleteOne({ _id: intentKey }));
      return next;
    }
    return null;
  }

  async listOpen(from?: string): Promise<TxJournalEntry[]> {
    const filter = from === undefined ? {} : { from: from.toLowerCase() };
    const markers = await retryBusy(() => this.#open.find(filter).sort({ createdAt: 1, _id: 1 }).toArray());
    const open: TxJournalEntry[] = [];
    for (const marker of markers) {
      const loaded = await this.#load(marker._id);
      if (loaded && isOpen(loaded.entry.state)) {
        open.push(loaded.entry);
        continue;
      }
      const age = Date.now() - (loaded?.entry.updatedAt ?? marker.createdAt).getTime();
      if (age > STALE_OPEN_MARKER_MS) await retryBusy(() => this.#open.deleteOne({ _id: marker._id }));
    }
    return open;
  }

  async listByRequestor(requestor: string, limit: number): Promise<TxJournalEntry[]> {
    const docs = await retryBusy(() =>
      this.#intents.find({ requestor }).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray(),
    );
    const entries: TxJournalEntry[] = [];
    for (const doc of docs) {
      const loaded = await this.#load(doc._id);
      if (loaded) entries.push(loaded.entry);
    }
    return entries;
  }

  async findByHash(hash: string): Promise<TxJournalEntry | null> {
    // Hashes are written lowercase (ethers' hexlify); any snapshot that carried it names the intent.
    const wanted = hash.toLowerCase();
    const step = await retryBusy(() =>
      this.#steps.findOne(
        { $or: [{ "entry.hash": wanted }, { "entry.replacedHashes": wanted }] },
        { projection: { intentKey: 1 } },
      ),
    );
    return step ? this.get(step.intentKey) : null;
  }

  async acquireLease(wallet: string, holder: string, ttlMs: number, now: Date = new Date()): Promise<boolean> {
    const key = wallet.toLowerCase();
    const expiresAt = new Date(now.getTime() + ttlMs);
    const latest = await this.#latestLease(key);
    if (latest && !latest.released && latest.holder === holder) {
      // Renewal: only the holder writes its own epoch. Then make sure nobody took the next epoch meanwhile
      // (possible only if this renewal came after expiry).
      await retryBusy(() => this.#leases.updateOne({ _id: latest._id }, { $set: { expiresAt } }));
      return (await retryBusy(() => this.#leases.findOne({ _id: leaseId(key, latest.epoch + 1) }))) === null;
    }
    if (latest && !latest.released && latest.expiresAt.getTime() > now.getTime()) return false;
    const epoch = (latest?.epoch ?? 0) + 1;
    try {
      await retryBusy(() =>
        this.#leases.insertOne({ _id: leaseId(key, epoch), wallet: key, epoch, holder, expiresAt, released: false }),
      );
    } catch (err) {
      if (isDuplicate(err)) return false;
      throw err;
    }
    // Old epochs are history only; keep the previous one, drop the rest.
    await retryBusy(() => this.#leases.deleteMany({ wallet: key, epoch: { $lt: epoch - 1 } }));
    return true;
  }

  async releaseLease(wallet: string, holder: string): Promise<void> {
    const latest = await this.#latestLease(wallet.toLowerCase());
    if (latest && latest.holder === holder && !latest.released) {
      await retryBusy(() => this.#leases.updateOne({ _id: latest._id }, { $set: { released: true } }));
    }
  }

  async getLease(wallet: string): Promise<WalletLease | null> {
    const latest = await this.#latestLease(wallet.toLowerCase());
    if (!latest || latest.released) return null;
    return { wallet: latest.wallet, holder: latest.holder, expiresAt: latest.expiresAt };
  }

  async #latestLease(wallet: string): Promise<LeaseDoc | null> {
    const [latest] = await retryBusy(() => this.#leases.find({ wallet }).sort({ epoch: -1 }).limit(1).toArray());
    return latest ?? null;
  }

  /** The entry at its highest version: starts from what this process last saw and probes `_id`s upward. */
  async #load(intentKey: string): Promise<Versioned | null> {
    let current = this.#recent.get(intentKey) ?? null;
    if (!current) {
      const doc = await retryBusy(() => this.#intents.findOne({ _id: intentKey }));
      if (!doc) return null;
      current = { entry: initialEntry(doc), version: 0 };
    }
    for (;;) {
      const next = stepId(intentKey, current.version + 1);
      const step: StepDoc | null = await retryBusy(() => this.#steps.findOne({ _id: next }));
      if (!step) break;
      current = { entry: { intentKey, ...step.entry }, version: step.version };
    }
    return this.#remember(current);
  }

  #remember(versioned: Versioned): Versioned {
    const key = versioned.entry.intentKey;
    this.#recent.delete(key);
    this.#recent.set(key, versioned);
    if (this.#recent.size > 5_000) {
      const oldest = this.#recent.keys().next().value;
      if (oldest !== undefined) this.#recent.delete(oldest);
    }
    return versioned;
  }
}

function initialEntry(doc: IntentDoc): TxJournalEntry {
  const { _id, createdAt, ...intent } = doc;
  return newIntentEntry({ intentKey: _id, ...intent }, createdAt);
}

function matches(entry: TxJournalEntry, expect: TxExpectation): boolean {
  return expect.states.includes(entry.state) && (expect.hash === undefined || entry.hash === expect.hash);
}

function isOpen(state: TxState): boolean {
  return OPEN_STATES.includes(state);
}

function stepId(intentKey: string, version: number): string {
  return `${intentKey}#${version}`;
}

function leaseId(wallet: string, epoch: number): string {
  return `${wallet}#${epoch}`;
}

async function ignoreDuplicate(write: () => Promise<unknown>): Promise<void> {
  try {
    await retryBusy(write);
  } catch (err) {
    if (!isDuplicate(err)) throw err;
  }
}
