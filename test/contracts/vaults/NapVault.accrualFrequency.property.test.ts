/**
 * Property: the management fee of an interval does not depend on how often anyone accrues it. For random books, a
 * random report, fee rate and unlock period, and random accrual times inside an interval, accrueFees() at each of
 * those times earns the fee recipient what one accrueFees() at the end does, within a unit per accrual and the
 * second-order term of docs/vaults.md (a fee taken earlier bears no fee later). Before the third review the vault
 * charged the holders' assets at the end of an interval for all of it, and one accrual after an idle unlock charged
 * up to a third more than hourly ones.
 *
 * VAULT_FREQUENCY_RUNS sets the number of cases (default 60); VAULT_FREQUENCY_SEED replays a failing run.
 */
import { expect } from "chai";
import fc from "fast-check";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { ConfigurableNapVault__factory, TestUSDC__factory, type ConfigurableNapVault } from "../../../typechain-types";
import { BPS, DAY, HOUR, MAX_UINT, USDC, YEAR, actors, params, roles, type Actors } from "./fixtures";
import { snapshotRestorer } from "./harness";
import { recordFigure } from "../../helpers/figures";

const RUNS = Number(process.env.VAULT_FREQUENCY_RUNS ?? 60);
const SEED = process.env.VAULT_FREQUENCY_SEED === undefined ? undefined : Number(process.env.VAULT_FREQUENCY_SEED);

interface Case {
  deposit: bigint;
  gain: bigint;
  managementBps: number;
  unlockPeriod: number;
  /** Seconds from the report to the start of the interval, and the interval's length. */
  offset: number;
  length: number;
  /** Accrual times inside the interval, as thousandths of its length. */
  accrualsPermille: number[];
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  deposit: fc.bigInt({ min: 1n, max: 10_000_000n * USDC }),
  gain: fc.bigInt({ min: 0n, max: 10_000_000n * USDC }),
  managementBps: fc.integer({ min: 1, max: 500 }),
  unlockPeriod: fc.integer({ min: HOUR, max: 30 * DAY }),
  offset: fc.integer({ min: 1, max: 40 * DAY }),
  length: fc.integer({ min: 2, max: 60 * DAY }),
  accrualsPermille: fc.uniqueArray(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 8 }),
});

describe("NapVault property: accrual frequency does not change the management fee", function () {
  this.timeout(0);
  let a: Actors;
  let vault: ConfigurableNapVault;
  let restore: () => Promise<void>;

  before(async () => {
    a = await actors();
    const usdc = await new TestUSDC__factory(a.deployer).deploy(a.deployer.address);
    vault = await new ConfigurableNapVault__factory(a.deployer).deploy(
      params(await usdc.getAddress(), a.feeRecipient.address, {
        depositCap: MAX_UINT,
        performanceFeeBps: 0,
        hurdleRateBps: 0,
      }),
      roles(a),
      [],
    );
    for (const holder of [a.alice, a.harvester]) {
      await usdc.mint(holder.address, 10_000_000n * USDC);
      await usdc.connect(holder).approve(await vault.getAddress(), MAX_UINT);
    }
    restore = await snapshotRestorer();
  });

  /** Sets the case up to the start of its interval; returns that time and the fees owed then. */
  async function start(c: Case): Promise<{ from: number; owedBefore: bigint }> {
    await vault.connect(a.admin).setFees(c.managementBps, 0, 0);
    await vault.connect(a.admin).setProfitUnlockPeriod(c.unlockPeriod);
    await vault.connect(a.alice).deposit(c.deposit, a.alice.address);
    await vault.connect(a.harvester).report(c.gain);
    const from = (await time.latest()) + c.offset;
    await time.setNextBlockTimestamp(from);
    await vault.accrueFees();
    return { from, owedBefore: await vault.feesOwed() };
  }

  it(`one accrual and many over the same interval earn the same fee, within rounding (${RUNS} cases)`, async () => {
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        cases += 1;
        await restore();
        const once = await start(c);
        await time.setNextBlockTimestamp(once.from + c.length);
        await vault.accrueFees();
        const feeOnce = (await vault.feesOwed()) - once.owedBefore;

        await restore();
        const many = await start(c);
        const times = [...new Set(c.accrualsPermille.map((p) => Math.floor((c.length * p) / 1_000)))]
          .filter((t) => t > 0 && t < c.length)
          .sort((x, y) => x - y);
        for (const t of [...times, c.length]) {
          await time.setNextBlockTimestamp(many.from + t);
          await vault.accrueFees();
        }
        const feeMany = (await vault.feesOwed()) - many.owedBefore;

        const accruals = BigInt(times.length + 1);
        const secondOrder = (feeOnce * BigInt(c.managementBps) * BigInt(c.length)) / (BPS * YEAR) + 1n;
        expect(feeMany, "many accruals never earn more").to.be.lte(feeOnce + accruals);
        expect(feeOnce - feeMany, "nor less than the fee on fees taken earlier").to.be.lte(secondOrder + accruals);
      }),
      { numRuns: RUNS, seed: SEED, verbose: 1 },
    );
    expect(cases).to.equal(RUNS);
    recordFigure("NapVault accrual frequency", `${cases} cases run`);
  });
});
