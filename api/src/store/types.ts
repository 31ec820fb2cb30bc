import type { AgentStatus, AgentType, Tier } from "../domain/model";

/**
 * The data-access contract of the service. Domain code speaks only to these interfaces; the MongoDB adapter
 * (store/mongo) is the store of record and the in-memory adapter (store/memory) serves zero-set-up starts and
 * tests. Both pass test/api/store/conformance.ts.
 *
 * Rules every adapter keeps:
 * - no multi-document transactions (FerretDB v1 has none): each operation is atomic on one document;
 * - expiry is checked in code with the caller's clock (`now`), never only through TTL indexes;
 * - unique values (agent wallet, API key hash) are enforced by the adapter and reported as DuplicateKeyError.
 */

/** An agent as stored. Addresses are stored checksummed; `walletKey` is the lowercase wallet for lookups. */
export interface AgentRecord {
  agentId: string;
  /** Index i of the agent's server wallet (HD path m/44'/60'/1'/0/i); unique, allocated by `counters.next`. */
  agentIndex: number;
  walletAddress: string;
  agentName: string;
  agentType: AgentType;
  description: string;
  operatorAddress: string;
  operatorEmail?: string;
  operatorName?: string;
  framework?: string;
  repoUrl?: string;
  tier: Tier;
  /** Set when an operator granted the current tier (automatic promotion never lowers a granted tier). */
  tierGrantedBy?: string;
  status: AgentStatus;
  strategiesSubmitted: number;
  /** Strategies that passed screening onchain (left shadow, not deprecated: domain/screening.ts). */
  strategiesPassedScreening: number;
  /** Sum of the agent's deposits, in micro-USDC (6 decimals), as a decimal integer string. */
  depositsMicroUsdc: string;
  performanceScore: number;
  /** SHA-256 of the API key, lowercase hex. The key itself is never stored. */
  apiKeyHash: string;
  /** First 12 characters of the key (`nap-` plus 8). */
  apiKeyPrefix: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What can be true of one of an agent's strategies; each fact is counted once (AgentStore.recordStrategyFacts). */
export type StrategyFactKind = "submitted" | "passed_screening";

export interface StrategyFact {
  kind: StrategyFactKind;
  /** bytes32 strategy id of the registry, 0x-prefixed. */
  strategyId: string;
}

/** Counters an activity report adds to an agent. */
export interface AgentActivityDelta {
  strategiesSubmitted?: number;
  strategiesPassedScreening?: number;
  depositsMicroUsdc?: bigint;
}

export interface AgentStats {
  totalAgents: number;
  activeAgents: number;
  strategiesSubmitted: number;
  depositsMicroUsdc: bigint;
}

export interface AgentStore {
  /** Inserts a new agent. Throws DuplicateKeyError("walletAddress" | "apiKeyHash" | "agentId" | "agentIndex"). */
  insert(agent: AgentRecord): Promise<void>;
  findById(agentId: string): Promise<AgentRecord | null>;
  /** Case-insensitive on the address. */
  findByWallet(walletAddress: string): Promise<AgentRecord | null>;
  findByKeyHash(apiKeyHash: string): Promise<AgentRecord | null>;
  /** Highest performanceScore first; ties: earliest createdAt, then agentId. */
  leaderboard(limit: number): Promise<AgentRecord[]>;
  stats(): Promise<AgentStats>;
  /** True once at least one agent exists. */
  any(): Promise<boolean>;
  /** Adds the delta to the agent's counters atomically; returns the updated record (null if unknown). */
  addActivity(agentId: string, delta: AgentActivityDelta, now: Date): Promise<AgentRecord | null>;
  /**
   * Records facts about the agent's strategies, each at most once, and adds the new ones to the counters
   * (`submitted` to strategiesSubmitted, `passed_screening` to strategiesPassedScreening): a fact reported again (a
   * retry, another process, the catch-up from the chain) changes nothing. With `recount`, the counters are then raised
   * to the number of recorded facts, which repairs a count lost between a fact's insert and its counter update (a
   * crash). Returns the updated record, or null for an unknown agent (nothing is recorded then).
   */
  recordStrategyFacts(
    agentId: string,
    facts: StrategyFact[],
    now: Date,
    options?: { recount?: boolean },
  ): Promise<AgentRecord | null>;
  /**
   * Adds a deposit to the agent's total once per transaction: the same `txHash` reported again (a retry answered from
   * the journal, another instance) changes nothing. Returns the updated record, or null for an unknown agent.
   */
  recordDeposit(agentId: string, txHash: string, microUsdc: bigint, now: Date): Promise<AgentRecord | null>;
  /**
   * Sets fields derived from the counters (tier, score) only if the tier is still `expectedTier`
   * (compare-and-set, so two concurrent evaluations cannot lower one another). Returns the updated record or null.
   */
  updateStanding(
    agentId: string,
    expectedTier: Tier,
    update: { tier: Tier; tierGrantedBy?: string | null; performanceScore: number },
    now: Date,
  ): Promise<AgentRecord | null>;
}

/** A sign-in nonce as stored. */
export interface NonceRecord {
  nonce: string;
  /** Checksummed wallet the nonce was issued to. */
  walletAddress: string;
  issuedAt: Date;
  expiresAt: Date;
  /** Set once, by the one consume that won. */
  consumedAt?: Date;
}

export interface NonceStore {
  /** Stores a fresh nonce. Throws DuplicateKeyError("nonce") if it exists (never, with 128 random bits). */
  insert(record: NonceRecord): Promise<void>;
  find(nonce: string): Promise<NonceRecord | null>;
  /**
   * Atomically marks the nonce consumed if it exists, belongs to `walletAddress` (case-insensitive), is not consumed
   * and has not expired at `now`. Exactly one of any number of concurrent calls returns the record; the others null.
   */
  consume(nonce: string, walletAddress: string, now: Date): Promise<NonceRecord | null>;
  /** Deletes nonces that expired before `before`; returns how many. */
  purgeExpired(before: Date): Promise<number>;
}

export interface CounterStore {
  /** Atomically returns the next value of the named sequence: 0, 1, 2, ... never twice the same. */
  next(name: string): Promise<number>;
}

export interface StoreHealth {
  kind: "mongodb" | "memory";
  connected: boolean;
}

/** The whole store. Adapters may add collections for other parts (the tx journal of issue 6). */
export interface Store {
  readonly kind: "mongodb" | "memory";
  readonly agents: AgentStore;
  readonly nonces: NonceStore;
  readonly counters: CounterStore;
  /** Creates indexes; idempotent. */
  init(): Promise<void>;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
