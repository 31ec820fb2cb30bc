import { hashApiKey } from "../domain/apiKeys";
import { NotFoundError } from "../errors";
import type { AgentStatus, AgentType, Tier } from "../domain/model";
import { performanceScore } from "../domain/performance";
import { promotedTier } from "../domain/tiers";
import { TtlCache } from "../ttlCache";

/**
 * Agents: the public views (leaderboard, statistics, lookup) and the write paths that change an agent's standing
 * (activity, tier). The store interface below is what this use case needs; adapters in store/ implement it.
 */

/**
 * How long a leaderboard page or the statistics may be served from memory. Public aggregate reads are the hottest
 * endpoints and their exact freshness does not matter; one second keeps the store from being scanned per request.
 */
export const PUBLIC_READ_CACHE_MS = 1_000;

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
  /** SHA-256 of the API key, lowercase hex ("" once revoked). The key itself is never stored. */
  apiKeyHash: string;
  /** First 12 characters of the key (`nap-` plus 8). */
  apiKeyPrefix: string;
  /** When the current key was issued by a rotation (absent: at registration, createdAt). */
  apiKeyCreatedAt?: Date;
  /** Last request made with the current key, recorded at most once a minute (KEY_USE_RESOLUTION_MS). */
  apiKeyLastUsedAt?: Date;
  /** Keys the agent held before, oldest first: replaced by a rotation or revoked. */
  retiredKeys?: RetiredKey[];
  createdAt: Date;
  updatedAt: Date;
}

/** A key the agent no longer holds. */
export interface RetiredKey {
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  endedAt: Date;
  reason: "rotated" | "revoked";
}

/** A key's last use is written when the stored one is older than this: one write a minute per key at most. */
export const KEY_USE_RESOLUTION_MS = 60_000;

/** The record a key change leaves: the new key's fields and the current key added to the retired ones. */
export function withKeyReplaced(
  agent: AgentRecord,
  next: { hash: string; prefix: string } | null,
  now: Date,
): Pick<AgentRecord, "apiKeyHash" | "apiKeyPrefix" | "apiKeyCreatedAt" | "retiredKeys"> {
  const retired = [...(agent.retiredKeys ?? [])];
  if (agent.apiKeyHash !== "") {
    retired.push({
      prefix: agent.apiKeyPrefix,
      createdAt: agent.apiKeyCreatedAt ?? agent.createdAt,
      lastUsedAt: agent.apiKeyLastUsedAt ?? null,
      endedAt: now,
      reason: next ? "rotated" : "revoked",
    });
  }
  const createdAt = next ? now : agent.apiKeyCreatedAt;
  return {
    apiKeyHash: next?.hash ?? "",
    apiKeyPrefix: next?.prefix ?? agent.apiKeyPrefix,
    ...(createdAt ? { apiKeyCreatedAt: createdAt } : {}),
    retiredKeys: retired,
  };
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
  /**
   * Sets the operator address to `to` only if it is still `expected` (case-insensitive compare-and-set, so that of two
   * changes signed by one operator only the first lands). Returns the updated record or null.
   */
  setOperator(agentId: string, expected: string, to: string, now: Date): Promise<AgentRecord | null>;
  /** Records a use of the key `apiKeyHash` at `at` if it is still the agent's key (a missed write only ages it). */
  touchKey(agentId: string, apiKeyHash: string, at: Date): Promise<void>;
  /**
   * Replaces the agent's API key (its hash and prefix) only if the current hash is still `expectedHash`; `next` null
   * revokes it (the agent then has no key until a rotation). From the moment this resolves, findByKeyHash of the old
   * hash answers null in every process reading the store. Throws DuplicateKeyError("apiKeyHash") if `next`'s hash is
   * taken. Returns the updated record, or null when the key changed meanwhile or the agent is unknown.
   */
  replaceKey(
    agentId: string,
    expectedHash: string,
    next: { hash: string; prefix: string } | null,
    now: Date,
  ): Promise<AgentRecord | null>;
}

/** Called after an agent's tier changed (promotion or operator grant); the relayer mints badges and NAP grants. */
export type TierChangeListener = (agent: AgentRecord, previousTier: Tier) => void;

export class AgentService {
  readonly #tierListeners: TierChangeListener[] = [];
  /** Agents are never deleted, so once one exists the answer stays true and the store need not be asked again. */
  #anyExists = false;
  private readonly boards: TtlCache<number, AgentRecord[]>;
  private readonly totals: TtlCache<"stats", AgentStats>;

  constructor(
    private readonly store: AgentStore,
    private readonly clock: () => Date = () => new Date(),
    publicReadCacheMs = PUBLIC_READ_CACHE_MS,
  ) {
    // The last quarter of a page's second starts its successor, so that steady reads never wait for the store.
    const cacheOptions = { refreshAheadMs: publicReadCacheMs / 4 };
    this.boards = new TtlCache(publicReadCacheMs, cacheOptions);
    this.totals = new TtlCache(publicReadCacheMs, cacheOptions);
  }

  /** Registers a listener for tier changes (called synchronously after the store write; it must not throw). */
  onTierChange(listener: TierChangeListener): void {
    this.#tierListeners.push(listener);
  }

