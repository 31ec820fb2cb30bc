/**
 * Model-based property tests: random sequences of deposits, mints, withdrawals, redemptions, requests, fills,
 * claims, donations, reports, fee changes, fee accruals and time jumps by three actors, run against a vault and
 * against the model of ./model.ts, compared after every step.
 *
 * VAULT_PROPERTY_RUNS sets the number of sequences in all (default 500, the CI minimum), split evenly between a
 * synchronous and an asynchronous vault; VAULT_PROPERTY_SEED replays a failing run. Each sequence starts from an EVM
 * snapshot instead of a new deployment.
 */
import { expect } from "chai";
import { network } from "hardhat";
import { mine, time } from "@nomicfoundation/hardhat-network-helpers";
import fc from "fast-check";
import {
  ConfigurableNapVault__factory,
  TestUSDC__factory,
  type ConfigurableNapVault,
  type TestUSDC,
} from "../../../typechain-types";
import { DAY, HOUR, MAX_UINT, USDC, actors, params, roles, type Actors } from "./fixtures";
import { NO_CAP, VaultModel, type Expectation } from "./model";
import type { ContractTransactionResponse } from "ethers";

const TOTAL_RUNS = Number(process.env.VAULT_PROPERTY_RUNS ?? 500);
const RUNS = Math.ceil(TOTAL_RUNS / 2); // per vault kind
const SEED = process.env.VAULT_PROPERTY_SEED === undefined ? undefined : Number(process.env.VAULT_PROPERTY_SEED);
const MAX_STEPS = 12;
const CAP = 2_000_000n * USDC;
const ACTOR_USDC = 10_000_000n * USDC;

/** How an amount is chosen from the limit the model gives: a fraction of it, a few raw units, or just above it. */
type Amount = { mode: "part" | "raw" | "over"; value: number };

type Action =
  | { kind: "deposit" | "mint" | "withdraw" | "redeem" | "request"; actor: number; amount: Amount }
  | { kind: "fulfil"; actor: number }
  | { kind: "donate" | "report"; value: number }
  | { kind: "fees"; management: number; performance: number; hurdle: number }
  | { kind: "accrue" }
  | { kind: "wait"; seconds: number };

const amountArb: fc.Arbitrary<Amount> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ mode: fc.constant("part" as const), value: fc.integer({ min: 0, max: 1_000 }) }),
  },
  { weight: 2, arbitrary: fc.record({ mode: fc.constant("raw" as const), value: fc.integer({ min: 0, max: 5_000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ mode: fc.constant("over" as const), value: fc.integer({ min: 0, max: 1_000 }) }),
  },
);
const actorArb = fc.integer({ min: 0, max: 2 });

function actionArb(async: boolean): fc.Arbitrary<Action> {
  const flows = fc.record({
    kind: fc.constantFrom(
      ...(async
        ? (["deposit", "mint", "withdraw", "redeem", "request"] as const)
        : (["deposit", "mint", "withdraw", "redeem"] as const)),
    ),
    actor: actorArb,
    amount: amountArb,
  });
  const options: fc.WeightedArbitrary<Action>[] = [
    { weight: 10, arbitrary: flows },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("donate" as const), value: fc.integer({ min: 1, max: 1_000_000 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("report" as const), value: fc.integer({ min: 0, max: 1_000_000 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("fees" as const),
        management: fc.integer({ min: 0, max: 500 }),
        performance: fc.integer({ min: 0, max: 3_000 }),
        hurdle: fc.integer({ min: 0, max: 2_000 }),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "accrue" as const }) },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("wait" as const), seconds: fc.integer({ min: 1, max: 2 * DAY }) }),
    },
  ];
  if (async)
    options.push({ weight: 4, arbitrary: fc.record({ kind: fc.constant("fulfil" as const), actor: actorArb }) });
  return fc.oneof(...options);
}

function pick(amount: Amount, limit: bigint, ceiling: bigint): bigint {
  if (amount.mode === "over")
    return limit + 1n + BigInt(amount.value) <= ceiling ? limit + 1n + BigInt(amount.value) : limit;
  if (amount.mode === "raw") return BigInt(amount.value) < limit ? BigInt(amount.value) : limit;
  return (limit * BigInt(amount.value)) / 1_000n;
}

interface Harness {
  a: Actors;
  usdc: TestUSDC;
  vault: ConfigurableNapVault;
  holders: Actors["alice"][];
  async: boolean;
}

async function deploy(asyncRedeem: boolean): Promise<Harness> {
  const a = await actors();
  const usdc = await new TestUSDC__factory(a.deployer).deploy(a.deployer.address);
  const vault = await new ConfigurableNapVault__factory(a.deployer).deploy(
    params(await usdc.getAddress(), a.feeRecipient.address, {
      asyncRedeem,
      fulfillmentDelay: asyncRedeem ? HOUR : 0,
      depositCap: CAP,
      profitUnlockPeriod: DAY,
    }),
    roles(a),
    [],
  );
  const holders = [a.alice, a.bob, a.carol];
  for (const holder of [...holders, a.harvester]) {
    await usdc.mint(holder.address, ACTOR_USDC);
    await usdc.connect(holder).approve(await vault.getAddress(), MAX_UINT);
  }
  return { a, usdc, vault, holders, async: asyncRedeem };
}

