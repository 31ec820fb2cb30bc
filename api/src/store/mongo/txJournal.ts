import { MongoServerError, type Collection, type Db } from "mongodb";
import type {
  NewIntent,
  TxExpectation,
  TxJournalEntry,
  TxJournalStore,
  TxPatch,
  TxState,
  WalletLease,
} from "../txJournal";
import { OPEN_STATES } from "../txJournal";

/**
 * MongoDB journal and leases, written for the subset that FerretDB v1 serves correctly.
 *
 * FerretDB v1 (SQLite backend, measured 2026-11-22) does NOT apply a conditional update atomically: of 50
 * concurrent `updateOne({ _id, state: "a" }, { $set: { state: "b" } })` up to 8 report a modification, and
 * `findOneAndUpdate` behaves the same. An insert into a unique `_id` is atomic. So every decision that must have
 * exactly one winner is an insert:
 * - The journal is an append-only log. `tx_intents` holds each intent as recorded (immutable, plus a cached
 *   state for listing); `tx_steps` holds each transition as a document with `_id = "<intentKey>#<version>"`.
 *   A transition reads the entry (intent folded with its steps), checks the expectation in code, and inserts the
 *   next version: of concurrent writers from one version exactly one insert succeeds.
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
  /** Listing cache: the folded state when it last changed between open and final; the step log is the truth. */
  state: TxState;
  version: number;
}

interface StepDoc {
  _id: string;
  intentKey: string;
  version: number;
  patch: TxPatch;
  at: Date;
}

interface LeaseDoc {
  _id: string;
  wallet: string;
  epoch: number;
  holder: string;
  expiresAt: Date;
  released: boolean;
}

const DUPLICATE_KEY = 11000;

export const TX_INTENTS_COLLECTION = "tx_intents";
export const TX_STEPS_COLLECTION = "tx_steps";
export const TX_LEASES_COLLECTION = "tx_leases";

type Folded = TxJournalEntry & { readonly version: number };

export class MongoTxJournal implements TxJournalStore {
  readonly #intents: Collection<IntentDoc>;
  readonly #steps: Collection<StepDoc>;
  readonly #leases: Collection<LeaseDoc>;
  /** Entries this process wrote or read last, by key: a guess that saves a read per transition. */
  readonly #recent = new Map<string, Folded>();

  constructor(db: Db) {
    this.#intents = db.collection<IntentDoc>(TX_INTENTS_COLLECTION);
    this.#steps = db.collection<StepDoc>(TX_STEPS_COLLECTION);
    this.#leases = db.collection<LeaseDoc>(TX_LEASES_COLLECTION);
  }

  async init(): Promise<void> {
    await this.#intents.createIndex({ state: 1, from: 1, createdAt: 1 }, { name: "open_by_wallet" });
    await this.#intents.createIndex({ requestor: 1, createdAt: -1 }, { name: "by_requestor" });
    await this.#steps.createIndex({ intentKey: 1, version: 1 }, { name: "by_intent" });
    await this.#leases.createIndex({ wallet: 1, epoch: -1 }, { name: "by_wallet" });
  }

  async createIntent(intent: NewIntent, now: Date = new Date()): Promise<{ created: boolean; entry: TxJournalEntry }> {
    const { intentKey, ...rest } = intent;
    const doc: IntentDoc = {
      _id: intentKey,
      ...rest,
      from: intent.from.toLowerCase(),
      to: intent.to.toLowerCase(),
      createdAt: now,
      state: "intent",
      version: 0,
    };
    try {
      await this.#intents.insertOne(doc);
      return { created: true, entry: strip(this.#remember(fold(doc, []))) };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const existing = await this.#load(intentKey);
      if (!existing) throw err;
      return { created: false, entry: strip(existing) };
    }
  }

  async get(intentKey: string): Promise<TxJournalEntry | null> {
    const entry = await this.#load(intentKey);
    return entry ? strip(entry) : null;
  }

  async transition(
    intentKey: string,
    expect: TxExpectation,
    patch: TxPatch,
    now: Date = new Date(),
  ): Promise<TxJournalEntry | null> {
    // Try first from the entry this process last saw: if it is stale, the insert of its next version collides and
    // we load the truth. A cached entry that fails the expectation is also checked against the database.
    let current = this.#recent.get(intentKey) ?? null;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!current || !matches(current, expect)) {
        current = await this.#load(intentKey);
        if (!current || !matches(current, expect)) return null;
      }
      const version = current.version + 1;
      try {
        await this.#steps.insertOne({ _id: `${intentKey}#${version}`, intentKey, version, patch, at: now });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Someone moved it from this version first (or our copy was stale): look again once.
        current = null;
        continue;
      }
      const next: Folded = { ...current, ...patch, updatedAt: now, version };
      this.#remember(next);
      // The listing cache only needs to know open versus final; intermediate states are folded at read time.
      if (isOpen(current.state) !== isOpen(next.state)) {
        await this.#intents.updateOne({ _id: intentKey }, { $set: { state: next.state, version } });
      }
      return strip(next);
    }
    return null;
  }

