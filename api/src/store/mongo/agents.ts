import { Long, MongoBulkWriteError, type Collection } from "mongodb";
import type { AgentStatus, AgentType, Tier } from "../../domain/model";
import { DuplicateKeyError } from "../../errors";
import { KeyedQueue } from "../../keyedQueue";
import {
  withKeyReplaced,
  type AgentActivityDelta,
  type AgentRecord,
  type AgentStats,
  type AgentStore,
  type RetiredKey,
  type StrategyFact,
  type StrategyFactKind,
} from "../../usecases/agents";
import { isDuplicate } from "./duplicate";

/** Agents in MongoDB (store/mongo/index.ts: what FerretDB v1 serves, and how atomicity is had). */

export interface AgentDocument {
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
  apiKeyCreatedAt?: Date;
  apiKeyLastUsedAt?: Date;
  retiredKeys?: RetiredKey[];
  createdAt: Date;
  updatedAt: Date;
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
  for (const key of ["apiKeyCreatedAt", "apiKeyLastUsedAt"] as const) {
    if (doc[key] instanceof Date) record[key] = doc[key];
  }
  if (Array.isArray(doc.retiredKeys)) record.retiredKeys = doc.retiredKeys.map((key) => ({ ...key }));
  return record;
}

/** Points a unique value (lowercase wallet, API key hash) at its agent; `_id` is the value. */
export interface AgentPointerDocument {
  _id: string;
  agentId: string;
  createdAt: Date;
}

/** One recorded fact about an agent's strategy; `_id` `${agentId}:${kind}:${strategyId}` makes it count once. */
export interface StrategyFactDocument {
  _id: string;
  agentId: string;
  kind: StrategyFactKind;
  strategyId: string;
  at: Date;
}

/** One counted deposit; `_id` is the transaction hash (lowercase), so a deposit counts once. */
export interface DepositDocument {
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
   * lookups without scanning the collection (a secondary index does not spare the scan), and an insert into a unique
   * `_id` is its one atomic primitive, so the pointers also enforce uniqueness.
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
    if (!pointer) return null;
    // The agent's own hash decides: a pointer left by a replaced key (removal after the switch) never authenticates.
    const agent = await this.findById(pointer.agentId);
    return agent && agent.apiKeyHash === apiKeyHash ? agent : null;
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

  /**
   * The new key's pointer first (its uniqueness), then the switch on the agent's document, then the old pointer is
   * removed; findByKeyHash checks the document's hash, so the old key stops with the switch.
   */
  async replaceKey(
    agentId: string,
    expectedHash: string,
    next: { hash: string; prefix: string } | null,
    now: Date,
  ): Promise<AgentRecord | null> {
    return this.queue.run(agentId, async () => {
      const current = await this.collection.findOne({ _id: agentId, apiKeyHash: expectedHash });
      if (!current) return null;
      if (next) await this.claimPointer(this.keys, next.hash, agentId, now, "apiKeyHash");
      // The history is rebuilt from the document read; the filter on the key hash keeps it from a concurrent change.
      const replaced = withKeyReplaced(toAgentRecord(current), next, now);
      const doc = await this.collection.findOneAndUpdate(
        { _id: agentId, apiKeyHash: expectedHash },
        { $set: { ...replaced, updatedAt: now }, $unset: { apiKeyLastUsedAt: "" } },
        { returnDocument: "after" },
      );
      if (!doc) {
        if (next) await this.keys.deleteOne({ _id: next.hash, agentId });
        return null;
      }
      if (expectedHash !== "") await this.keys.deleteOne({ _id: expectedHash, agentId });
      return toAgentRecord(doc);
    });
  }

  async touchKey(agentId: string, apiKeyHash: string, at: Date): Promise<void> {
    await this.collection.updateOne({ _id: agentId, apiKeyHash }, { $set: { apiKeyLastUsedAt: at } });
  }

  /**
   * Serialised per agent in this process (like updateStanding); across processes the nonce each change consumes is
   * what makes one signed change land once.
   */
  async setOperator(agentId: string, expected: string, to: string, now: Date): Promise<AgentRecord | null> {
    return this.queue.run(agentId, async () => {
      const current = await this.collection.findOne({ _id: agentId });
      if (!current || current.operatorAddress.toLowerCase() !== expected.toLowerCase()) return null;
      const doc = await this.collection.findOneAndUpdate(
        { _id: agentId, operatorAddress: current.operatorAddress },
        { $set: { operatorAddress: to, updatedAt: now } },
        { returnDocument: "after" },
      );
      return doc ? toAgentRecord(doc) : null;
    });
  }
}
