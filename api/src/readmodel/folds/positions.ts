import type { IndexedEvent } from "../records";

/**
 * Positions with cost basis, folded from one vault's events in chain order (average cost):
 *
 * - A deposit adds its assets to the receiver's cost.
 * - Shares that move between two wallets carry their part of the sender's cost: cost × moved / held, where held
 *   counts the wallet's shares, its shares in pending requests and its canceled shares not yet claimed back.
 * - A synchronous withdrawal and a fulfilled redemption remove that part of the cost; the assets paid minus the cost
 *   removed is realised profit (negative for a loss).
 * - pnl = value of what is still held (shares, pending and canceled shares at the vault's price, plus claimable
 *   assets) − remaining cost + realised profit; pnlPercent = pnl / every cost that ever entered the position × 100.
 * - depositedAt: the block time at which the position last went from empty to non-empty.
 */

export interface PositionState {
  user: string;
  /** Shares in the wallet (the vault's balanceOf). */
  shares: bigint;
  /** Shares in requests not yet fulfilled (ERC-7540). */
  pendingShares: bigint;
  /** Shares of canceled requests, not yet claimed back. */
  canceledShares: bigint;
  /** Assets of fulfilled requests, not yet claimed. */
  claimableAssets: bigint;
  /** Cost of the shares still held (including pending and canceled ones). */
  cost: bigint;
  /** Every cost that entered: deposits and shares received from other wallets. */
  costIn: bigint;
  realized: bigint;
  depositedAssets: bigint;
  withdrawnAssets: bigint;
  /** Unix seconds, or null when the position never held anything. */
  depositedAt: number | null;
}

function emptyPosition(user: string): PositionState {
  return {
    user,
    shares: 0n,
    pendingShares: 0n,
    canceledShares: 0n,
    claimableAssets: 0n,
    cost: 0n,
    costIn: 0n,
    realized: 0n,
    depositedAssets: 0n,
    withdrawnAssets: 0n,
    depositedAt: null,
  };
}

const ZERO = "0x0000000000000000000000000000000000000000";

function held(p: PositionState): bigint {
  return p.shares + p.pendingShares + p.canceledShares;
}

function isEmpty(p: PositionState): boolean {
  return held(p) === 0n && p.claimableAssets === 0n;
}

/** The part of `p`'s cost that `shares` of `heldBefore` carry. */
function costShare(p: PositionState, shares: bigint, heldBefore: bigint): bigint {
  return heldBefore === 0n ? 0n : (p.cost * shares) / heldBefore;
}

const lower = (value: unknown) => String(value).toLowerCase();
const big = (value: unknown) => BigInt(String(value));

/** Folds the events of one vault (`vault`, lowercase) into every user's position. */
export function foldPositions(
  vault: string,
  isAsync: boolean,
  events: readonly IndexedEvent[],
): Map<string, PositionState> {
  const positions = new Map<string, PositionState>();
  const of = (user: string) => {
    let p = positions.get(user);
    if (!p) positions.set(user, (p = emptyPosition(user)));
    return p;
  };
  const opening = (p: PositionState, timestamp: number) => {
    if (isEmpty(p)) p.depositedAt = timestamp;
  };
  for (const event of events) {
    if (event.address !== vault) continue;
    const a = event.args;
    switch (event.name) {
      case "Transfer": {
        const from = lower(a.from);
        const to = lower(a.to);
        const value = big(a.value);
        const userFrom = from !== ZERO && from !== vault;
        const userTo = to !== ZERO && to !== vault;
        if (userFrom && userTo) {
          const sender = of(from);
          const moved = costShare(sender, value, held(sender));
          sender.cost -= moved;
          sender.shares -= value;
          const receiver = of(to);
          opening(receiver, event.timestamp);
          receiver.shares += value;
          receiver.cost += moved;
          receiver.costIn += moved;
        } else if (userFrom) {
          // Burnt by a withdrawal (its Withdraw event removes the cost) or moved into a request.
          of(from).shares -= value;
        } else if (userTo) {
          // From zero: a mint (its Deposit event adds the cost); from the vault: canceled shares claimed back.
          const receiver = of(to);
          opening(receiver, event.timestamp);
          receiver.shares += value;
        }
        break;
      }
      case "Deposit": {
        const owner = of(lower(a.owner));
        const assets = big(a.assets);
        owner.cost += assets;
        owner.costIn += assets;
        owner.depositedAssets += assets;
        break;
      }
      case "Withdraw": {
        const owner = of(lower(a.owner));
        const assets = big(a.assets);
        owner.withdrawnAssets += assets;
        if (isAsync) {
          // A claim: its cost left when the request was fulfilled.
          owner.claimableAssets -= assets;
        } else {
          const shares = big(a.shares);
          const removed = costShare(owner, shares, held(owner) + shares);
          owner.cost -= removed;
          owner.realized += assets - removed;
        }
        break;
      }
      case "RedeemRequest": {
        const controller = of(lower(a.controller));
        const owner = of(lower(a.owner));
        const shares = big(a.shares);
        if (controller !== owner) {
          const moved = costShare(owner, shares, held(owner) + shares);
          owner.cost -= moved;
          opening(controller, event.timestamp);
          controller.cost += moved;
          controller.costIn += moved;
        }
        controller.pendingShares += shares;
        break;
      }
      case "RedeemFulfilled": {
        const controller = of(lower(a.controller));
        const shares = big(a.shares);
        const assets = big(a.assets);
        const removed = costShare(controller, shares, held(controller));
        controller.cost -= removed;
        controller.realized += assets - removed;
        controller.pendingShares -= shares;
        controller.claimableAssets += assets;
        break;
      }
      case "CancelRedeemRequest": {
        const controller = of(lower(a.controller));
        controller.canceledShares += controller.pendingShares;
        controller.pendingShares = 0n;
        break;
      }
      case "CancelRedeemClaim": {
        const controller = of(lower(a.controller));
        const receiver = lower(a.receiver);
        const shares = big(a.shares);
        if (receiver !== controller.user) {
          const moved = costShare(controller, shares, held(controller));
          controller.cost -= moved;
          const target = of(receiver);
          target.cost += moved;
          target.costIn += moved;
        }
        controller.canceledShares -= shares;
        break;
      }
    }
  }
  return positions;
}

export interface PositionValue {
  /** Value of what is held, in asset units. */
  value: bigint;
  pnl: bigint;
  pnlPercent: number;
}

/** Values a position at `pricePerShare` (assets for 10**shareDecimals shares). */
export function valuePosition(p: PositionState, pricePerShare: bigint, shareDecimals: number): PositionValue {
  const value = (held(p) * pricePerShare) / 10n ** BigInt(shareDecimals) + p.claimableAssets;
  const pnl = value - p.cost + p.realized;
  const pnlPercent = p.costIn === 0n ? 0 : (Number(pnl) / Number(p.costIn)) * 100;
  return { value, pnl, pnlPercent };
}

export function isOpen(p: PositionState): boolean {
  return !isEmpty(p);
}
