import { foldPositions, valuePosition, type PositionState } from "../folds/positions";
import type { ReadModelReader } from "../store";
import type { BlockCache } from "./blockCache";
import type { PositionView, VaultView } from "./views";

/** Positions: every holder's of one vault folded from its events once per block, and a position's view. */

const POSITION_EVENTS = [
  "Transfer",
  "Deposit",
  "Withdraw",
  "RedeemRequest",
  "RedeemFulfilled",
  "CancelRedeemRequest",
  "CancelRedeemClaim",
];

/** Every holder's position in `vault`, by lowercase address. */
export function vaultPositions(
  store: ReadModelReader,
  cache: BlockCache,
  vault: VaultView,
): Promise<Map<string, PositionState>> {
  const address = vault.address.toLowerCase();
  return cache.get(`vaultPositions:${address}`, async () =>
    foldPositions(address, vault.isERC7540, await store.events({ addresses: [address], names: POSITION_EVENTS })),
  );
}

export function positionView(vault: VaultView, position: PositionState): PositionView {
  const { value, pnl, pnlPercent } = valuePosition(position, vault.pricePerShare, vault.shareDecimals);
  return {
    vault,
    shares: position.shares,
    pendingRedeemShares: position.pendingShares,
    canceledShares: position.canceledShares,
    claimableAssets: position.claimableAssets,
    value,
    costBasis: position.cost,
    realizedPnl: position.realized,
    pnl,
    pnlPercent,
    depositedAt: position.depositedAt ?? 0,
  };
}
