import type { DecodedEvent } from "../chain/events";
import type { IndexedEvent } from "../readmodel/records";

/** Turns a decoded log into the read model's record: JSON-safe arguments and the addresses it concerns. */

const ZERO = "0x0000000000000000000000000000000000000000";

/** bigint as a decimal string, nested values likewise; everything else as decoded. */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value && typeof value === "object") {
    const safe: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const inner = jsonSafe((value as Record<string, unknown>)[key]);
      // An argument named "__proto__" stays an argument: assigning it would set the record's prototype.
      if (key === "__proto__") {
        Object.defineProperty(safe, key, { value: inner, enumerable: true, writable: true, configurable: true });
      } else safe[key] = inner;
    }
    return safe;
  }
  return value;
}

/** Whether `text` is "0x" and 40 hex digits of either case (what an address argument decodes to). */
export function isAddressText(text: string): boolean {
  if (text.length !== 42 || text.charCodeAt(0) !== 48 || text.charCodeAt(1) !== 120) return false;
  for (let i = 2; i < 42; i++) {
    const c = text.charCodeAt(i);
    const letter = c | 0x20; // A-F folded onto a-f (only those two ranges fold onto a-f)
    if (!((c >= 48 && c <= 57) || (letter >= 97 && letter <= 102))) return false;
  }
  return true;
}

/** Every address argument (top level) other than the zero address and the emitting contract, lowercased. */
function usersOf(args: Record<string, unknown>, self: string): string[] {
  const users: string[] = [];
  for (const key of Object.keys(args)) {
    const value = args[key];
    if (typeof value !== "string" || !isAddressText(value)) continue;
    const address = value.toLowerCase();
    if (address !== ZERO && address !== self && !users.includes(address)) users.push(address);
  }
  return users;
}

export function indexedEvent(
  chainId: number,
  event: DecodedEvent,
  block: { hash: string; timestamp: number },
): IndexedEvent {
  const transactionHash = event.transactionHash.toLowerCase();
  const address = event.address.toLowerCase();
  return {
    id: `${chainId}:${transactionHash}:${event.index}`,
    chainId,
    block: event.blockNumber,
    blockHash: block.hash,
    timestamp: block.timestamp,
    transactionHash,
    logIndex: event.index,
    contract: event.contract,
    address,
    name: event.name,
    args: jsonSafe(event.args) as Record<string, unknown>,
    users: usersOf(event.args, address),
  };
}

/** Vault events after which its share price or total assets may differ (a snapshot point is taken at their block). */
export const PRICE_MOVING_EVENTS: ReadonlySet<string> = new Set([
  "Deposit",
  "Withdraw",
  "Reported",
  "FeesAccrued",
  "FeesClaimed",
  "PerformanceFeeCharged",
  "RedeemFulfilled",
]);

/**
 * Vault events that change none of its record's fields but its figures (totalAssets, totalSupply, price per share):
 * after a batch whose logs of a vault are all of these, its record is the last one with new figures (VaultLens
 * `samples`) instead of a new read of its whole view. Any other log of the vault (fees, pause, allocations, cap, ...,
 * or one not decoded) has the whole view read again.
 */
export const FIGURES_ONLY_EVENTS: ReadonlySet<string> = new Set([
  "Approval",
  "CancelRedeemClaim",
  "CancelRedeemRequest",
  "Deposit",
  "FeesAccrued",
  "FeesClaimed",
  "OperatorSet",
  "PerformanceFeeCharged",
  "RedeemFulfilled",
  "RedeemRequest",
  "Reported",
  "RoleAdminChanged",
  "RoleGranted",
  "RoleRevoked",
  "Transfer",
  "Withdraw",
]);
