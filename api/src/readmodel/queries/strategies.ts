import { getAddress } from "ethers";
import { foldStrategies, type StrategyRecord } from "../folds/strategies";
import { maxDrawdown, sharpeRatio } from "../metrics";
import type { ReadModelReader } from "../store";
import type { BlockCache } from "./blockCache";
import { pricePoints } from "./vaults";
import type { StrategyView, VaultView } from "./views";

/** Strategies: the registry's records folded from its events, and their figures from the vaults that allocate. */

export function strategyRecords(store: ReadModelReader, cache: BlockCache): Promise<Map<string, StrategyRecord>> {
  return cache.get("strategyRecords", async () =>
    foldStrategies(
      await store.events({
        contracts: ["StrategyRegistryV3"],
        names: ["StrategySubmitted", "StrategyStatusChanged"],
      }),
    ),
  );
}

/** Each vault's strategy entries carry the strategy's APY (computed over every vault). */
export async function fillStrategyApys(store: ReadModelReader, vaults: VaultView[], cache: BlockCache): Promise<void> {
  const views = await strategyViewsOf(store, vaults, cache);
  const apyOf = new Map(views.map((s) => [s.id, s.apy]));
  for (const vault of vaults) for (const s of vault.strategies) s.apy = apyOf.get(s.id) ?? 0;
}

/**
 * Strategy figures from the vaults that allocate to it, weighted by the TVL each allocation stands for:
 * allocation = that TVL / protocol TVL × 100; apy, sharpeRatio and maxDrawdown = weighted means of the vaults'
 * current APY, Sharpe ratio and max drawdown (daily samples); riskScore = the highest risk level among those vaults
 * (1 conservative, 2 moderate, 3 aggressive), 0 when no vault allocates to it (then every figure is 0).
 */
export function strategyViewsOf(
  store: ReadModelReader,
  vaults: readonly VaultView[],
  cache: BlockCache,
): Promise<StrategyView[]> {
  return cache.get("strategyViews", async () => {
    const records = await strategyRecords(store, cache);
    const totalTvl = vaults.reduce((sum, v) => sum + v.tvl, 0n);
    const risk = await Promise.all(
      vaults.map(async (vault) => {
        const daily = pricePoints(await store.snapshots(vault.address.toLowerCase(), "day", 0));
        return { sharpe: sharpeRatio(daily), drawdown: maxDrawdown(daily) };
      }),
    );
    const views: StrategyView[] = [];
    for (const record of [...records.values()].sort((a, b) => a.block - b.block)) {
      const uses = vaults.flatMap((vault, i) => {
        const allocation = vault.strategies.find((s) => s.id === record.id);
        if (!allocation) return [];
        const targetBps = Math.round(allocation.allocation * 100);
        return [{ vault, risk: risk[i], targetBps, allocatedTvl: (vault.tvl * BigInt(targetBps)) / 10_000n }];
      });
      const weightTotal = uses.reduce((sum, u) => sum + Number(u.allocatedTvl), 0);
      const weighted = (pick: (u: (typeof uses)[number]) => number) =>
        weightTotal === 0 ? 0 : uses.reduce((sum, u) => sum + pick(u) * Number(u.allocatedTvl), 0) / weightTotal;
      const allocated = uses.reduce((sum, u) => sum + u.allocatedTvl, 0n);
      views.push({
        id: record.id,
        name: record.name,
        description: record.description,
        owner: getAddress(record.owner),
        status: record.status,
        stage: record.stage,
        allocation: totalTvl === 0n ? 0 : (Number(allocated) / Number(totalTvl)) * 100,
        apy: weighted((u) => u.vault.apy.current),
        riskScore: uses.reduce(
          (max, u) => Math.max(max, ["CONSERVATIVE", "MODERATE", "AGGRESSIVE"].indexOf(u.vault.riskLevel) + 1),
          0,
        ),
        sharpeRatio: weighted((u) => u.risk.sharpe),
        maxDrawdown: weighted((u) => u.risk.drawdown),
        createdAt: record.createdAt,
        vaults: uses.map((u) => ({ address: u.vault.address, targetBps: u.targetBps, allocatedTvl: u.allocatedTvl })),
        transitions: record.transitions,
      });
    }
    return views;
  });
}
