import type { IndexedEvent } from "../records";

/**
 * The data API's transactions, folded from vault events in chain order:
 *
 * | event                        | type           | user        | amount              | status                     |
 * |------------------------------|----------------|-------------|---------------------|----------------------------|
 * | Deposit                      | DEPOSIT        | owner       | assets              | FULFILLED                  |
 * | Withdraw (synchronous vault) | WITHDRAW       | owner       | assets              | FULFILLED                  |
 * | RedeemRequest                | REDEEM_REQUEST | controller  | assets once filled  | PENDING → FULFILLED → CLAIMED, or FAILED |
 * | Withdraw (ERC-7540 vault)    | CLAIM          | controller  | assets              | CLAIMED                    |
 *
 * PENDING: the request is onchain and its shares are held by the vault, but no assets are set aside for it yet (its
 * amount is 0 until then). FULFILLED: `fulfillRedeem` burnt its shares and set its assets aside; they may be
 * claimed. CLAIMED: the controller's claims have taken all of its assets (claims pay the oldest fulfilled requests
 * first). FAILED: the request was canceled before it was filled (its shares can be claimed back). A fulfilment fills
 * every pending request of the controller at once; its assets are shared among them in proportion to their shares
 * (the last one takes the rounding remainder). DEPOSIT_REQUEST is part of the spec's vocabulary but never occurs:
 * the vaults take deposits synchronously.
 */

export type TransactionType = "DEPOSIT" | "WITHDRAW" | "DEPOSIT_REQUEST" | "REDEEM_REQUEST" | "CLAIM";
export type TransactionStatus = "PENDING" | "FULFILLED" | "CLAIMED" | "FAILED";

export interface VaultTransaction {
  /** Transaction hash. */
  hash: string;
  /** The log's id in the read model (a transaction may hold several). */
  eventId: string;
  type: TransactionType;
  vault: string;
  user: string;
  amount: bigint;
  shares: bigint | null;
  status: TransactionStatus;
  timestamp: number;
  block: number;
  logIndex: number;
}

/** Vault events that make a transaction (the fold's table above); other vault events only change state. */
const TRANSACTION_EVENT_NAMES: ReadonlySet<string> = new Set(["Deposit", "Withdraw", "RedeemRequest"]);

export function makesTransaction(event: IndexedEvent): boolean {
  return event.contract.startsWith("NapVault:") && TRANSACTION_EVENT_NAMES.has(event.name);
}

const lower = (value: unknown) => String(value).toLowerCase();
const big = (value: unknown) => BigInt(String(value));

/** Folds the events of vaults (`asyncVaults` lists the ERC-7540 ones) into transactions, oldest first. */
export function foldTransactions(
  events: readonly IndexedEvent[],
  asyncVaults: ReadonlySet<string>,
): VaultTransaction[] {
  const transactions: VaultTransaction[] = [];
  /** Per vault and controller: requests waiting for a fulfilment, and fulfilled ones with what is left to claim. */
  const pending = new Map<string, VaultTransaction[]>();
  const claimable = new Map<string, { tx: VaultTransaction; left: bigint }[]>();
  const add = (event: IndexedEvent, type: TransactionType, user: string, amount: bigint, shares: bigint | null) => {
    const tx: VaultTransaction = {
      hash: event.transactionHash,
      eventId: event.id,
      type,
      vault: event.address,
      user,
      amount,
      shares,
      status: type === "REDEEM_REQUEST" ? "PENDING" : type === "CLAIM" ? "CLAIMED" : "FULFILLED",
      timestamp: event.timestamp,
      block: event.block,
      logIndex: event.logIndex,
    };
    transactions.push(tx);
    return tx;
  };
  for (const event of events) {
    if (!event.contract.startsWith("NapVault:")) continue;
    const a = event.args;
    switch (event.name) {
      case "Deposit":
        add(event, "DEPOSIT", lower(a.owner), big(a.assets), big(a.shares));
        break;
      case "Withdraw": {
        const user = lower(a.owner);
        if (!asyncVaults.has(event.address)) {
          add(event, "WITHDRAW", user, big(a.assets), big(a.shares));
          break;
        }
        add(event, "CLAIM", user, big(a.assets), big(a.shares));
        let left = big(a.assets);
        const queue = claimable.get(`${event.address}:${user}`) ?? [];
        while (left > 0n && queue.length > 0) {
          const head = queue[0];
          const taken = left < head.left ? left : head.left;
          head.left -= taken;
          left -= taken;
          if (head.left === 0n) {
            head.tx.status = "CLAIMED";
            queue.shift();
          }
        }
        break;
      }
      case "RedeemRequest": {
        const user = lower(a.controller);
        const tx = add(event, "REDEEM_REQUEST", user, 0n, big(a.shares));
        const key = `${event.address}:${user}`;
        pending.set(key, [...(pending.get(key) ?? []), tx]);
        break;
      }
      case "RedeemFulfilled": {
        const key = `${event.address}:${lower(a.controller)}`;
        const requests = pending.get(key) ?? [];
        pending.delete(key);
        const shares = big(a.shares);
        const assets = big(a.assets);
        let given = 0n;
        const queue = claimable.get(key) ?? [];
        requests.forEach((tx, i) => {
          const part =
            i === requests.length - 1 ? assets - given : shares === 0n ? 0n : (assets * (tx.shares ?? 0n)) / shares;
          given += part;
          tx.amount = part;
          tx.status = part === 0n ? "CLAIMED" : "FULFILLED";
          if (part > 0n) queue.push({ tx, left: part });
        });
        claimable.set(key, queue);
        break;
      }
      case "CancelRedeemRequest": {
        const key = `${event.address}:${lower(a.controller)}`;
        for (const tx of pending.get(key) ?? []) tx.status = "FAILED";
        pending.delete(key);
        break;
      }
    }
  }
  return transactions;
}