  #tierChanged(agent: AgentRecord, previousTier: Tier): void {
    if (agent.tier === previousTier) return;
    for (const listener of this.#tierListeners) listener(agent, previousTier);
  }

  /** The agent an API key belongs to (looked up by the key's hash only), or null. */
  byApiKey(apiKey: string): Promise<AgentRecord | null> {
    return this.store.findByKeyHash(hashApiKey(apiKey));
  }

  /**
   * Notes that the agent's current key was used now, when the stored last use is older than KEY_USE_RESOLUTION_MS;
   * not awaited by the request, and a failed write is dropped (the last use is a hint, not a record of every call).
   */
  noteKeyUse(agent: AgentRecord): void {
    const now = this.clock();
    const last = agent.apiKeyLastUsedAt?.getTime() ?? 0;
    if (now.getTime() - last < KEY_USE_RESOLUTION_MS) return;
    this.store.touchKey(agent.agentId, agent.apiKeyHash, now).catch(() => undefined);
  }

  /** True once at least one agent exists. */
  async anyExists(): Promise<boolean> {
    this.#anyExists ||= await this.store.any();
    return this.#anyExists;
  }

  /** Highest performance score first (served from memory for up to PUBLIC_READ_CACHE_MS). */
  leaderboard(limit: number): Promise<AgentRecord[]> {
    return this.boards.get(limit, () => this.store.leaderboard(limit));
  }

  /** The leaderboard page when one is kept and computed (no promise, for the hot path); else undefined. */
  keptLeaderboard(limit: number): AgentRecord[] | undefined {
    return this.boards.peek(limit, () => this.store.leaderboard(limit));
  }

  /** Aggregate statistics (served from memory for up to PUBLIC_READ_CACHE_MS). */
  stats(): Promise<AgentStats> {
    return this.totals.get("stats", () => this.store.stats());
  }

  findByWallet(walletAddress: string): Promise<AgentRecord | null> {
    return this.store.findByWallet(walletAddress);
  }

  async getById(agentId: string): Promise<AgentRecord> {
    const agent = await this.store.findById(agentId);
    if (!agent) throw new NotFoundError(`agent_id: no agent ${agentId}`);
    return agent;
  }

  /**
   * Records measurable activity (strategies submitted or passing screening, deposits) and re-evaluates tier and
   * score; called after the chain confirms the action.
   */
  async recordActivity(agentId: string, delta: AgentActivityDelta): Promise<AgentRecord> {
    return this.afterActivity(agentId, await this.store.addActivity(agentId, delta, this.clock()));
  }

  /**
   * Records facts about the agent's strategies (submitted, passed screening), each counted once however often and
   * by whichever process it is reported, and re-evaluates tier and score. `recount` also repairs counts lost to a
   * crash (AgentStore.recordStrategyFacts).
   */
  async recordStrategyFacts(
    agentId: string,
    facts: StrategyFact[],
    options: { recount?: boolean } = {},
  ): Promise<AgentRecord> {
    return this.afterActivity(agentId, await this.store.recordStrategyFacts(agentId, facts, this.clock(), options));
  }

  /** Adds a deposit to the agent's total once per transaction (AgentStore.recordDeposit). */
  async recordDeposit(agentId: string, txHash: string, microUsdc: bigint): Promise<AgentRecord> {
    return this.afterActivity(agentId, await this.store.recordDeposit(agentId, txHash, microUsdc, this.clock()));
  }

  private async afterActivity(agentId: string, updated: AgentRecord | null): Promise<AgentRecord> {
    if (!updated) throw new NotFoundError(`agent_id: no agent ${agentId}`);
    const result = await this.reevaluate(updated);
    this.forgetPublicReads();
    return result;
  }

  /** An operator sets the tier (up or down); automatic promotion may raise it again later, never lower it. */
  async grantTier(agentId: string, tier: Tier, operatorId: string): Promise<AgentRecord> {
    for (;;) {
      const agent = await this.getById(agentId);
      const updated = await this.store.updateStanding(
        agentId,
        agent.tier,
        { tier, tierGrantedBy: operatorId, performanceScore: performanceScore(agent) },
        this.clock(),
      );
      if (updated) {
        this.forgetPublicReads();
        this.#tierChanged(updated, agent.tier);
        return updated;
      }
      // The tier changed between read and write (a concurrent promotion): read again and re-apply.
    }
  }

  /** Drops cached public reads after a change made through this process. */
  forgetPublicReads(): void {
    this.boards.clear();
    this.totals.clear();
  }

  private async reevaluate(agent: AgentRecord): Promise<AgentRecord> {
    let current = agent;
    for (;;) {
      const tier = promotedTier(current.tier, current);
      const score = performanceScore(current);
      if (tier === current.tier && score === current.performanceScore) return current;
      const updated = await this.store.updateStanding(
        current.agentId,
        current.tier,
        { tier, performanceScore: score },
        this.clock(),
      );
      if (updated) {
        this.#tierChanged(updated, current.tier);
        return updated;
      }
      current = await this.getById(agent.agentId);
    }
  }
}
