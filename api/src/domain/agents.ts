import { NotFoundError } from "../errors";
import type { AgentActivityDelta, AgentRecord, Store } from "../store/types";
import type { Tier } from "./model";
import { performanceScore } from "./performance";
import { promotedTier } from "./tiers";

/** Public views of agents (leaderboard, statistics, lookup) and the write paths that change an agent's standing. */
/** Called after an agent's tier changed (promotion or operator grant); issue 6 mints badges and NAP grants here. */
export type TierChangeListener = (agent: AgentRecord, previousTier: Tier) => void;

export class AgentService {
  readonly #tierListeners: TierChangeListener[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Registers a listener for tier changes (called synchronously after the store write; it must not throw). */
  onTierChange(listener: TierChangeListener): void {
    this.#tierListeners.push(listener);
  }

  #tierChanged(agent: AgentRecord, previousTier: Tier): void {
    if (agent.tier === previousTier) return;
    for (const listener of this.#tierListeners) listener(agent, previousTier);
  }

  leaderboard(limit: number): Promise<AgentRecord[]> {
    return this.store.agents.leaderboard(limit);
  }

  stats() {
    return this.store.agents.stats();
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
    const updated = await this.store.agents.addActivity(agentId, delta, this.clock());
    if (!updated) throw new NotFoundError(`agent_id: no agent ${agentId}`);
    return this.reevaluate(updated);
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
        this.#tierChanged(updated, agent.tier);
        return updated;
      }
      // The tier changed between read and write (a concurrent promotion): read again and re-apply.
    }
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
