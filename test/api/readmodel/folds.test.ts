import { expect } from "chai";
import fc from "fast-check";
import { foldPositions, valuePosition } from "../../../api/src/readmodel/folds/positions";
import { foldTransactions } from "../../../api/src/readmodel/folds/transactions";
import { annualised, maxDrawdown, sharpeRatio, windowApy } from "../../../api/src/readmodel/metrics";
import type { IndexedEvent } from "../../../api/src/readmodel/records";

const VAULT = "0x00000000000000000000000000000000000000aa";
const ZERO = "0x0000000000000000000000000000000000000000";
const ALICE = "0x00000000000000000000000000000000000000a1";
const BOB = "0x00000000000000000000000000000000000000b0";
const SHARE = 10n ** 12n;

let position = 0;
function event(name: string, args: Record<string, unknown>, timestamp = 1_000 + position): IndexedEvent {
  position += 1;
  return {
    id: `31337:0x${position.toString(16)}:0`,
    chainId: 31337,
    block: position,
    blockHash: "0x",
    timestamp,
    transactionHash: `0x${position.toString(16)}`,
    logIndex: 0,
    contract: "NapVault:aggressive",
    address: VAULT,
    name,
    args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v])),
    users: [],
  };
}

/** The events a deposit emits: the mint, then Deposit. */
const depositOf = (who: string, assets: bigint, shares: bigint) => [
  event("Transfer", { from: ZERO, to: who, value: shares }),
  event("Deposit", { sender: who, owner: who, assets, shares }),
];

