import type { Tier } from "../../domain/model";
import { DuplicateKeyError } from "../../errors";
import {
  withKeyReplaced,
  type AgentActivityDelta,
  type AgentRecord,
  type AgentStats,
  type AgentStore,
  type StrategyFact,
} from "../../usecases/agents";

/** Agents in memory (store/memory/index.ts: how every memory adapter keeps atomicity). */

function copyAgent(agent: AgentRecord): AgentRecord {
  const copy: AgentRecord = { ...agent, createdAt: new Date(agent.createdAt), updatedAt: new Date(agent.updatedAt) };
  if (agent.retiredKeys) copy.retiredKeys = agent.retiredKeys.map((key) => ({ ...key }));
  return copy;
}

function compareLeaderboard(a: AgentRecord, b: AgentRecord): number {
  if (a.performanceScore !== b.performanceScore) return b.performanceScore - a.performanceScore;
  if (a.createdAt.getTime() !== b.createdAt.getTime()) return a.createdAt.getTime() - b.createdAt.getTime();
  return a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0;
}

export class MemoryAgentStore implements AgentStore {
  private readonly byId = new Map<string, AgentRecord>();
  private readonly idByWallet = new Map<string, string>();
  private readonly idByKeyHash = new Map<string, string>();
  private readonly indexes = new Set<number>();
  /** Per agent: `${kind}:${strategyId}` of every strategy fact recorded. */
  private readonly facts = new Map<string, Set<string>>();
  /** Transaction hashes (lowercase) of the deposits counted. */
  private readonly deposits = new Set<string>();

  async insert(agent: AgentRecord): Promise<void> {
    const walletKey = agent.walletAddress.toLowerCase();
    if (this.byId.has(agent.agentId)) throw new DuplicateKeyError("agentId");
    if (this.idByWallet.has(walletKey)) throw new DuplicateKeyError("walletAddress");
    if (this.idByKeyHash.has(agent.apiKeyHash)) throw new DuplicateKeyError("apiKeyHash");
    if (this.indexes.has(agent.agentIndex)) throw new DuplicateKeyError("agentIndex");
    this.byId.set(agent.agentId, copyAgent(agent));
    this.idByWallet.set(walletKey, agent.agentId);
    this.idByKeyHash.set(agent.apiKeyHash, agent.agentId);
    this.indexes.add(agent.agentIndex);
  }

  async findById(agentId: string): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    return agent ? copyAgent(agent) : null;
  }

  async findByWallet(walletAddress: string): Promise<AgentRecord | null> {
    const id = this.idByWallet.get(walletAddress.toLowerCase());
    return id === undefined ? null : this.findById(id);
  }

  async findByKeyHash(apiKeyHash: string): Promise<AgentRecord | null> {
    const id = this.idByKeyHash.get(apiKeyHash);
    return id === undefined ? null : this.findById(id);
  }

  async leaderboard(limit: number): Promise<AgentRecord[]> {
    return [...this.byId.values()].sort(compareLeaderboard).slice(0, limit).map(copyAgent);
  }

  async stats(): Promise<AgentStats> {
    let activeAgents = 0;
    let strategiesSubmitted = 0;
    let depositsMicroUsdc = 0n;
    for (const agent of this.byId.values()) {
      if (agent.status === "active") activeAgents += 1;
      strategiesSubmitted += agent.strategiesSubmitted;
      depositsMicroUsdc += BigInt(agent.depositsMicroUsdc);
    }
    return { totalAgents: this.byId.size, activeAgents, strategiesSubmitted, depositsMicroUsdc };
  }

  async any(): Promise<boolean> {
    return this.byId.size > 0;
  }

  async addActivity(agentId: string, delta: AgentActivityDelta, now: Date): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    if (!agent) return null;
    agent.strategiesSubmitted += delta.strategiesSubmitted ?? 0;
    agent.strategiesPassedScreening += delta.strategiesPassedScreening ?? 0;
    agent.depositsMicroUsdc = (BigInt(agent.depositsMicroUsdc) + (delta.depositsMicroUsdc ?? 0n)).toString();
    agent.updatedAt = new Date(now);
    return copyAgent(agent);
  }

  async recordStrategyFacts(
    agentId: string,
    facts: StrategyFact[],
    now: Date,
    options: { recount?: boolean } = {},
  ): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    if (!agent) return null;
    let known = this.facts.get(agentId);
    if (!known) this.facts.set(agentId, (known = new Set()));
    for (const fact of facts) {
      const key = `${fact.kind}:${fact.strategyId.toLowerCase()}`;
      if (known.has(key)) continue;
      known.add(key);
      if (fact.kind === "submitted") agent.strategiesSubmitted += 1;
      else agent.strategiesPassedScreening += 1;
    }
    if (options.recount) {
      // Nothing is ever lost between a fact and its count here (no await between them); kept for the same contract.
      const keys = [...known];
      const submitted = keys.filter((key) => key.startsWith("submitted:")).length;
      agent.strategiesSubmitted = Math.max(agent.strategiesSubmitted, submitted);
      agent.strategiesPassedScreening = Math.max(agent.strategiesPassedScreening, keys.length - submitted);
    }
    agent.updatedAt = new Date(now);
    return copyAgent(agent);
  }

  async recordDeposit(agentId: string, txHash: string, microUsdc: bigint, now: Date): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    if (!agent) return null;
    const key = txHash.toLowerCase();
    if (this.deposits.has(key)) return copyAgent(agent);
    this.deposits.add(key);
    return this.addActivity(agentId, { depositsMicroUsdc: microUsdc }, now);
  }

  async updateStanding(
    agentId: string,
    expectedTier: Tier,
    update: { tier: Tier; tierGrantedBy?: string | null; performanceScore: number },
    now: Date,
  ): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    if (!agent || agent.tier !== expectedTier) return null;
    agent.tier = update.tier;
    if (update.tierGrantedBy === null) delete agent.tierGrantedBy;
    else if (update.tierGrantedBy !== undefined) agent.tierGrantedBy = update.tierGrantedBy;
    agent.performanceScore = update.performanceScore;
    agent.updatedAt = new Date(now);
    return copyAgent(agent);
  }

  async replaceKey(
    agentId: string,
    expectedHash: string,
    next: { hash: string; prefix: string } | null,
    now: Date,
  ): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    if (!agent || agent.apiKeyHash !== expectedHash) return null;
    if (next && this.idByKeyHash.has(next.hash)) throw new DuplicateKeyError("apiKeyHash");
    this.idByKeyHash.delete(agent.apiKeyHash);
    Object.assign(agent, withKeyReplaced(agent, next, new Date(now)));
    delete agent.apiKeyLastUsedAt;
    if (next) this.idByKeyHash.set(next.hash, agentId);
    agent.updatedAt = new Date(now);
    return copyAgent(agent);
  }

  async touchKey(agentId: string, apiKeyHash: string, at: Date): Promise<void> {
    const agent = this.byId.get(agentId);
    if (agent && agent.apiKeyHash === apiKeyHash) agent.apiKeyLastUsedAt = new Date(at);
  }

  async setOperator(agentId: string, expected: string, to: string, now: Date): Promise<AgentRecord | null> {
    const agent = this.byId.get(agentId);
    if (!agent || agent.operatorAddress.toLowerCase() !== expected.toLowerCase()) return null;
    agent.operatorAddress = to;
    agent.updatedAt = new Date(now);
    return copyAgent(agent);
  }
}
