import type { ChainAccess } from "../chain";
import { callLenient } from "../chain/abiText";
import type { OnchainRiskParams } from "../chain/events";
import { readChain } from "../chain/rpcErrors";
import { milestoneIndex, strategyStatus } from "../chain/vocabulary";
import type { ServerWallets } from "../chain/wallets";
import { MILESTONES, TIERS, type Tier } from "../domain/model";
import {
  SWEEP_MAX_AGENTS,
  SWEEP_MAX_STRATEGIES,
  screenStrategy,
  screeningIntentKey,
  type ScreeningMode,
} from "../domain/screening";
import { tierAtLeast } from "../domain/tiers";
import type { Logger } from "../logger";
import type { TxEngine } from "../tx";
import type { AgentRecord, AgentService, AgentStore } from "./agents";
import { factsBehind, readStrategies } from "./strategies";

/**
 * The relayer's own work, all sent from the relayer wallet through the transaction engine under intent keys that
 * make each happen once (also across restarts and instances): badges and the NAP grant when an agent's tier rises,
 * and the automated screening of new strategies (domain/screening.ts). It runs in the background of the requests
 * that cause it; `settled()` waits for what has started.
 */

export interface RelayerOptions {
  screening: ScreeningMode;
  /** NAP (18 decimals) minted to an agent's wallet when it reaches tier established. */
  napGrantWei: bigint;
}