describe("read model folds and figures", function () {
  describe("positions (average cost)", function () {
    const USDC = 1_000_000n;
    it("a synchronous partial withdrawal realises profit on the part withdrawn only", function () {
      const events = [
        ...depositOf(ALICE, 1_000n * USDC, 1_000n * SHARE),
        event("Transfer", { from: ALICE, to: ZERO, value: 250n * SHARE }),
        event("Withdraw", { sender: ALICE, receiver: ALICE, owner: ALICE, assets: 300n * USDC, shares: 250n * SHARE }),
      ];
      const alice = foldPositions(VAULT, false, events).get(ALICE)!;
      expect([alice.shares, alice.cost, alice.realized, alice.costIn]).to.deep.equal([
        750n * SHARE,
        750n * USDC,
        50n * USDC,
        1_000n * USDC,
      ]);
      // At 1.2 assets per share: value 900, pnl 900 - 750 + 50 = 200, 20% of the 1,000 put in.
      const value = valuePosition(alice, 1_200_000n, 12);
      expect(value).to.deep.equal({ value: 900n * USDC, pnl: 200n * USDC, pnlPercent: 20 });
    });

    it("gifted shares carry the giver's cost: a gift is not the receiver's profit", function () {
      const events = [
        ...depositOf(ALICE, 1_000n * USDC, 1_000n * SHARE),
        event("Transfer", { from: ALICE, to: BOB, value: 400n * SHARE }),
      ];
      const positions = foldPositions(VAULT, false, events);
      const bob = positions.get(BOB)!;
      const alice = positions.get(ALICE)!;
      expect([bob.cost, alice.cost]).to.deep.equal([400n * USDC, 600n * USDC]);
      expect(valuePosition(bob, 1_000_000n, 12).pnl).to.equal(0n);
      expect(bob.depositedAt).to.equal(events[2].timestamp);
    });

    it("an ERC-7540 request keeps its cost until fulfilled, the fulfilment realises it, claims pay it out", function () {
      const events = [
        ...depositOf(ALICE, 1_000n, 1_000n * SHARE),
        event("Transfer", { from: ALICE, to: VAULT, value: 500n * SHARE }),
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 500n * SHARE }),
      ];
      let alice = foldPositions(VAULT, true, events).get(ALICE)!;
      expect([alice.shares, alice.pendingShares, alice.cost]).to.deep.equal([500n * SHARE, 500n * SHARE, 1_000n]);
      events.push(
        event("Transfer", { from: VAULT, to: ZERO, value: 500n * SHARE }),
        event("RedeemFulfilled", { controller: ALICE, fulfiller: BOB, shares: 500n * SHARE, assets: 550n }),
      );
      alice = foldPositions(VAULT, true, events).get(ALICE)!;
      expect([alice.pendingShares, alice.claimableAssets, alice.cost, alice.realized]).to.deep.equal([
        0n,
        550n,
        500n,
        50n,
      ]);
      events.push(
        event("Withdraw", { sender: ALICE, receiver: ALICE, owner: ALICE, assets: 550n, shares: 500n * SHARE }),
      );
      alice = foldPositions(VAULT, true, events).get(ALICE)!;
      expect([alice.claimableAssets, alice.withdrawnAssets, alice.realized]).to.deep.equal([0n, 550n, 50n]);
    });

    it("a canceled request's shares stay the holder's and come back with their cost", function () {
      const events = [
        ...depositOf(ALICE, 1_000n, 1_000n * SHARE),
        event("Transfer", { from: ALICE, to: VAULT, value: 300n * SHARE }),
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 300n * SHARE }),
        event("CancelRedeemRequest", { controller: ALICE, requestId: 0n, sender: ALICE }),
        event("Transfer", { from: VAULT, to: ALICE, value: 300n * SHARE }),
        event("CancelRedeemClaim", {
          controller: ALICE,
          receiver: ALICE,
          requestId: 0n,
          sender: ALICE,
          shares: 300n * SHARE,
        }),
      ];
      const alice = foldPositions(VAULT, true, events).get(ALICE)!;
      expect([alice.shares, alice.pendingShares, alice.canceledShares, alice.cost]).to.deep.equal([
        1_000n * SHARE,
        0n,
        0n,
        1_000n,
      ]);
    });

    it("cost never goes negative and held shares equal the net of every move (property, hostile transfers)", function () {
      const users = [ALICE, BOB, "0x00000000000000000000000000000000000000c0"];
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              kind: fc.constantFrom("deposit", "transfer", "withdraw"),
              from: fc.integer({ min: 0, max: 2 }),
              to: fc.integer({ min: 0, max: 2 }),
              amount: fc.bigInt({ min: 1n, max: 10_000n }),
            }),
            { maxLength: 40 },
          ),
          (steps) => {
            const balances = new Map<string, bigint>(users.map((u) => [u, 0n]));
            const events: IndexedEvent[] = [];
            for (const step of steps) {
              const from = users[step.from];
              const to = users[step.to];
              if (step.kind === "deposit") {
                events.push(...depositOf(to, step.amount, step.amount * SHARE));
                balances.set(to, balances.get(to)! + step.amount * SHARE);
              } else {
                const shares = (balances.get(from)! * step.amount) / 10_000n;
                if (shares === 0n) continue;
                balances.set(from, balances.get(from)! - shares);
                if (step.kind === "transfer") {
                  events.push(event("Transfer", { from, to, value: shares }));
                  balances.set(to, balances.get(to)! + shares);
                } else {
                  events.push(event("Transfer", { from, to: ZERO, value: shares }));
                  events.push(
                    event("Withdraw", { sender: from, receiver: from, owner: from, assets: shares / SHARE, shares }),
                  );
                }
              }
            }
            const positions = foldPositions(VAULT, false, events);
            for (const user of users) {
              const p = positions.get(user);
              expect(p?.shares ?? 0n).to.equal(balances.get(user));
              expect((p?.cost ?? 0n) >= 0n).to.equal(true);
              if ((p?.shares ?? 0n) === 0n) expect(p?.cost ?? 0n).to.equal(0n);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });

  describe("transactions", function () {
    it("splits one fulfilment over two pending requests by shares, and claims pay the oldest first", function () {
      const events = [
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 100n }),
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 200n }),
        event("RedeemFulfilled", { controller: ALICE, fulfiller: BOB, shares: 300n, assets: 301n }),
        event("Withdraw", { sender: ALICE, receiver: ALICE, owner: ALICE, assets: 150n, shares: 150n }),
      ];
      const txs = foldTransactions(events, new Set([VAULT]));
      expect(txs.map((t) => [t.type, t.amount, t.status])).to.deep.equal([
        ["REDEEM_REQUEST", 100n, "CLAIMED"],
        ["REDEEM_REQUEST", 201n, "FULFILLED"],
        ["CLAIM", 150n, "CLAIMED"],
      ]);
    });

    it("a request canceled before its fulfilment is FAILED; one still waiting is PENDING with amount 0", function () {
      const events = [
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 100n }),
        event("CancelRedeemRequest", { controller: ALICE, requestId: 0n, sender: ALICE }),
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 50n }),
      ];
      expect(foldTransactions(events, new Set([VAULT])).map((t) => [t.status, t.amount])).to.deep.equal([
        ["FAILED", 0n],
        ["PENDING", 0n],
      ]);
    });

    it("another controller's fulfilment does not touch this controller's requests", function () {
      const events = [
        event("RedeemRequest", { controller: ALICE, owner: ALICE, requestId: 0n, sender: ALICE, shares: 100n }),
        event("RedeemFulfilled", { controller: BOB, fulfiller: BOB, shares: 100n, assets: 100n }),
      ];
      expect(foldTransactions(events, new Set([VAULT]))[0].status).to.equal("PENDING");
    });
  });

  describe("figures", function () {
    const day = 86_400;
    it("annualises a price change by compounding over the real elapsed time", function () {
      const start = { timestamp: 0, price: 1_000_000n };
      const end = { timestamp: 365 * day, price: 1_100_000n };
      expect(annualised(start, end)).to.be.closeTo(10, 1e-9);
      const half = { timestamp: (365 * day) / 2, price: 1_050_000n };
      expect(annualised(start, half)).to.be.closeTo((1.05 ** 2 - 1) * 100, 1e-9);
    });

    it("gives 0 under an hour of history and uses the first sample for a vault younger than the window", function () {
      expect(annualised({ timestamp: 0, price: 1n }, { timestamp: 3_599, price: 2n })).to.equal(0);
      const history = [{ timestamp: 0, price: 1_000_000n }];
      const end = { timestamp: 3 * day, price: 1_001_000n };
      expect(windowApy(history, end, 7 * day)).to.equal(windowApy(history, end, null));
      expect(windowApy([], end, 7 * day)).to.equal(0);
    });

    it("Sharpe ratio and max drawdown from daily prices", function () {
      expect(sharpeRatio([{ timestamp: 0, price: 100n }])).to.equal(0);
      const flat = [0, 1, 2].map((i) => ({ timestamp: i * day, price: 100n }));
      expect(sharpeRatio(flat)).to.equal(0);
      const series = [100n, 110n, 99n, 120n].map((price, i) => ({ timestamp: i * day, price }));
      const returns = [0.1, -0.1, 120 / 99 - 1];
      const mean = returns.reduce((a, b) => a + b) / 3;
      const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / 2);
      expect(sharpeRatio(series)).to.be.closeTo((mean / sd) * Math.sqrt(365), 1e-6);
      expect(maxDrawdown(series)).to.be.closeTo(10, 1e-6);
      expect(maxDrawdown(flat)).to.equal(0);
    });
  });
});
