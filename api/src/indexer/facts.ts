import type { DecodedEvent } from "../chain/events";
import type { IndexedEvent } from "../readmodel/records";

/** Turns a decoded log into the read model's record: JSON-safe arguments and the addresses it concerns. */

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO = "0x0000000000000000000000000000000000000000";

/** bigint as a decimal string, nested values likewise; everything else as decoded. */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, jsonSafe(inner)]));
  }
  return value;
}

/** Every address argument (top level) other than the zero address and the emitting contract, lowercased. */
function usersOf(event: DecodedEvent): string[] {
  const self = event.address.toLowerCase();
  const users = new Set<string>();
  for (const value of Object.values(event.args)) {
    if (typeof value !== "string" || !ADDRESS.test(value)) continue;
    const address = value.toLowerCase();
    if (address !== ZERO && address !== self) users.add(address);
  }
  return [...users];
}

export function indexedEvent(
  chainId: number,
  event: DecodedEvent,
  block: { hash: string; timestamp: number },
): IndexedEvent {
  return {
    id: `${chainId}:${event.transactionHash.toLowerCase()}:${event.index}`,
    chainId,
    block: event.blockNumber,
    blockHash: block.hash,
    timestamp: block.timestamp,
    transactionHash: event.transactionHash.toLowerCase(),
    logIndex: event.index,
    contract: event.contract,
    address: event.address.toLowerCase(),
    name: event.name,
    args: jsonSafe(event.args) as Record<string, unknown>,
    users: usersOf(event),
  };
}

/** Vault events after which its share price or total assets may differ (a snapshot point is taken at their block). */
export const PRICE_MOVING_EVENTS: ReadonlySet<string> = new Set([
  "Deposit",
  "Withdraw",
  "Reported",
  "FeesAccrued",
  "FeesClaimed",
  "RedeemFulfilled",
]);