async function newModel(h: Harness): Promise<VaultModel> {
  const [mark, markTime] = await h.vault.highWaterMark();
  return new VaultModel(
    {
      async: h.async,
      depositCap: CAP,
      profitUnlockPeriod: BigInt(DAY),
      fulfillmentDelay: h.async ? BigInt(HOUR) : 0n,
      managementBps: await h.vault.managementFeeBps(),
      performanceBps: await h.vault.performanceFeeBps(),
      hurdleBps: await h.vault.hurdleRateBps(),
      lastAccrual: await h.vault.lastFeeAccrual(),
      mark,
      markTime,
    },
    h.holders.map((s) => s.address),
    h.holders.map(() => ACTOR_USDC),
    BigInt(await time.latest()),
  );
}

async function settle(
  h: Harness,
  m: VaultModel,
  tx: () => Promise<ContractTransactionResponse>,
  expected: Expectation,
) {
  if (expected.ok) {
    await (await tx()).wait();
    return;
  }
  await expect(tx())
    .to.be.revertedWithCustomError(h.vault, expected.error)
    .withArgs(...expected.args);
  // A reverted transaction may or may not have been mined; the model counts one block at m.now either way.
  if (BigInt(await time.latest()) !== m.now) await mine();
  expect(BigInt(await time.latest())).to.equal(m.now);
}

async function apply(h: Harness, m: VaultModel, action: Action): Promise<void> {
  m.countStep();
  if (action.kind === "wait") {
    m.advance(m.now + BigInt(action.seconds));
    await time.increaseTo(m.now);
    return;
  }
  m.advance(m.now + 1n);
  await time.setNextBlockTimestamp(m.now);
  const v = h.vault;
  switch (action.kind) {
    case "deposit": {
      const signer = h.holders[action.actor];
      const maxDeposit = m.maxDeposit();
      const limit = maxDeposit < m.usdc[action.actor] ? maxDeposit : m.usdc[action.actor];
      const assets = pick(action.amount, limit, m.usdc[action.actor]);
      return settle(h, m, () => v.connect(signer).deposit(assets, signer.address), m.deposit(action.actor, assets));
    }
    case "mint": {
      const signer = h.holders[action.actor];
      const affordable = m.toShares(m.usdc[action.actor]);
      const maxMint = m.maxMint();
      const limit = maxMint < affordable ? maxMint : affordable;
      const shares = pick(action.amount, limit, affordable);
      return settle(h, m, () => v.connect(signer).mint(shares, signer.address), m.mint(action.actor, shares));
    }
    case "withdraw": {
      const signer = h.holders[action.actor];
      if (h.async) {
        const limit = m.requests[action.actor].claimableAssets;
        const assets = pick(action.amount, limit, NO_CAP);
        const expected = m.claimWithdraw(action.actor, assets);
        return settle(h, m, () => v.connect(signer).withdraw(assets, signer.address, signer.address), expected);
      }
      const limit = m.toAssets(m.shares[action.actor]);
      const assets = pick(action.amount, limit, NO_CAP);
      const expected = m.withdraw(action.actor, assets);
      return settle(h, m, () => v.connect(signer).withdraw(assets, signer.address, signer.address), expected);
    }
    case "redeem": {
      const signer = h.holders[action.actor];
      const limit = h.async ? m.requests[action.actor].claimableShares : m.shares[action.actor];
      const shares = pick(action.amount, limit, NO_CAP);
      const expected = h.async ? m.claimRedeem(action.actor, shares) : m.redeem(action.actor, shares);
      return settle(h, m, () => v.connect(signer).redeem(shares, signer.address, signer.address), expected);
    }
    case "request": {
      const signer = h.holders[action.actor];
      const shares = pick(action.amount, m.shares[action.actor], NO_CAP);
      const expected = m.requestRedeem(action.actor, shares);
      return settle(h, m, () => v.connect(signer).requestRedeem(shares, signer.address, signer.address), expected);
    }
    case "fulfil": {
      const expected = m.fulfil(action.actor);
      return settle(h, m, () => v.connect(h.a.fulfiller).fulfillRedeem(h.holders[action.actor].address), expected);
    }
    case "donate": {
      const amount = BigInt(action.value) * 10_000n;
      const expected = m.donate(amount);
      return settle(h, m, () => h.usdc.connect(h.a.harvester).transfer(v.getAddress(), amount), expected);
    }
    case "report": {
      const gain = BigInt(action.value) * 10_000n;
      const expected = m.report(gain);
      return settle(h, m, () => v.connect(h.a.harvester).report(gain), expected);
    }
    case "fees": {
      const [mgmt, perf, hurdle] = [action.management, action.performance, action.hurdle];
      const expected = m.setFees(BigInt(mgmt), BigInt(perf), BigInt(hurdle));
      return settle(h, m, () => v.connect(h.a.admin).setFees(mgmt, perf, hurdle), expected);
    }
    case "accrue":
      return settle(h, m, () => v.accrueFees(), m.accrue());
  }
}

