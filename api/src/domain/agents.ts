import { NotFoundError } from "../errors";
import type { AgentActivityDelta, AgentRecord, AgentStats, Store, StrategyFact } from "../store/types";
import type { Tier } from "./model";
import { performanceScore } from "./performance";
import { promotedTier } from "./tiers";
import { TtlCache } from "../ttlCache";

/**
 * How long a leaderboard page or the statistics may be served from memory. Public aggregate reads are the hottest
 * endpoints and their exact freshness does not matter; one second keeps the store from being scanned per request.
 */
export const PUBLIC_READ_CACHE_MS = 1_000;

/** Public views of agents (leaderboard, statistics, lookup) and the write paths that change an agent's standing. */
/** Called after an agent's tier changed (promotion or operator grant); issue 6 mints badges and NAP grants here. */
export type TierChangeListener = (agent: AgentRecord, previousTier: Tier) => void;

export class AgentService {
  readonly #tierListeners: TierChangeListener[] = [];
  private readonly boards: TtlCache<number, AgentRecord[]>;
  private readonly totals: TtlCache<"stats", AgentStats>;

  constructor(
    private readonly store: Store,
    private readonly clock: () => Date = () => new Date(),
    publicReadCacheMs = PUBLIC_READ_CACHE_MS,
  ) {
    this.boards = new TtlCache(publicReadCacheMs);
    this.totals = new TtlCache(publicReadCacheMs);
  }

  /** Registers a listener for tier changes (called synchronously after the store write; it must not throw). */
  onTierChange(listener: TierChangeListener): void {
    this.#tierListeners.push(listener);
  }

  #tierChanged(agent: AgentRecord, previousTier: Tier): void {
    if (agent.tier === previousTier) return;
    for (const listener of this.#tierListeners) listener(agent, previousTier);
  }

  /** Highest performance score first (served from memory for up to PUBLIC_READ_CACHE_MS). */
  leaderboard(limit: number): Promise<AgentRecord[]> {
    return this.boards.get(limit, () => this.store.agents.leaderboard(limit));
  }

  /** Aggregate statistics (served from memory for up to PUBLIC_READ_CACHE_MS). */
  stats(): Promise<AgentStats> {
    return this.totals.get("stats", () => this.store.agents.stats());
  }

  findByWallet(walletAddress: string): Promise<AgentRecord | null> {
    return this.store.agents.findByWallet(walletAddress);
  }

  async getById(agentId: string): Promise<AgentRecord> {
    const agent = await this.store.agents.findById(agentId);
    if (!agent) throw new NotFoundError(`agent_id: no agent ${agentId}`);
    return agent;
  }

  /**
   * Records measurable activity (strategies submitted or passing screening, deposits) and re-evaluates tier and
   * score. Issue 6's routes call this after the chain confirms the action.
   */
  async recordActivity(agentId: string, delta: AgentActivityDelta): Promise<AgentRecord> {
    return this.afterActivity(agentId, await this.store.agents.addActivity(agentId, delta, this.clock()));
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
    return this.afterActivity(
      agentId,
      await this.store.agents.recordStrategyFacts(agentId, facts, this.clock(), options),
    );
  }

  /** Adds a deposit to the agent's total once per transaction (AgentStore.recordDeposit). */
  async recordDeposit(agentId: string, txHash: string, microUsdc: bigint): Promise<AgentRecord> {
    return this.afterActivity(agentId, await this.store.agents.recordDeposit(agentId, txHash, microUsdc, this.clock()));
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
      const updated = await this.store.agents.updateStanding(
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
      const updated = await this.store.agents.updateStanding(
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
