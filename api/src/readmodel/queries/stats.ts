import { feesFromEvents } from "../folds/fees";
import { isOpen } from "../folds/positions";
import type { ReadModelReader } from "../store";
import type { BlockCache } from "./blockCache";
import { vaultPositions } from "./positions";
import { strategyRecords } from "./strategies";
import type { ProtocolStats, VaultList } from "./views";

/** The protocol's totals: TVL, holders, volumes, fees, strategies and governance activity. */
export async function protocolStats(
  store: ReadModelReader,
  cache: BlockCache,
  list: VaultList,
  indexedHeight: () => Promise<number | null>,
): Promise<ProtocolStats> {
  const users = new Set<string>();
  for (const vault of list.vaults) {
    for (const position of (await vaultPositions(store, cache, vault)).values()) {
      if (isOpen(position)) users.add(position.user);
    }
  }
  const vaultEvents = await store.events({
    addresses: list.vaults.map((v) => v.address.toLowerCase()),
    names: ["Deposit", "Withdraw", "RedeemRequest", "FeesAccrued", "PerformanceFeeCharged", "Transfer"],
  });
  let depositVolume = 0n;
  let withdrawVolume = 0n;
  let transactionCount = 0;
  for (const event of vaultEvents) {
    if (event.name === "Deposit") depositVolume += BigInt(String(event.args.assets));
    if (event.name === "Withdraw") withdrawVolume += BigInt(String(event.args.assets));
    if (event.name === "Deposit" || event.name === "Withdraw" || event.name === "RedeemRequest") transactionCount += 1;
  }
  const fees = feesFromEvents(vaultEvents);
  const feesAccrued = fees.management + fees.performance;
  const strategies = [...(await strategyRecords(store, cache)).values()];
  const governance = await store.events({
    contracts: ["NapGovernor"],
    names: ["ProposalCreated", "VoteCast", "VoteCastWithParams"],
  });
  const indexedBlock = await indexedHeight();
  return {
    totalTvl: list.totalTvl,
    totalTvlUsd: list.totalTvlUsd,
    vaultCount: list.vaults.length,
    userCount: users.size,
    transactionCount,
    depositVolume,
    withdrawVolume,
    feesAccrued,
    strategyCount: strategies.length,
    liveStrategyCount: strategies.filter((s) => s.status === "LIVE").length,
    proposalCount: governance.filter((e) => e.name === "ProposalCreated").length,
    voteCount: governance.filter((e) => e.name !== "ProposalCreated").length,
    indexedBlock,
    indexedAt: list.vaults.length > 0 ? Math.max(...list.vaults.map((v) => v.timestamp)) : null,
  };
}
