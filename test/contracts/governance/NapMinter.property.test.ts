/**
 * Handler-based property test of NapMinter's limits: the relayer mints at, under and past what a window and a
 * recipient have left, time jumps across window edges, and governance changes the budget, the period and the supply
 * rule mid-window. Checked against a model after every step:
 * - a window mints at most min(budget, max(S * supplyBps / 10,000, floor - S)), S the supply it opened with, and one
 *   recipient at most recipientBps of that; every refusal names what was left and when the window ends;
 * - `available`, `availableTo`, `windowLimit` and `windowSupply` equal the model's, and the supply is the initial
 *   supply plus the mints.
 * Runs: MINTER_PROPERTY_RUNS, else PROPERTY_RUNS (default 30 sequences of 10 to 30 steps).
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import fc from "fast-check";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { NapMinter, NapToken } from "../../../typechain-types";
import { recordFigure } from "../../helpers/figures";

const RUNS = Number(process.env.MINTER_PROPERTY_RUNS ?? process.env.PROPERTY_RUNS ?? 30);
const E18 = 10n ** 18n;
const DAY = 86_400;

type Step =
  | { kind: "mint"; to: number; how: "edge" | "over" | "part" | "share" }
  | { kind: "jump"; seconds: number }
  | { kind: "supplyLimit"; bps: bigint; floor: bigint; recipientBps: bigint }
  | { kind: "budget"; budget: bigint; period: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("mint" as const),
      to: fc.nat(2),
      how: fc.constantFrom("edge" as const, "over" as const, "part" as const, "share" as const),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("jump" as const), seconds: fc.constantFrom(60, 3_599, DAY - 1, DAY) }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("supplyLimit" as const),
      bps: fc.constantFrom(1n, 100n, 1_000n),
      floor: fc.constantFrom(0n, 1_000n * E18, 100_000n * E18),
      recipientBps: fc.constantFrom(1_000n, 5_000n, 10_000n),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("budget" as const),
      budget: fc.constantFrom(100n * E18, 1_000n * E18, 10_000n * E18),
      period: fc.constantFrom(3_600, DAY),
    }),
    weight: 1,
  },
);

describe("NapMinter under a relayer at every edge (property)", () => {
  it(`keeps every window within its supply-bounded limit and every recipient within its share (${RUNS} sequences)`, async function () {
    this.timeout(0);
    const [admin, relayer, a, b, c] = await ethers.getSigners();
    const recipients = [a.address, b.address, c.address];
    const seen = { mints: 0, windowRefusals: 0, shareRefusals: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0n, 5_000n * E18, 1_000_000n * E18),
        fc.array(stepArb, { minLength: 10, maxLength: 30 }),
        async (initialSupply, steps) => {
          const token = (await ethers.deployContract("NapToken", [
            admin.address,
            admin.address,
            initialSupply,
            1_000_000_000n * E18,
          ])) as unknown as NapToken;
          const minter = (await ethers.deployContract("NapMinter", [
            admin.address,
            await token.getAddress(),
            10_000n * E18,
            DAY,
          ])) as unknown as NapMinter;
          const m = {
            budget: 10_000n * E18,
            period: DAY,
            bps: 100n,
            floor: 1_000n * E18,
            recipientBps: 10_000n,
            start: await time.latest(),
            minted: 0n,
            supply: initialSupply,
          };
          let totalSupply = initialSupply;
          const received = new Map<string, { start: number; amount: bigint }>();
          await token.grantRole(await token.MINTER_ROLE(), await minter.getAddress());
          await minter.grantRole(await minter.MINTER_ROLE(), relayer.address);

          const windowAt = (t: number) =>
            t < m.start + m.period
              ? { start: m.start, minted: m.minted, supply: m.supply }
              : { start: m.start + Math.floor((t - m.start) / m.period) * m.period, minted: 0n, supply: totalSupply };
          const limitOf = (supply: bigint) => {
            const share = (supply * m.bps) / 10_000n;
            const toFloor = supply < m.floor ? m.floor - supply : 0n;
            const limit = share > toFloor ? share : toFloor;
            return limit < m.budget ? limit : m.budget;
          };
          const receivedIn = (to: string, start: number) => {
            const r = received.get(to);
            return r !== undefined && r.start === start ? r.amount : 0n;
          };

          for (const step of steps) {
            const now = (await time.latest()) + 1;
            if (step.kind !== "jump") await time.setNextBlockTimestamp(now);
            const w = windowAt(now);
            const limit = limitOf(w.supply);
            const left = w.minted < limit ? limit - w.minted : 0n;
            switch (step.kind) {
              case "mint": {
                const to = recipients[step.to];
                const got = receivedIn(to, w.start);
                const share = (limit * m.recipientBps) / 10_000n;
                const shareLeft = got < share ? share - got : 0n;
                const amount =
                  step.how === "edge"
                    ? left
                    : step.how === "over"
                      ? left + 1n
                      : step.how === "share"
                        ? shareLeft + 1n
                        : left / 3n;
                const tx = minter.connect(relayer).mint(to, amount);
                const resetsAt = w.start + m.period;
                if (amount > left) {
                  await expect(tx)
                    .to.be.revertedWithCustomError(minter, "NapMinterBudgetExceeded")
                    .withArgs(amount, left, resetsAt);
                  seen.windowRefusals++;
                } else if (amount > shareLeft) {
                  await expect(tx)
                    .to.be.revertedWithCustomError(minter, "NapMinterRecipientShareExceeded")
                    .withArgs(to, amount, shareLeft, resetsAt);
                  seen.shareRefusals++;
                } else {
                  await expect(tx)
                    .to.emit(minter, "GrantMinted")
                    .withArgs(relayer.address, to, amount, w.minted + amount);
                  // Accepted only within the window's limit and the recipient's share in force (a mint of 0 always
                  // is, even after governance lowered the limit below what the window minted).
                  if (amount > 0n) {
                    expect(w.minted + amount).to.be.at.most(limit);
                    expect(got + amount).to.be.at.most(share);
                  }
                  m.start = w.start;
                  m.minted = w.minted + amount;
                  m.supply = w.supply;
                  received.set(to, { start: w.start, amount: got + amount });
                  totalSupply += amount;
                  seen.mints++;
                }
                break;
              }
              case "supplyLimit":
                await minter.connect(admin).setSupplyLimit(step.bps, step.floor, step.recipientBps);
                m.bps = step.bps;
                m.floor = step.floor;
                m.recipientBps = step.recipientBps;
                break;
              case "budget":
                await minter.connect(admin).setBudget(step.budget, step.period);
                m.budget = step.budget;
                m.period = step.period;
                m.start = now;
                m.minted = w.minted;
                m.supply = w.supply;
                break;
              case "jump":
                await time.increase(step.seconds);
                break;
            }

            const after = windowAt(await time.latest());
            const afterLimit = limitOf(after.supply);
            const afterLeft = after.minted < afterLimit ? afterLimit - after.minted : 0n;
            expect(await token.totalSupply()).to.equal(totalSupply);
            expect(await minter.windowSupply()).to.equal(after.supply);
            expect(await minter.windowLimit()).to.equal(afterLimit);
            expect(await minter.available()).to.deep.equal([afterLeft, BigInt(after.start + m.period)]);
            for (const to of recipients) {
              const share = (afterLimit * m.recipientBps) / 10_000n;
              const got = receivedIn(to, after.start);
              const own = got < share ? share - got : 0n;
              expect(await minter.availableTo(to)).to.deep.equal([
                own < afterLeft ? own : afterLeft,
                BigInt(after.start + m.period),
              ]);
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
    recordFigure(
      "NapMinter property",
      `${RUNS} sequences: ${seen.mints} mints, ${seen.windowRefusals} past the window's limit, ` +
        `${seen.shareRefusals} past a recipient's share`,
    );
    expect(seen.mints).to.be.greaterThan(0);
    expect(seen.windowRefusals).to.be.greaterThan(0);
    expect(seen.shareRefusals).to.be.greaterThan(0);
  });
});
