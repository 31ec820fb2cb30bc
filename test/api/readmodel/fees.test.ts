import { expect } from "chai";
import { feesFromEvents } from "../../../api/src/readmodel/folds/fees";
import type { IndexedEvent } from "../../../api/src/readmodel/records";

const VAULT = "0x00000000000000000000000000000000000000aa";
const OTHER_VAULT = "0x00000000000000000000000000000000000000bb";
const ZERO = "0x0000000000000000000000000000000000000000";
const ALICE = "0x00000000000000000000000000000000000000a1";
const BOB = "0x00000000000000000000000000000000000000b0";
const USDC = 1_000_000n;
const SHARE = 10n ** 12n;

let position = 0;
/** One log of `transaction` (its hash), in chain order. */
function event(transaction: number, name: string, args: Record<string, unknown>, address = VAULT): IndexedEvent {
  position += 1;
  return {
    id: `31337:0x${transaction.toString(16)}:${position}`,
    chainId: 31337,
    block: transaction,
    blockHash: "0x",
    timestamp: 1_000 + transaction,
    transactionHash: `0x${transaction.toString(16)}`,
    logIndex: position,
    contract: "NapVault:aggressive",
    address,
    name,
    args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v])),
    users: [],
  };
}

const withdraw = (tx: number, owner: string, assets: bigint, shares: bigint, address = VAULT) =>
  event(tx, "Withdraw", { sender: owner, receiver: owner, owner, assets, shares }, address);
const burn = (tx: number, from: string, value: bigint, address = VAULT) =>
  event(tx, "Transfer", { from, to: ZERO, value }, address);

describe("read model: fees from vault events", function () {
  it("counts the explicit accruals' management and performance fees", function () {
    const events = [
      event(1, "FeesAccrued", { recipient: BOB, managementFee: 40n * USDC, performanceFee: 0n }),
      event(2, "FeesAccrued", { recipient: BOB, managementFee: 3n * USDC, performanceFee: 2_000n * USDC }),
    ];
    expect(feesFromEvents(events)).to.deep.equal({ management: 43n * USDC, performance: 2_000n * USDC });
  });

  it("counts the performance fee settled by settle() and by fills, in assets", function () {
    const events = [
      event(1, "PerformanceFeeCharged", { holder: ALICE, shares: 7n * SHARE, assets: 7_700_000n }),
      event(2, "PerformanceFeeCharged", { holder: BOB, shares: 1n * SHARE, assets: 1_100_000n }),
    ];
    expect(feesFromEvents(events)).to.deep.equal({ management: 0n, performance: 8_800_000n });
  });

  it("values the fee shares a synchronous exit burns beyond its Withdraw's shares at the exit's price", function () {
    // 1,000 shares redeemed for 1,100 USDC, and 10 fee shares burnt in the same Transfer: 11 USDC of fee.
    const events = [burn(1, ALICE, 1_010n * SHARE), withdraw(1, ALICE, 1_100n * USDC, 1_000n * SHARE)];
    expect(feesFromEvents(events)).to.deep.equal({ management: 0n, performance: 11n * USDC });
  });

  it("rounds the exit's fee down", function () {
    // 3 shares for 10 units, 1 fee share: 10/3 units, 3.
    const events = [burn(1, ALICE, 4n), withdraw(1, ALICE, 10n, 3n)];
    expect(feesFromEvents(events).performance).to.equal(3n);
  });

  it("takes no fee from an exit that burns only its shares, a claim that burns nothing, or another transaction's burn", function () {
    const events = [
      burn(1, ALICE, 500n * SHARE),
      withdraw(1, ALICE, 550n * USDC, 500n * SHARE),
      // An ERC-7540 claim: the shares were burnt by the fill, in another transaction.
      burn(2, VAULT, 300n * SHARE),
      withdraw(3, BOB, 330n * USDC, 300n * SHARE),
      // A burn of another vault or another owner in the same transaction is not this exit's.
      burn(4, ALICE, 900n * SHARE, OTHER_VAULT),
      burn(4, BOB, 900n * SHARE),
      withdraw(4, ALICE, 110n * USDC, 100n * SHARE),
    ];
    expect(feesFromEvents(events)).to.deep.equal({ management: 0n, performance: 0n });
  });
});