/** Compares the chain with the model and checks the invariants. */
async function check(h: Harness, m: VaultModel, step: number): Promise<void> {
  const v = h.vault;
  const vaultAddress = await v.getAddress();
  const supply = await v.totalSupply();
  expect(await time.latest()).to.equal(Number(m.now));
  expect(supply, "totalSupply").to.equal(m.supply);
  expect(await v.totalAssets(), "totalAssets").to.equal(m.totalAssets());
  expect(await h.usdc.balanceOf(vaultAddress), "vault USDC").to.equal(m.vaultAssets);

  let sumOfBalances = (await v.balanceOf(vaultAddress)) + (await v.balanceOf(h.a.feeRecipient.address));
  expect(await v.balanceOf(vaultAddress), "shares of pending requests").to.equal(m.vaultShares);
  expect(await v.balanceOf(h.a.feeRecipient.address), "fee shares").to.equal(m.feeShares);
  for (const [i, holder] of h.holders.entries()) {
    const shares = await v.balanceOf(holder.address);
    sumOfBalances += shares;
    expect(shares, `shares of actor ${i}`).to.equal(m.shares[i]);
    expect(await h.usdc.balanceOf(holder.address), `USDC of actor ${i}`).to.equal(m.usdc[i]);
    if (h.async) {
      const r = m.requests[i];
      expect(await v.pendingRedeemRequest(0, holder.address), `pending of actor ${i}`).to.equal(r.pendingShares);
      expect(await v.claimableRedeemRequest(0, holder.address), `claimable of actor ${i}`).to.equal(r.claimableShares);
      expect(await v.maxWithdraw(holder.address), `claimable assets of actor ${i}`).to.equal(r.claimableAssets);
    }
    // No actor takes out more than it put in plus its fair share of yield, give or take the rounding of the steps.
    const taken = m.moneyOut[i] + m.positionValue(i);
    const bound = m.moneyIn[i] + m.fairYield[i] + m.roundingSlack;
    expect(taken, `actor ${i} took out more than in + fair yield`).to.be.lte(bound);
  }
  expect(sumOfBalances, "totalSupply == sum of balances").to.equal(supply);

  if (h.async) {
    const escrow = await v.redeemEscrow();
    const claimable = await v.totalClaimableAssets();
    expect(claimable, "total claimable").to.equal(m.totalClaimable);
    expect(await h.usdc.balanceOf(escrow), "escrow covers every claim").to.be.gte(claimable);
    expect(await h.usdc.balanceOf(escrow), "escrow USDC").to.equal(m.escrowAssets);
  }

  // Conversions never round against the vault.
  const x = 10n ** BigInt(step % 13) + BigInt(step);
  expect(await v.convertToAssets(await v.convertToShares(x))).to.be.lte(x);
  expect(await v.previewMint(await v.previewDeposit(x))).to.be.lte(x);
  expect(await v.previewMint(x)).to.be.gte(await v.convertToAssets(x));
  if (!h.async) {
    expect(await v.previewRedeem(await v.previewWithdraw(x))).to.be.gte(x);
    expect(await v.previewWithdraw(x)).to.be.gte(await v.convertToShares(x));
  }
}

for (const asyncRedeem of [false, true]) {
  describe(`NapVault model-based properties (${asyncRedeem ? "asynchronous" : "synchronous"} vault)`, function () {
    this.timeout(0);
    let h: Harness;
    let snapshot: string;

    before(async () => {
      h = await deploy(asyncRedeem);
      snapshot = await network.provider.send("evm_snapshot", []);
    });

    it(`matches the model and keeps the invariants over ${RUNS} random sequences`, async () => {
      let sequences = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(actionArb(asyncRedeem), { minLength: 1, maxLength: MAX_STEPS }), async (actions) => {
          await network.provider.send("evm_revert", [snapshot]);
          snapshot = await network.provider.send("evm_snapshot", []);
          sequences += 1;
          const m = await newModel(h);
          for (const [step, action] of actions.entries()) {
            await apply(h, m, action);
            await check(h, m, step);
          }
        }),
        { numRuns: RUNS, seed: SEED, verbose: 1 },
      );
      expect(sequences).to.be.gte(RUNS);
      console.log(`      ${sequences} sequences run (${asyncRedeem ? "asynchronous" : "synchronous"} vault)`);
    });
  });
}
