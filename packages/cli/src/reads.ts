import { formatUnits } from "ethers";
import type { NapClient, NapDataClient } from "@nap/sdk";
import type { Output } from "./output";

/**
 * The CLI's reads of the public data API (REST /v1: what the indexer has seen onchain) and of the live API's
 * leaderboard. Amounts come in the asset's smallest unit; USDC has 6 decimals.
 */

export const USDC_DECIMALS = 6;
export const usdc = (raw: string) => formatUnits(raw, USDC_DECIMALS);

/** A vault's address from its address or deployment id (`moderate`): the data API's batch read knows both. */
export async function vaultAddress(data: NapDataClient, vault: string): Promise<string> {
  if (/^0x[0-9a-fA-F]{40}$/.test(vault)) return vault;
  const { vaults, notFound } = await data.vaultsBatch([vault]);
  if (notFound.length > 0 || vaults.length === 0) throw new Error(`no vault ${vault}`);
  return vaults[0].address;
}

export async function showVault(
  data: NapDataClient,
  out: Output,
  vault: string,
  history: { period?: "7d" | "30d" | "90d" | "1y" | "all"; interval?: "1h" | "4h" | "1d" | "1w" },
): Promise<void> {
  const address = await vaultAddress(data, vault);
  const [detail, points] = await Promise.all([data.vault(address), data.vaultHistory(address, history)]);
  out.result({ ...detail, history: points }, [
    `${detail.name} (${detail.symbol}) ${detail.address}, ${detail.riskLevel}${detail.paused ? ", paused" : ""}`,
    `TVL ${usdc(detail.tvl)} USDC, ${formatUnits(detail.totalShares, detail.shareDecimals)} shares, ` +
      `price ${usdc(detail.pricePerShare)} USDC per share`,
    `APY ${detail.apy.current}% now, ${detail.apy["7d"]}% 7d, ${detail.apy["30d"]}% 30d, ${detail.apy.inception}% since inception`,
    `fees: management ${detail.fees.management}%/year, performance ${detail.fees.performance}% above a ${detail.fees.hurdle}% hurdle`,
    ...(detail.strategies.length === 0
      ? ["no strategies allocated"]
      : detail.strategies.map((s) => `strategy ${s.name}: ${s.allocation}% of the vault, APY ${s.apy}%`)),
    `history (${points.period}, every ${points.interval}), indexed to block ${detail.indexedBlock}:`,
    ...(points.points.length === 0
      ? ["  no points yet"]
      : points.points.map(
          (p) => `  ${p.timestamp}  TVL ${usdc(p.tvl)}  price ${usdc(p.pricePerShare)}  APY ${p.apy}%`,
        )),
  ]);
}

export async function showActivity(data: NapDataClient, out: Output, wallet: string, limit: number): Promise<void> {
  const [positions, transactions] = await Promise.all([
    data.userPositions(wallet),
    data.userTransactions(wallet, { limit }),
  ]);
  out.result({ positions: positions.positions, transactions: transactions.transactions, total: transactions.total }, [
    `wallet ${wallet}, indexed to block ${positions.indexedBlock}`,
    ...(positions.positions.length === 0
      ? ["no positions"]
      : positions.positions.map(
          (p) =>
            `${p.vault.name}: worth ${usdc(p.value)} USDC, cost ${usdc(p.costBasis)}, PnL ${usdc(p.pnl)} (${p.pnlPercent}%)`,
        )),
    `${transactions.total} transactions${transactions.total > transactions.transactions.length ? ` (newest ${transactions.transactions.length})` : ""}:`,
    ...transactions.transactions.map(
      (t) => `  ${t.timestamp}  ${t.type} ${usdc(t.amount)} USDC  ${t.vault.name}  ${t.status}  ${t.hash}`,
    ),
  ]);
}

export async function showStats(data: NapDataClient, out: Output): Promise<void> {
  const stats = await data.protocolStats();
  out.result(stats, [
    `TVL ${usdc(stats.totalTvl)} USDC in ${stats.vaultCount} vaults, ${stats.userCount} wallets with a position`,
    `${stats.transactionCount} transactions: ${usdc(stats.depositVolume)} USDC deposited, ${usdc(stats.withdrawVolume)} withdrawn, ${usdc(stats.feesAccrued)} fees accrued`,
    `${stats.strategyCount} strategies (${stats.liveStrategyCount} live), ${stats.proposalCount} proposals, ${stats.voteCount} votes`,
    `indexed to block ${stats.indexedBlock}${stats.indexedAt ? ` (${stats.indexedAt})` : ""}`,
  ]);
}

export async function showLeaderboard(live: NapClient, out: Output, limit: number | undefined): Promise<void> {
  const board = await live.agents(limit !== undefined ? { limit: String(limit) } : {});
  out.result(
    board,
    board.agents.length === 0
      ? ["no agents yet"]
      : board.agents.map(
          (a, i) =>
            `${i + 1}. ${a.agent_name} (${a.tier}): score ${a.performance_score}, ${a.strategies_submitted} strategies`,
        ),
  );
}
