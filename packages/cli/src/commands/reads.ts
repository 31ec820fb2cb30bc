import { formatUnits } from "ethers";
import { Reader } from "./binding";
import type { CommandTable } from "./table";

/**
 * The commands of the reads that need no agent: the live API's lists and the data API (what the indexer saw
 * onchain). Amounts of the data API come in the asset's smallest unit; USDC has 6 decimals.
 */

export const USDC_DECIMALS = 6;
export const usdc = (raw: string) => formatUnits(raw, USDC_DECIMALS);

const PERIODS = ["7d", "30d", "90d", "1y", "all"] as const;
const INTERVALS = ["1h", "4h", "1d", "1w"] as const;

export const READ_COMMANDS = {
  vaults: {
    args: () => ({}),
    lines: (list) =>
      list.vaults.map((v) => `${v.name} (${v.address}): ${v.total_assets} ${v.asset}, APY ${v.apy}%, ${v.status}`),
  },
  proposals: {
    args: () => ({}),
    lines: (list) =>
      list.proposals.length === 0
        ? ["no proposals"]
        : list.proposals.map((p) => `#${p.proposal_id} ${p.state}: ${p.description}`),
  },
  leaderboard: {
    args: (line) => {
      const limit = new Reader("leaderboard").count(line.flags.limit, "--limit");
      return limit !== undefined ? { limit } : {};
    },
    lines: (board) =>
      board.agents.length === 0
        ? ["no agents yet"]
        : board.agents.map(
            (a, i) =>
              `${i + 1}. ${a.agent_name} (${a.tier}): score ${a.performance_score}, ${a.strategies_submitted} strategies`,
          ),
  },
  vault: {
    args: (line) => {
      const read = new Reader("vault");
      const period = read.oneOf(line.flags.period, PERIODS, "--period");
      const interval = read.oneOf(line.flags.interval, INTERVALS, "--interval");
      return {
        vault: read.need(line.positionals[0], "VAULT"),
        ...(period !== undefined ? { period } : {}),
        ...(interval !== undefined ? { interval } : {}),
      };
    },
    lines: (detail) => {
      const points = detail.history;
      return [
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
      ];
    },
  },
  strategies: {
    args: () => ({}),
    lines: (list) =>
      list.strategies.length === 0
        ? ["no strategies yet"]
        : list.strategies.map((s) => `${s.id}  ${s.status}  ${s.name}`),
  },
  activity: {
    args: (line) => {
      const limit = new Reader("activity").count(line.flags.limit, "--limit");
      return {
        ...(line.positionals[0] !== undefined ? { wallet: line.positionals[0] } : {}),
        ...(limit !== undefined ? { limit } : {}),
      };
    },
    // Without a wallet it reads the saved agent's.
    asAgent: (args) => args.wallet === undefined,
    lines: (activity) => [
      `wallet ${activity.wallet}, indexed to block ${activity.indexedBlock}`,
      ...(activity.positions.length === 0
        ? ["no positions"]
        : activity.positions.map(
            (p) =>
              `${p.vault.name}: worth ${usdc(p.value)} USDC, cost ${usdc(p.costBasis)}, PnL ${usdc(p.pnl)} (${p.pnlPercent}%)`,
          )),
      `${activity.total} transactions${activity.total > activity.transactions.length ? ` (newest ${activity.transactions.length})` : ""}:`,
      ...activity.transactions.map(
        (t) => `  ${t.timestamp}  ${t.type} ${usdc(t.amount)} USDC  ${t.vault.name}  ${t.status}  ${t.hash}`,
      ),
    ],
  },
  stats: {
    args: () => ({}),
    lines: (stats) => [
      `TVL ${usdc(stats.totalTvl)} USDC in ${stats.vaultCount} vaults, ${stats.userCount} wallets with a position`,
      `${stats.transactionCount} transactions: ${usdc(stats.depositVolume)} USDC deposited, ${usdc(stats.withdrawVolume)} withdrawn, ${usdc(stats.feesAccrued)} fees accrued`,
      `${stats.strategyCount} strategies (${stats.liveStrategyCount} live), ${stats.proposalCount} proposals, ${stats.voteCount} votes`,
      `indexed to block ${stats.indexedBlock}${stats.indexedAt ? ` (${stats.indexedAt})` : ""}`,
    ],
  },
} satisfies Partial<CommandTable>;
