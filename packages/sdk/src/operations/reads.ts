import { z } from "zod";
import {
  INTERVALS,
  PERIODS,
  protocolStats,
  strategyList,
  userPositions,
  userTransactions,
  vaultDetail,
  vaultHistory,
} from "@nap/wire/data";
import { addressSchema, leaderboardResponse, proposalsResponse, vaultListResponse } from "@nap/wire/live";
import type { NapDataClient } from "../data";
import { agentAddress, defineOperation, NapOperationError } from "./operation";

/** Reads that need no agent: the live API's public lists and the data API (what the indexer saw onchain). */

const nothing = z.strictObject({});
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A vault's address from its address or deployment id (`moderate`): the data API's batch read knows both. */
export async function vaultAddress(data: NapDataClient, vault: string): Promise<string> {
  if (ADDRESS.test(vault)) return vault;
  const { vaults, notFound } = await data.vaultsBatch([vault]);
  if (notFound.length > 0 || vaults.length === 0) throw new NapOperationError(`vault: no vault ${vault}`);
  return vaults[0].address;
}

export const vaults = defineOperation({
  name: "vaults",
  title: "Vaults",
  description:
    "The NAP vaults read from the chain now: address, name, asset, total assets, APY and status. Use it to pick a vault before a deposit.",
  input: nothing,
  output: vaultListResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: (context) => context.live.vaults(),
});

export const proposals = defineOperation({
  name: "proposals",
  title: "Governance proposals",
  description:
    "The governance proposals that are pending or active, with their state and votes; their ids are what nap_vote takes.",
  input: nothing,
  output: proposalsResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: (context) => context.live.proposals(),
});

export const leaderboard = defineOperation({
  name: "leaderboard",
  title: "Agent leaderboard",
  description: "The registered agents, highest performance score first.",
  input: z.strictObject({
    limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "how many agents; default 50, at most 100" }),
  }),
  output: leaderboardResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: (context, args) => context.live.agents(args.limit !== undefined ? { limit: String(args.limit) } : {}),
});

export const vaultOutput = vaultDetail.extend({ history: vaultHistory }).meta({ id: "VaultWithHistory" });

export const vault = defineOperation({
  name: "vault",
  title: "A vault in detail",
  description:
    "One vault as the indexer saw it onchain: TVL, price per share, APY (now, 7 days, 30 days, since inception), fees, the strategies it allocates to, and its history over a period.",
  input: z.strictObject({
    vault: z.string().min(1).max(66).meta({ description: "the vault's address or id (conservative, moderate...)" }),
    period: z.enum(PERIODS).optional().meta({ description: "the history's span; default 30d" }),
    interval: z.enum(INTERVALS).optional().meta({ description: "the history's step; default 1d" }),
  }),
  output: vaultOutput,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: async (context, args) => {
    const address = await vaultAddress(context.data, args.vault);
    const history = {
      ...(args.period !== undefined ? { period: args.period } : {}),
      ...(args.interval !== undefined ? { interval: args.interval } : {}),
    };
    const [detail, points] = await Promise.all([
      context.data.vault(address),
      context.data.vaultHistory(address, history),
    ]);
    return { ...detail, history: points };
  },
});

export const strategies = defineOperation({
  name: "strategies",
  title: "All strategies",
  description: "Every strategy registered onchain (of all agents), with its status, as the indexer saw it.",
  input: nothing,
  output: strategyList,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: (context) => context.data.strategies(),
});

export const activityOutput = z
  .object({
    wallet: userPositions.shape.address,
    positions: userPositions.shape.positions,
    transactions: userTransactions.shape.transactions,
    total: userTransactions.shape.total,
    indexedBlock: userPositions.shape.indexedBlock,
  })
  .meta({ id: "WalletActivity" });

export const activity = defineOperation({
  name: "activity",
  title: "A wallet's activity",
  description:
    "Positions (value, cost, profit and loss) and the newest transactions of a wallet, as the indexer saw them onchain. Without a wallet: the agent's own.",
  input: z.strictObject({
    wallet: addressSchema.optional().meta({ description: "the wallet; default the agent's wallet" }),
    limit: z.number().int().min(1).max(100).optional().meta({ description: "how many transactions; default 20" }),
  }),
  output: activityOutput,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: async (context, args) => {
    const wallet = args.wallet ?? (await agentAddress(context));
    const [held, sent] = await Promise.all([
      context.data.userPositions(wallet),
      context.data.userTransactions(wallet, { limit: args.limit ?? 20 }),
    ]);
    return {
      wallet,
      positions: held.positions,
      transactions: sent.transactions,
      total: sent.total,
      indexedBlock: held.indexedBlock,
    };
  },
});

export const stats = defineOperation({
  name: "stats",
  title: "Protocol totals",
  description:
    "The protocol's totals as the indexer saw them: TVL, vaults, wallets, transactions, deposit and withdrawal volume, fees, strategies, proposals and votes.",
  input: nothing,
  output: protocolStats,
  readOnly: true,
  movesValue: false,
  needsAgent: false,
  run: (context) => context.data.protocolStats(),
});

export const READ_OPERATIONS = [vaults, proposals, leaderboard, vault, strategies, activity, stats] as const;
