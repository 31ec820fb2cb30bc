import type { IndexedEvent } from "../records";

const ZERO = "0x0000000000000000000000000000000000000000";
const lower = (value: unknown) => String(value).toLowerCase();
const big = (value: unknown) => BigInt(String(value));

/**
 * The fees vault events show, in assets (docs/vaults.md, "Fees"), folded from events in chain order:
 *
 * - `FeesAccrued(recipient, managementFee, performanceFee)`: the explicit accruals (accrueFees, claimFees, report,
 *   fee changes) and their figures.
 * - `PerformanceFeeCharged(holder, shares, assets)`: a holder's performance fee settled by `settle` or by the fill of
 *   its request.
 * - A synchronous exit settles the owner's performance fee without an event of its own, so that the exit stays
 *   within its gas bound: the fee shares are burnt in the exit's own Transfer to the zero address, beyond the
 *   `shares` of its Withdraw. They are valued at the exit's price (Withdraw assets / shares, rounded down), which
 *   the settlement only raises by rounding.
 *
 * The hot path's management fee (every deposit, exit and fill brings it to date) has no event: it reaches the fee
 * recipient's `FeesClaimed` and the vault's figures, not this sum.
 */
export function feesFromEvents(events: readonly IndexedEvent[]): { management: bigint; performance: bigint } {
  let management = 0n;
  let performance = 0n;
  // The last burn of each vault in each transaction, by holder: the exit's Withdraw follows it.
  const burns = new Map<string, bigint>();
  for (const event of events) {
    const a = event.args;
    switch (event.name) {
      case "FeesAccrued":
        management += big(a.managementFee);
        performance += big(a.performanceFee);
        break;
      case "PerformanceFeeCharged":
        performance += big(a.assets);
        break;
      case "Transfer":
        if (lower(a.to) === ZERO) burns.set(`${event.transactionHash}:${event.address}:${lower(a.from)}`, big(a.value));
        break;
      case "Withdraw": {
        const key = `${event.transactionHash}:${event.address}:${lower(a.owner)}`;
        const burnt = burns.get(key);
        burns.delete(key);
        const shares = big(a.shares);
        // An ERC-7540 claim burns nothing in its transaction; a synchronous exit burns its shares and its fee's.
        if (burnt !== undefined && burnt > shares && shares > 0n) {
          performance += ((burnt - shares) * big(a.assets)) / shares;
        }
        break;
      }
    }
  }
  return { management, performance };
}