export class Relayer {
  /** Background work still running, so that tests and shutdown can wait for it. */
  readonly #background = new Set<Promise<unknown>>();

  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
    private readonly agents: AgentService,
    private readonly agentStore: AgentStore,
    private readonly logger: Logger,
    private readonly options: RelayerOptions,
  ) {
    agents.onTierChange((agent, previous) => this.#onTierChange(agent, previous));
  }

  /** Waits for the background work started so far (and whatever it starts in turn). */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  /** Screens a newly submitted strategy in the background (when screening is on). */
  screenLater(agentId: string, strategyId: string): void {
    if (this.#screeningEnabled()) this.#inBackground(`screening ${strategyId}`, () => this.screen(agentId, strategyId));
  }

  /**
   * Screens one strategy by the rules of domain/screening.ts: the relayer sends passScreening or failScreening under
   * `screen:<chainId>:<strategyId>`, so a strategy is screened at most once, also across restarts and instances. A
   * pass is recorded for the agent (tier and score) by the call that created the intent; a crash between the receipt
   * and that record is caught up by the start-up sweep (counters follow the chain).
   * Returns the verdict sent, or null when the strategy is no longer in shadow.
   */
  async screen(agentId: string, strategyId: string): Promise<"passed" | "failed" | null> {
    const registry = this.chain.contracts.registry;
    const block = await this.chain.head.readBlock();
    const view = (await readChain("the strategy registry", () =>
      callLenient(registry, "getStrategy", [strategyId], block),
    )) as { status: bigint; params: OnchainRiskParams };
    if (strategyStatus(view.status) !== "shadow") return null;
    const verdict = screenStrategy(view.params);
    const result = await this.engine.send({
      wallet: { kind: "relayer" },
      to: registry.target as string,
      data: verdict.pass
        ? registry.interface.encodeFunctionData("passScreening", [strategyId])
        : registry.interface.encodeFunctionData("failScreening", [strategyId]),
      kind: "strategy.screen",
      intentKey: screeningIntentKey(this.chain.chainId, strategyId),
      requestor: "system",
      meta: { strategy_id: strategyId, verdict: verdict.pass ? "passed" : "failed", reasons: verdict.reasons },
    });
    if (verdict.pass) await this.agents.recordStrategyFacts(agentId, [{ kind: "passed_screening", strategyId }]);
    this.logger.info(
      { strategyId, agentId, verdict: verdict.pass ? "passed" : "failed", reasons: verdict.reasons, tx: result.hash },
      "strategy screened",
    );
    return verdict.pass ? "passed" : "failed";
  }

  /**
   * Start-up sweep (after the engine's reconcile): for up to SWEEP_MAX_AGENTS agents, the counters catch up with
   * the chain (awaited, reads only), then up to SWEEP_MAX_STRATEGIES strategies still in shadow are screened in the
   * background.
   */
  async sweep(): Promise<void> {
    if (!this.#screeningEnabled()) return;
    const queue: { agentId: string; strategyId: string }[] = [];
    let shadow = 0;
    let agentsSwept = 0;
    try {
      const block = await this.chain.head.readBlock();
      for (const agent of await this.agentStore.leaderboard(SWEEP_MAX_AGENTS)) {
        const strategies = await readStrategies(this.chain, this.wallets.agentAddress(agent.agentIndex), block);
        if (strategies.length === 0) continue;
        agentsSwept += 1;
        const facts = factsBehind(agent, strategies);
        if (facts) await this.agents.recordStrategyFacts(agent.agentId, facts, { recount: true });
        for (const strategy of strategies) {
          if (strategy.status !== "shadow") continue;
          shadow += 1;
          if (queue.length < SWEEP_MAX_STRATEGIES) queue.push({ agentId: agent.agentId, strategyId: strategy.id });
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, "screening sweep: reading agents or strategies failed; continuing");
    }
    this.logger.info(
      { agents: agentsSwept, shadow, screening: queue.length, deferred: shadow - queue.length },
      "screening sweep at start-up",
    );
    if (queue.length === 0) return;
    this.#inBackground("screening sweep", async () => {
      for (const { agentId, strategyId } of queue) {
        await this.screen(agentId, strategyId).catch((error: unknown) =>
          this.logger.warn({ err: error, strategyId }, "screening failed"),
        );
      }
    });
  }

  #screeningEnabled(): boolean {
    return (
      this.options.screening === "auto" && this.wallets.configured && this.chain.contracts.has("StrategyRegistryV3")
    );
  }

  /** On a rise: every badge up to the new tier that the wallet lacks, and the NAP grant at established or higher. */
  #onTierChange(agent: AgentRecord, previous: Tier): void {
    if (!this.wallets.configured || !this.chain.deployment) return;
    if (TIERS.indexOf(agent.tier) <= TIERS.indexOf(previous)) return;
    const address = this.wallets.agentAddress(agent.agentIndex);
    for (const milestone of MILESTONES) {
      if (tierAtLeast(agent.tier, milestone)) {
        this.#inBackground(`badge ${milestone}`, () => this.#mintBadge(address, milestoneIndex(milestone)));
      }
    }
    if (tierAtLeast(agent.tier, "established")) this.#inBackground("NAP grant", () => this.#grantNap(address));
  }

  async #mintBadge(address: string, milestone: number): Promise<void> {
    const badges = this.chain.contracts.badges;
    if ((await badges.badgeOf(address, milestone, { blockTag: await this.chain.head.readBlock() })) !== 0n) return;
    await this.engine.send({
      wallet: { kind: "relayer" },
      to: badges.target as string,
      data: badges.interface.encodeFunctionData("mint", [address, milestone]),
      kind: "badge.mint",
      intentKey: `badge:${this.chain.chainId}:${address.toLowerCase()}:${milestone}`,
      requestor: "system",
      meta: { recipient: address, milestone: MILESTONES[milestone] },
    });
  }

  async #grantNap(address: string): Promise<void> {
    const minter = this.chain.contracts.napMinter;
    await this.engine.send({
      wallet: { kind: "relayer" },
      to: minter.target as string,
      data: minter.interface.encodeFunctionData("mint", [address, this.options.napGrantWei]),
      kind: "nap.grant",
      intentKey: `nap-grant:${this.chain.chainId}:${address.toLowerCase()}`,
      requestor: "system",
      meta: { recipient: address, amount: this.options.napGrantWei.toString() },
    });
  }

  #inBackground(what: string, task: () => Promise<unknown>): void {
    const promise = task()
      .catch((error: unknown) => this.logger.warn({ err: error, what }, "relayer task failed"))
      .finally(() => this.#background.delete(promise));
    this.#background.add(promise);
  }
}
