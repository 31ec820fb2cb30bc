import { expect } from "chai";
import type { Deployment } from "../../../api/src/chain/deployment";
import { VAULT_IDS } from "../../../api/src/domain/model";
import type { Indexer, StepResult } from "../../../api/src/indexer/indexer";
import { DataQueries } from "../../../api/src/readmodel/queries";
import type { ReadModelStore } from "../../../api/src/readmodel/store";
import { lensAt } from "./activity";

/** Steps until the indexer has nothing left to do; answers every step's result. */
export async function indexUntilCaughtUp(indexer: Indexer): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (let i = 0; i < 1_000; i++) {
    const result = await indexer.step();
    results.push(result);
    if (result !== "indexed" && result !== "reorg") return results;
  }
  throw new Error("the indexer did not catch up in 1000 steps");
}

/** The read model against the chain's own view (VaultLens) at the indexed block. */
export async function expectReadModelMatchesChain(
  deployment: Deployment,
  store: ReadModelStore,
  holders: string[],
): Promise<void> {
  const cursor = await store.cursor();
  expect(cursor, "cursor").to.not.equal(null);
  const height = cursor!.height;
  const lens = lensAt(deployment);
  const addresses = VAULT_IDS.map((id) => deployment.vaults[id]!.address);
  const views = await lens.vaults(addresses, { blockTag: height });
  const queries = new DataQueries(store, { cursorTtlMs: 0 });
  const list = await queries.vaults();
  expect(list.vaults.map((v) => v.address).sort()).to.deep.equal([...addresses].sort());
  for (const view of views) {
    const vault = list.vaults.find((v) => v.address === view.vault)!;
    expect(vault.tvl, `${vault.id} tvl`).to.equal(view.totalAssets);
    expect(vault.totalShares, `${vault.id} shares`).to.equal(view.totalSupply);
    expect(vault.pricePerShare, `${vault.id} price`).to.equal(view.pricePerShare);
    expect(vault.isERC7540).to.equal(view.isERC7540);
    expect(vault.fulfillmentDelay).to.equal(Number(view.fulfillmentDelay));
  }
  for (const holder of holders) {
    const positions = await lens.positions(addresses, holder, { blockTag: height });
    const model = await queries.positions(holder);
    for (const onchain of positions) {
      const held = onchain.shares + onchain.pendingRedeemShares + onchain.claimableCancelShares;
      const mine = model.find((p) => p.vault.address === onchain.vault);
      if (held === 0n && onchain.claimableAssets === 0n) {
        expect(mine, `${holder} in ${onchain.vault}: no position`).to.equal(undefined);
        continue;
      }
      expect(mine, `${holder} in ${onchain.vault}`).to.not.equal(undefined);
      expect(mine!.shares, "wallet shares").to.equal(onchain.shares);
      expect(mine!.pendingRedeemShares, "pending shares").to.equal(onchain.pendingRedeemShares);
      expect(mine!.canceledShares, "canceled shares").to.equal(onchain.claimableCancelShares);
      expect(mine!.claimableAssets, "claimable assets").to.equal(onchain.claimableAssets);
    }
  }
}