  async listOpen(from?: string): Promise<TxJournalEntry[]> {
    const filter: Record<string, unknown> = { state: { $in: [...OPEN_STATES] } };
    if (from !== undefined) filter.from = from.toLowerCase();
    const docs = await this.#intents.find(filter).sort({ createdAt: 1, _id: 1 }).toArray();
    const entries = await this.#foldMany(docs);
    return entries.filter((e) => OPEN_STATES.includes(e.state)).map(strip);
  }

  async listByRequestor(requestor: string, limit: number): Promise<TxJournalEntry[]> {
    const docs = await this.#intents.find({ requestor }).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray();
    return (await this.#foldMany(docs)).map(strip);
  }

  async acquireLease(wallet: string, holder: string, ttlMs: number, now: Date = new Date()): Promise<boolean> {
    const key = wallet.toLowerCase();
    const expiresAt = new Date(now.getTime() + ttlMs);
    const latest = await this.#latestLease(key);
    const live = latest && !latest.released && latest.expiresAt.getTime() > now.getTime();
    if (latest && !latest.released && latest.holder === holder) {
      // Renewal: only the holder writes its own epoch. Then make sure nobody took the next epoch meanwhile
      // (possible only if this renewal came after expiry).
      await this.#leases.updateOne({ _id: latest._id }, { $set: { expiresAt } });
      const newer = await this.#leases.findOne({ _id: leaseId(key, latest.epoch + 1) });
      return newer === null;
    }
    if (live) return false;
    const epoch = (latest?.epoch ?? 0) + 1;
    try {
      await this.#leases.insertOne({ _id: leaseId(key, epoch), wallet: key, epoch, holder, expiresAt, released: false });
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
    // Old epochs are history only; keep the previous one for reading, drop the rest.
    await this.#leases.deleteMany({ wallet: key, epoch: { $lt: epoch - 1 } });
    return true;
  }

  async releaseLease(wallet: string, holder: string): Promise<void> {
    const latest = await this.#latestLease(wallet.toLowerCase());
    if (latest && latest.holder === holder && !latest.released) {
      await this.#leases.updateOne({ _id: latest._id }, { $set: { released: true } });
    }
  }

  async getLease(wallet: string): Promise<WalletLease | null> {
    const latest = await this.#latestLease(wallet.toLowerCase());
    if (!latest || latest.released) return null;
    return { wallet: latest.wallet, holder: latest.holder, expiresAt: latest.expiresAt };
  }

  async #latestLease(wallet: string): Promise<LeaseDoc | null> {
    const [latest] = await this.#leases.find({ wallet }).sort({ epoch: -1 }).limit(1).toArray();
    return latest ?? null;
  }

  async #load(intentKey: string): Promise<Folded | null> {
    const doc = await this.#intents.findOne({ _id: intentKey });
    if (!doc) return null;
    const steps = await this.#steps.find({ intentKey }).sort({ version: 1 }).toArray();
    return this.#remember(fold(doc, steps));
  }

  #remember(entry: Folded): Folded {
    this.#recent.delete(entry.intentKey);
    this.#recent.set(entry.intentKey, entry);
    if (this.#recent.size > 5_000) {
      const oldest = this.#recent.keys().next().value;
      if (oldest !== undefined) this.#recent.delete(oldest);
    }
    return entry;
  }

  async #foldMany(docs: IntentDoc[]): Promise<Folded[]> {
    if (docs.length === 0) return [];
    const steps = await this.#steps
      .find({ intentKey: { $in: docs.map((d) => d._id) } })
      .sort({ version: 1 })
      .toArray();
    const byIntent = new Map<string, StepDoc[]>();
    for (const step of steps) {
      const list = byIntent.get(step.intentKey) ?? [];
      list.push(step);
      byIntent.set(step.intentKey, list);
    }
    return docs.map((doc) => fold(doc, byIntent.get(doc._id) ?? []));
  }
}

function matches(entry: Folded, expect: TxExpectation): boolean {
  return expect.states.includes(entry.state) && (expect.hash === undefined || entry.hash === expect.hash);
}

function isOpen(state: TxState): boolean {
  return OPEN_STATES.includes(state);
}

function fold(doc: IntentDoc, steps: StepDoc[]): Folded {
  let entry: Folded = {
    intentKey: doc._id,
    wallet: doc.wallet,
    from: doc.from,
    chainId: doc.chainId,
    to: doc.to,
    data: doc.data,
    value: doc.value,
    kind: doc.kind,
    requestor: doc.requestor,
    meta: doc.meta,
    after: doc.after,
    state: "intent",
    nonce: null,
    hash: null,
    rawTx: null,
    replacedHashes: [],
    blockNumber: null,
    gasUsed: null,
    status: null,
    error: null,
    createdAt: doc.createdAt,
    updatedAt: doc.createdAt,
    version: 0,
  };
  // Versions are contiguous from 1 (each is inserted only after its predecessor was read).
  for (const step of [...steps].sort((a, b) => a.version - b.version)) {
    if (step.version !== entry.version + 1) break;
    entry = { ...entry, ...step.patch, updatedAt: step.at, version: step.version };
  }
  return entry;
}

function strip(entry: Folded): TxJournalEntry {
  const { version: _version, ...rest } = entry;
  void _version;
  return rest;
}

function leaseId(wallet: string, epoch: number): string {
  return `${wallet}#${epoch}`;
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}
