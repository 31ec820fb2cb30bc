import { Long, MongoBulkWriteError, MongoClient, MongoServerError, type Collection, type Db } from "mongodb";
import { DuplicateKeyError } from "../../errors";
import type { AgentStatus, AgentType, Tier } from "../../domain/model";
import type {
  AgentActivityDelta,
  AgentRecord,
  AgentStats,
  AgentStore,
  CounterStore,
  NonceRecord,
  NonceStore,
  Store,
  StoreHealth,
  StrategyFact,
  StrategyFactKind,
} from "../types";

/**
 * MongoDB adapter, the store of record. Written for the portable subset that FerretDB v1 also serves: no
 * transactions, no change streams, no `$cond` in `$group`, expiry checked with the caller's clock.
 *
 * Atomicity. MongoDB applies findOneAndUpdate and $inc atomically, but FerretDB v1 (SQLite handler) does not: our
 * conformance suite saw 4 of 100 concurrent conditional updates of one nonce succeed and $inc lose updates. The one
 * primitive that is atomic on both servers is an insert against a unique index. So everything that guards security
 * or identity is built on inserts:
 * - a nonce is consumed by inserting its claim document (`nonce_claims`, _id = nonce): one insert wins;
 * - sequence numbers (agent wallet indexes) are claimed by inserting `${name}:${n}` into `sequence_claims`.
 * Activity counters (statistics, not security) use $inc, which is atomic on MongoDB; on FerretDB updates of one
 * agent are additionally serialized inside this process (see `serialize`), which suffices for a single instance.
 */

interface AgentDocument {
  _id: string;
  agentIndex: number;
  walletAddress: string;
  walletKey: string;
  agentName: string;
  agentType: AgentType;
  description: string;
  operatorAddress: string;
  operatorEmail?: string;
  operatorName?: string;
  framework?: string;
  repoUrl?: string;
  tier: Tier;
  tierGrantedBy?: string;
  status: AgentStatus;
  strategiesSubmitted: number;
  strategiesPassedScreening: number;
  depositsMicroUsdc: Long;
  performanceScore: number;
  apiKeyHash: string;
  apiKeyPrefix: string;
  createdAt: Date;
  updatedAt: Date;
}

interface NonceDocument {
  _id: string;
  walletAddress: string;
  walletKey: string;
  issuedAt: Date;
  expiresAt: Date;
  consumedAt?: Date;
}

interface NonceClaimDocument {
  _id: string;
  walletKey: string;
  consumedAt: Date;
}

interface SequenceClaimDocument {
  _id: string;
  name: string;
  seq: number;
}

/** Runs `task` after every earlier task of the same key has settled (per-process serialization). */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

function isDuplicate(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === 11000;
}

function toLong(value: unknown): Long {
  if (value instanceof Long) return value;
  if (typeof value === "number") return Long.fromNumber(value);
  return Long.fromString(String(value ?? 0));
}

