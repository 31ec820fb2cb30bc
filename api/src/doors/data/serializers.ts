import { getAddress } from "ethers";
import type { z } from "zod";
import type { PositionView, StrategyView, TransactionView, VaultView } from "../../readmodel/queries";
import type * as schemas from "../../../../packages/wire/src/data";

/**
 * The data API's wire forms of the query layer's answers, shared by every door that sends them (REST /v1 and the
 * /ws channel), so that a vault or a transaction looks the same whichever door it came through. Integers in smallest
 * units are decimal strings, times ISO 8601, percentages numbers.
 */

export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

const RISK = { CONSERVATIVE: "conservative", MODERATE: "moderate", AGGRESSIVE: "aggressive" } as const;

export function vaultListItem(v: VaultView): z.input<typeof schemas.vaultListItem> {
  return {
    address: v.address,
    name: v.name,
    symbol: v.symbol,
    tvl: v.tvl.toString(),
    tvlUsd: v.tvlUsd,
    apy: v.apy.current,
    riskLevel: RISK[v.riskLevel],
    strategies: v.strategies.length,
    isERC7540: v.isERC7540,
    fulfillmentDelay: v.fulfillmentDelay,
  };
}

export function vaultDetail(v: VaultView): z.input<typeof schemas.vaultDetail> {
  return {
    address: v.address,
    name: v.name,
    symbol: v.symbol,
    asset: v.asset,
    tvl: v.tvl.toString(),
    tvlUsd: v.tvlUsd,
    totalShares: v.totalShares.toString(),
    pricePerShare: v.pricePerShare.toString(),
    shareDecimals: v.shareDecimals,
    apy: { current: v.apy.current, "7d": v.apy.day7, "30d": v.apy.day30, inception: v.apy.inception },
    fees: v.fees,
    riskLevel: RISK[v.riskLevel],
    strategies: v.strategies.map((s) => ({ id: s.id, name: s.name, allocation: s.allocation, apy: s.apy })),
    isERC7540: v.isERC7540,
    fulfillmentDelay: v.fulfillmentDelay,
    paused: v.paused,
    createdAt: iso(v.createdAt),
    indexedBlock: v.block,
  };
}

export function strategyItem(s: StrategyView) {
  return {
    id: s.id,
    name: s.name,
    owner: s.owner,
    status: s.status,
    stage: s.stage,
    allocation: s.allocation,
    apy: s.apy,
    riskScore: s.riskScore,
    sharpeRatio: s.sharpeRatio,
    maxDrawdown: s.maxDrawdown,
    createdAt: iso(s.createdAt),
  };
}

const vaultRef = (v: VaultView) => ({ address: v.address, name: v.name, symbol: v.symbol });

export function positionItem(p: PositionView) {
  return {
    vault: vaultRef(p.vault),
    shares: (p.shares + p.pendingRedeemShares + p.canceledShares).toString(),
    pendingRedeemShares: p.pendingRedeemShares.toString(),
    claimableAssets: p.claimableAssets.toString(),
    value: p.value.toString(),
    costBasis: p.costBasis.toString(),
    realizedPnl: p.realizedPnl.toString(),
    pnl: p.pnl.toString(),
    pnlPercent: p.pnlPercent,
    depositedAt: iso(p.depositedAt),
  };
}

export function transactionItem(tx: TransactionView) {
  return {
    hash: tx.hash,
    type: tx.type,
    vault: vaultRef(tx.vault),
    user: getAddress(tx.user),
    amount: tx.amount.toString(),
    shares: tx.shares === null ? null : tx.shares.toString(),
    status: tx.status,
    timestamp: iso(tx.timestamp),
    block: tx.block,
  };
}