function toAgentRecord(doc: AgentDocument): AgentRecord {
  const record: AgentRecord = {
    agentId: doc._id,
    agentIndex: doc.agentIndex,
    walletAddress: doc.walletAddress,
    agentName: doc.agentName,
    agentType: doc.agentType,
    description: doc.description,
    operatorAddress: doc.operatorAddress,
    tier: doc.tier,
    status: doc.status,
    strategiesSubmitted: doc.strategiesSubmitted,
    strategiesPassedScreening: doc.strategiesPassedScreening,
    depositsMicroUsdc: toLong(doc.depositsMicroUsdc).toString(),
    performanceScore: doc.performanceScore,
    apiKeyHash: doc.apiKeyHash,
    apiKeyPrefix: doc.apiKeyPrefix,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
  for (const key of ["operatorEmail", "operatorName", "framework", "repoUrl", "tierGrantedBy"] as const) {
    if (doc[key] !== undefined && doc[key] !== null) record[key] = doc[key];
  }
  return record;
}

function toNonceRecord(doc: NonceDocument): NonceRecord {
  return {
    nonce: doc._id,
    walletAddress: doc.walletAddress,
    issuedAt: doc.issuedAt,
    expiresAt: doc.expiresAt,
    ...(doc.consumedAt ? { consumedAt: doc.consumedAt } : {}),
  };
}

/** Points a unique value (lowercase wallet, API key hash) at its agent; `_id` is the value. */
interface AgentPointerDocument {
  _id: string;
  agentId: string;
  createdAt: Date;
}

/** One recorded fact about an agent's strategy; `_id` `${agentId}:${kind}:${strategyId}` makes it count once. */
interface StrategyFactDocument {
  _id: string;
  agentId: string;
  kind: StrategyFactKind;
  strategyId: string;
  at: Date;
}

/** One counted deposit; `_id` is the transaction hash (lowercase), so a deposit counts once. */
interface DepositDocument {
  _id: string;
  agentId: string;
  microUsdc: Long;
  at: Date;
}

/**
 * A pointer whose agent document never appeared (the process died between the two inserts) is taken over after
 * this long; a younger one may belong to a registration still in flight.
 */
export const ORPHAN_POINTER_MS = 60_000;

export class MongoAgentStore implements AgentStore {
  private readonly queue = new KeyedQueue();

  /**
   * Wallet and key-hash lookups go through pointer collections keyed by `_id`: FerretDB v1 answers only `_id`
   * lookups without scanning (measured: 150 ms by a secondary index against 11 ms by `_id` with 5,000 documents),
   * and an insert into a unique `_id` is its one atomic primitive, so the pointers also enforce uniqueness.
   */
  constructor(
    private readonly collection: Collection<AgentDocument>,
    private readonly wallets: Collection<AgentPointerDocument>,
    private readonly keys: Collection<AgentPointerDocument>,
    private readonly facts: Collection<StrategyFactDocument>,
    private readonly deposits: Collection<DepositDocument>,
  ) {}

  async init(): Promise<void> {
    await this.collection.createIndex({ walletKey: 1 }, { unique: true, name: "agents_wallet_unique" });
    await this.collection.createIndex({ apiKeyHash: 1 }, { unique: true, name: "agents_key_hash_unique" });
    await this.collection.createIndex({ agentIndex: 1 }, { unique: true, name: "agents_index_unique" });
    await this.collection.createIndex({ performanceScore: -1, createdAt: 1, _id: 1 }, { name: "agents_leaderboard" });
    await this.facts.createIndex({ agentId: 1, kind: 1 }, { name: "strategy_facts_by_agent" });
  }

  async insert(agent: AgentRecord): Promise<void> {
    const { agentId, depositsMicroUsdc, ...rest } = agent;
    const doc: AgentDocument = {
      _id: agentId,
      ...rest,
      walletKey: agent.walletAddress.toLowerCase(),
      depositsMicroUsdc: Long.fromString(depositsMicroUsdc),
    };
    const now = new Date();
    await this.claimPointer(this.wallets, doc.walletKey, agentId, now, "walletAddress");
    try {
      await this.claimPointer(this.keys, doc.apiKeyHash, agentId, now, "apiKeyHash");
    } catch (error) {
      await this.wallets.deleteOne({ _id: doc.walletKey, agentId });
      throw error;
    }
    try {
      await this.collection.insertOne(doc);
    } catch (error) {
      await this.keys.deleteOne({ _id: doc.apiKeyHash, agentId });
      await this.wallets.deleteOne({ _id: doc.walletKey, agentId });
      if (isDuplicate(error)) {
        // The pointers are ours, so only the agent id or the wallet index can collide here.
        const byIndex = await this.collection.findOne({ agentIndex: doc.agentIndex }, { projection: { _id: 1 } });
        throw new DuplicateKeyError(byIndex ? "agentIndex" : "agentId");
      }
      throw error;
    }
  }

  /** Inserts the pointer `_id` -> agentId; takes over an orphan (no agent after ORPHAN_POINTER_MS). */
  private async claimPointer(
    pointers: Collection<AgentPointerDocument>,
    value: string,
    agentId: string,
    now: Date,
    field: string,
  ): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await pointers.insertOne({ _id: value, agentId, createdAt: now });
        return;
      } catch (error) {
        if (!isDuplicate(error)) throw error;
        const existing = await pointers.findOne({ _id: value });
        const orphan =
          existing !== null &&
          now.getTime() - existing.createdAt.getTime() > ORPHAN_POINTER_MS &&
          (await this.collection.findOne({ _id: existing.agentId }, { projection: { _id: 1 } })) === null;
        if (!orphan) throw new DuplicateKeyError(field);
        await pointers.deleteOne({ _id: value, agentId: existing.agentId });
      }
    }
    throw new DuplicateKeyError(field);
  }

  async findById(agentId: string): Promise<AgentRecord | null> {
    const doc = await this.collection.findOne({ _id: agentId });
    return doc ? toAgentRecord(doc) : null;
  }

  async findByWallet(walletAddress: string): Promise<AgentRecord | null> {
    const pointer = await this.wallets.findOne({ _id: walletAddress.toLowerCase() });
    return pointer ? this.findById(pointer.agentId) : null;
  }

  async findByKeyHash(apiKeyHash: string): Promise<AgentRecord | null> {
    const pointer = await this.keys.findOne({ _id: apiKeyHash });
    return pointer ? this.findById(pointer.agentId) : null;
  }

  async leaderboard(limit: number): Promise<AgentRecord[]> {
    const docs = await this.collection
      .find({})
      .sort({ performanceScore: -1, createdAt: 1, _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(toAgentRecord);
  }

  async stats(): Promise<AgentStats> {
    // FerretDB v1 implements neither $cond nor field sums in $group, so the sums are taken over a projection.
    let totalAgents = 0;
    let activeAgents = 0;
    let strategiesSubmitted = 0;
    let depositsMicroUsdc = 0n;
    const cursor = this.collection.find(
      {},
      { projection: { _id: 0, status: 1, strategiesSubmitted: 1, depositsMicroUsdc: 1 } },
    );
    for await (const doc of cursor) {
      totalAgents += 1;
      if (doc.status === "active") activeAgents += 1;
      strategiesSubmitted += Number(doc.strategiesSubmitted ?? 0);
      depositsMicroUsdc += BigInt(toLong(doc.depositsMicroUsdc).toString());
    }
    return { totalAgents, activeAgents, strategiesSubmitted, depositsMicroUsdc };
  }

  async any(): Promise<boolean> {
    return (await this.collection.findOne({}, { projection: { _id: 1 } })) !== null;
  }

  async addActivity(agentId: string, delta: AgentActivityDelta, now: Date): Promise<AgentRecord | null> {
    return this.queue.run(agentId, () => this.addActivityNow(agentId, delta, now));
  }

  private async addActivityNow(agentId: string, delta: AgentActivityDelta, now: Date): Promise<AgentRecord | null> {
    const doc = await this.collection.findOneAndUpdate(
      { _id: agentId },
      {
        $inc: {
          strategiesSubmitted: delta.strategiesSubmitted ?? 0,
          strategiesPassedScreening: delta.strategiesPassedScreening ?? 0,
          depositsMicroUsdc: Long.fromBigInt(delta.depositsMicroUsdc ?? 0n),
        },
        $set: { updatedAt: now },
      },
      { returnDocument: "after" },
    );
    return doc ? toAgentRecord(doc) : null;
  }

  async recordStrategyFacts(
    agentId: string,
    facts: StrategyFact[],
    now: Date,
    options: { recount?: boolean } = {},
  ): Promise<AgentRecord | null> {
    return this.queue.run(agentId, async () => {
      const current = await this.collection.findOne({ _id: agentId });
      if (!current) return null;
      const added = await this.insertNewFacts(agentId, facts, now);
      let updated: AgentRecord | null = toAgentRecord(current);
      if (added.submitted > 0 || added.passed > 0) {
        updated = await this.addActivityNow(
          agentId,
          { strategiesSubmitted: added.submitted, strategiesPassedScreening: added.passed },
          now,
        );
      }
      if (options.recount) {
        const [submitted, passed] = await Promise.all([
          this.facts.countDocuments({ agentId, kind: "submitted" }),
          this.facts.countDocuments({ agentId, kind: "passed_screening" }),
        ]);
        const doc = await this.collection.findOneAndUpdate(
          { _id: agentId },
          { $max: { strategiesSubmitted: submitted, strategiesPassedScreening: passed }, $set: { updatedAt: now } },
          { returnDocument: "after" },
        );
        updated = doc ? toAgentRecord(doc) : null;
      }
      return updated;
    });
  }

  async recordDeposit(agentId: string, txHash: string, microUsdc: bigint, now: Date): Promise<AgentRecord | null> {
    return this.queue.run(agentId, async () => {
      const current = await this.collection.findOne({ _id: agentId });
      if (!current) return null;
      try {
        await this.deposits.insertOne({
          _id: txHash.toLowerCase(),
          agentId,
          microUsdc: Long.fromBigInt(microUsdc),
          at: now,
        });
      } catch (error) {
        if (!isDuplicate(error)) throw error;
        return toAgentRecord(current); // counted before
      }
      return this.addActivityNow(agentId, { depositsMicroUsdc: microUsdc }, now);
    });
  }

  /** Inserts the facts not yet recorded (one unordered insert); returns how many of each kind were new. */
  private async insertNewFacts(
    agentId: string,
    facts: StrategyFact[],
    now: Date,
  ): Promise<{ submitted: number; passed: number }> {
    const byId = new Map<string, StrategyFactDocument>();
    for (const fact of facts) {
      const strategyId = fact.strategyId.toLowerCase();
      const _id = `${agentId}:${fact.kind}:${strategyId}`;
      byId.set(_id, { _id, agentId, kind: fact.kind, strategyId, at: now });
    }
    const docs = [...byId.values()];
    if (docs.length === 0) return { submitted: 0, passed: 0 };
    let refused = new Set<number>();
    try {
      await this.facts.insertMany(docs, { ordered: false });
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
      // A duplicate is a fact recorded before: expected. Anything else is a real failure.
      if (writeErrors.some((writeError) => writeError.code !== 11000)) throw error;
      refused = new Set(writeErrors.map((writeError) => writeError.index));
    }
    const inserted = docs.filter((_, index) => !refused.has(index));
    const submitted = inserted.filter((doc) => doc.kind === "submitted").length;
    return { submitted, passed: inserted.length - submitted };
  }

  async updateStanding(
    agentId: string,
    expectedTier: Tier,
    update: { tier: Tier; tierGrantedBy?: string | null; performanceScore: number },
    now: Date,
  ): Promise<AgentRecord | null> {
    return this.queue.run(agentId, () => this.updateStandingNow(agentId, expectedTier, update, now));
  }

  private async updateStandingNow(
    agentId: string,
    expectedTier: Tier,
    update: { tier: Tier; tierGrantedBy?: string | null; performanceScore: number },
    now: Date,
  ): Promise<AgentRecord | null> {
    const set: Partial<AgentDocument> = {
      tier: update.tier,
      performanceScore: update.performanceScore,
      updatedAt: now,
    };
    if (typeof update.tierGrantedBy === "string") set.tierGrantedBy = update.tierGrantedBy;
    const doc = await this.collection.findOneAndUpdate(
      { _id: agentId, tier: expectedTier },
      update.tierGrantedBy === null ? { $set: set, $unset: { tierGrantedBy: "" } } : { $set: set },
      { returnDocument: "after" },
    );
    return doc ? toAgentRecord(doc) : null;
  }
}

export class MongoNonceStore implements NonceStore {
  constructor(
    private readonly collection: Collection<NonceDocument>,
    private readonly claims: Collection<NonceClaimDocument>,
  ) {}

  async init(): Promise<void> {
    // Expiry is enforced by `consume`; this index only lets purgeExpired find old nonces.
    await this.collection.createIndex({ expiresAt: 1 }, { name: "nonces_expiry" });
  }

  async insert(record: NonceRecord): Promise<void> {
    try {
      await this.collection.insertOne({
        _id: record.nonce,
        walletAddress: record.walletAddress,
        walletKey: record.walletAddress.toLowerCase(),
        issuedAt: record.issuedAt,
        expiresAt: record.expiresAt,
      });
    } catch (error) {
      if (isDuplicate(error)) throw new DuplicateKeyError("nonce");
      throw error;
    }
  }

  async find(nonce: string): Promise<NonceRecord | null> {
    const doc = await this.collection.findOne({ _id: nonce });
    if (!doc) return null;
    const claim = await this.claims.findOne({ _id: nonce });
    return toNonceRecord(claim ? { ...doc, consumedAt: claim.consumedAt } : doc);
  }

  async consume(nonce: string, walletAddress: string, now: Date): Promise<NonceRecord | null> {
    const doc = await this.collection.findOne({ _id: nonce });
    if (!doc || doc.walletKey !== walletAddress.toLowerCase() || doc.expiresAt.getTime() <= now.getTime()) return null;
    try {
      // The insert of the claim is the atomic step: the unique _id lets exactly one caller through.
      await this.claims.insertOne({ _id: nonce, walletKey: doc.walletKey, consumedAt: now });
    } catch (error) {
      if (isDuplicate(error)) return null;
      throw error;
    }
    // The claim is the record of consumption (find reads it); the nonce document itself is not written again.
    return toNonceRecord(doc);
  }

  async purgeExpired(before: Date): Promise<number> {
    const expired = await this.collection.find({ expiresAt: { $lt: before } }, { projection: { _id: 1 } }).toArray();
    if (expired.length === 0) return 0;
    const ids = expired.map((doc) => doc._id);
    const result = await this.collection.deleteMany({ _id: { $in: ids } });
    await this.claims.deleteMany({ _id: { $in: ids } });
    return result.deletedCount;
  }
}

export class MongoCounterStore implements CounterStore {
  /**
   * Highest value this process has reserved per sequence: the next candidate, never trusted for uniqueness (the
   * claim insert is). Reserving before the insert gives concurrent callers of one process distinct candidates, so
   * the highest claim is asked of the server only at the first call and after another process took a value: on
   * FerretDB that sorted query scans the whole collection, which made every registration slower than the last.
   */
  private readonly reserved = new Map<string, number>();

  constructor(private readonly claims: Collection<SequenceClaimDocument>) {}

  async init(): Promise<void> {
    await this.claims.createIndex({ name: 1, seq: -1 }, { name: "sequence_claims_by_name" });
  }

  async next(name: string): Promise<number> {
    if (!this.reserved.has(name)) this.raiseReservation(name, await this.highestClaimed(name));
    for (;;) {
      const candidate = this.reserved.get(name)! + 1;
      this.reserved.set(name, candidate);
      try {
        // The insert of `${name}:${n}` is the atomic step: only one caller can own n.
        await this.claims.insertOne({ _id: `${name}:${candidate}`, name, seq: candidate });
        return candidate;
      } catch (error) {
        if (!isDuplicate(error)) throw error;
        // Another process claimed it: go on past the highest claim of all processes.
        this.raiseReservation(name, await this.highestClaimed(name));
      }
    }
  }

  private raiseReservation(name: string, value: number): void {
    this.reserved.set(name, Math.max(value, this.reserved.get(name) ?? -1));
  }

  private async highestClaimed(name: string): Promise<number> {
    const [top] = await this.claims.find({ name }).sort({ seq: -1 }).limit(1).toArray();
    return top ? top.seq : -1;
  }
}

export interface MongoStoreOptions {
  uri: string;
  dbName: string;
}

export class MongoStore implements Store {
  readonly kind = "mongodb" as const;
  readonly agents: MongoAgentStore;
  readonly nonces: MongoNonceStore;
  readonly counters: MongoCounterStore;

  /** Exposed for adapters of other parts (e.g. the tx journal) that live beside this one. */
  constructor(
    readonly client: MongoClient,
    readonly db: Db,
  ) {
    this.agents = new MongoAgentStore(
      db.collection<AgentDocument>("agents"),
      db.collection<AgentPointerDocument>("agent_wallets"),
      db.collection<AgentPointerDocument>("agent_keys"),
      db.collection<StrategyFactDocument>("agent_strategy_facts"),
      db.collection<DepositDocument>("agent_deposits"),
    );
    this.nonces = new MongoNonceStore(
      db.collection<NonceDocument>("nonces"),
      db.collection<NonceClaimDocument>("nonce_claims"),
    );
    this.counters = new MongoCounterStore(db.collection<SequenceClaimDocument>("sequence_claims"));
  }

  async init(): Promise<void> {
    await this.agents.init();
    await this.nonces.init();
    await this.counters.init();
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.db.command({ ping: 1 });
      return { kind: "mongodb", connected: true };
    } catch {
      return { kind: "mongodb", connected: false };
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** Connects (failing fast if the server is unreachable) and creates the indexes. */
export async function connectMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const client = new MongoClient(options.uri, { serverSelectionTimeoutMS: 5_000, appName: "nap-api" });
  await client.connect();
  const store = new MongoStore(client, client.db(options.dbName));
  await store.init();
  return store;
}
