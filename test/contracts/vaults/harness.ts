/**
 * Shared harness of the vault's model-based tests: deploys a ConfigurableNapVault (synchronous or asynchronous),
 * applies actions to the chain and to the model of ./model.ts at the same timestamps, and compares the two after
 * every step with one probe call, checking the money invariants of docs/invariants.md on the way.
 */
import { expect } from "chai";
import { ethers, network } from "hardhat";
import { mine, time } from "@nomicfoundation/hardhat-network-helpers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { ContractTransactionResponse } from "ethers";
import fc from "fast-check";
import {
  ConfigurableNapVault__factory,
  TestUSDC__factory,
  VaultProbe__factory,
  type ConfigurableNapVault,
  type TestUSDC,
  type VaultProbe,
} from "../../../typechain-types";
import { DAY, HOUR, MAX_UINT, USDC, actors, params, roles, type Actors } from "./fixtures";
import { GRACE, NO_CAP_TOKENS, VaultModel, type Expectation } from "./model";

const FULFILLER_ROLE = ethers.id("FULFILLER_ROLE");
export const CAP_TOKENS = 2_000_000n;
const ACTOR_USDC = 10_000_000n * USDC;

/** How an amount is chosen from the limit the model gives: a fraction of it, a few raw units, just above, or all. */
export type Amount = { mode: "part" | "raw" | "over" | "all"; value: number };

/**
 * One step. `actor` and `controller` index the holders (the last holder is the griefer in the invariant suite);
 * a step whose actor is not the controller is an attempt on someone else's request.
 */
export type Action =
  | { kind: "deposit" | "mint" | "giveShares"; actor: number; amount: Amount }
  | { kind: "withdraw" | "redeem" | "request"; actor: number; controller: number; amount: Amount }
  | { kind: "cancel" | "claimCancel"; actor: number; controller: number }
  | { kind: "fulfil"; byFulfiller: boolean; actor: number; controller: number }
  | { kind: "donate" | "donateToEscrow" | "report"; value: number }
  | { kind: "fees"; management: number; performance: number; hurdle: number }
  | { kind: "cap"; tokens: number }
  | { kind: "accrue" | "claimFees" | "pause" | "unpause" | "revokeFulfiller" | "grantFulfiller" }
  | { kind: "wait"; seconds: number }
  | { kind: "emptyPeriod"; seconds: number }
  | { kind: "keeper"; byFulfiller: boolean }
  | { kind: "leave"; actor: number; amount: Amount; byFulfiller: boolean };

/**
 * A fee change within the hard bounds: in four cases out of five a hurdle the management fee can back
 * (hurdle * performance <= management * 10,000), otherwise any hurdle, which the vault may refuse.
 */
export const feesArb: fc.Arbitrary<Action> = fc
  .record({
    management: fc.integer({ min: 0, max: 500 }),
    performance: fc.integer({ min: 0, max: 3_000 }),
    hurdlePermille: fc.integer({ min: 0, max: 1_000 }),
    anyHurdle: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  })
  .map(({ management, performance, hurdlePermille, anyHurdle }) => {
    const backed = performance === 0 ? 2_000 : Math.min(2_000, Math.floor((management * 10_000) / performance));
    const hurdle = Math.floor(((anyHurdle ? 2_000 : backed) * hurdlePermille) / 1_000);
    return { kind: "fees" as const, management, performance, hurdle };
  });

export interface Harness {
  a: Actors;
  usdc: TestUSDC;
  vault: ConfigurableNapVault;
  probe: VaultProbe;
  holders: HardhatEthersSigner[];
  donor: HardhatEthersSigner;
  async: boolean;
  escrow: string;
}

/** Deploys USDC, the probe and a configurable vault; funds `holderCount` holders and a donor. */
export async function deployHarness(asyncRedeem: boolean, holderCount: number): Promise<Harness> {
  const a = await actors();
  const signers = await ethers.getSigners();
  const usdc = await new TestUSDC__factory(a.deployer).deploy(a.deployer.address);
  const vault = await new ConfigurableNapVault__factory(a.deployer).deploy(
    params(await usdc.getAddress(), a.feeRecipient.address, {
      asyncRedeem,
      fulfillmentDelay: asyncRedeem ? HOUR : 0,
      depositCap: CAP_TOKENS * USDC,
      profitUnlockPeriod: DAY,
    }),
    roles(a),
    [],
  );
  const probe = await new VaultProbe__factory(a.deployer).deploy();
  const holders = [a.alice, a.bob, a.carol, ...signers.slice(10, 10 + Math.max(0, holderCount - 3))].slice(
    0,
    holderCount,
  );
  const donor = signers[15];
  for (const holder of [...holders, a.harvester]) {
    await usdc.mint(holder.address, ACTOR_USDC);
    await usdc.connect(holder).approve(await vault.getAddress(), MAX_UINT);
  }
  await usdc.mint(donor.address, ACTOR_USDC);
  return { a, usdc, vault, probe, holders, donor, async: asyncRedeem, escrow: await vault.redeemEscrow() };
}

export async function newModel(h: Harness): Promise<VaultModel> {
  const v = h.vault;
  return new VaultModel(
    {
      async: h.async,
      capUnit: USDC,
      capTokens: CAP_TOKENS,
      profitUnlockPeriod: BigInt(DAY),
      fulfillmentDelay: h.async ? BigInt(HOUR) : 0n,
      managementBps: await v.managementFeeBps(),
      performanceBps: await v.performanceFeeBps(),
      hurdleBps: await v.hurdleRateBps(),
      ratesSince: await v.createdAt(),
    },
    h.holders.map((s) => s.address),
    h.holders.map(() => ACTOR_USDC),
    BigInt(await time.latest()),
    await v.lastFeeAccrual(),
  );
}

function pick(amount: Amount, limit: bigint, ceiling: bigint): bigint {
  if (amount.mode === "all") return limit;
  if (amount.mode === "over")
    return limit + 1n + BigInt(amount.value) <= ceiling ? limit + 1n + BigInt(amount.value) : limit;
  if (amount.mode === "raw") return BigInt(amount.value) < limit ? BigInt(amount.value) : limit;
  return (limit * BigInt(amount.value)) / 1_000n;
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

/**
 * The steps a compound action stands for. "keeper": a fill attempt for every holder (by the fulfiller, or by
 * holder 0 as anyone). "leave": a holder deposits, then asks for all its shares back and leaves as soon as it
 * may (once its request is ready for the fulfiller, or after the grace period for anyone else). "emptyPeriod":
 * every holder leaves entirely, then time passes.
 */
export function expand(h: Harness, action: Action): Action[] {
  const everyone = h.holders.map((_, i) => i);
  if (action.kind === "keeper") {
    return everyone.map((i) => ({ kind: "fulfil" as const, byFulfiller: action.byFulfiller, actor: 0, controller: i }));
  }
  const all: Amount = { mode: "all", value: 0 };
  if (action.kind === "leave") {
    const i = action.actor;
    const wait = Number(h.async ? HOUR : 0) + (action.byFulfiller ? 0 : Number(GRACE));
    return [
      { kind: "deposit", actor: i, amount: action.amount },
      { kind: "request", actor: i, controller: i, amount: all },
      { kind: "wait", seconds: wait },
      { kind: "fulfil", byFulfiller: action.byFulfiller, actor: 0, controller: i },
      { kind: "redeem", actor: i, controller: i, amount: all },
    ];
  }
  if (action.kind !== "emptyPeriod") return [action];
  if (!h.async) return [...everyone.map((i) => ({ kind: "redeem" as const, actor: i, controller: i, amount: all }))];
  return [
    ...everyone.map((i) => ({ kind: "claimCancel" as const, actor: i, controller: i })),
    ...everyone.map((i) => ({ kind: "request" as const, actor: i, controller: i, amount: all })),
    { kind: "wait" as const, seconds: HOUR + Number(GRACE) },
    ...everyone.map((i) => ({ kind: "fulfil" as const, byFulfiller: false, actor: 0, controller: i })),
    ...everyone.map((i) => ({ kind: "redeem" as const, actor: i, controller: i, amount: all })),
    { kind: "wait" as const, seconds: action.seconds },
  ];
}

/** Applies one primitive step to the chain and to the model, asserting the exact outcome the model predicts. */
export async function apply(h: Harness, m: VaultModel, action: Action): Promise<void> {
  m.countStep();
  if (action.kind === "keeper" || action.kind === "leave") throw new Error("expand compound actions first");
  if (action.kind === "wait" || action.kind === "emptyPeriod") {
    m.advance(m.now + BigInt(action.seconds));
    await time.increaseTo(m.now);
    return;
  }
  m.advance(m.now + 1n);
  await time.setNextBlockTimestamp(m.now);
  const v = h.vault;
  const a = h.a;
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
      const controller = h.holders[action.controller].address;
      if (h.async) {
        const limit = m.requests[action.controller].claimableAssets;
        const assets = pick(action.amount, limit, MAX_UINT);
        const expected = m.claimWithdraw(action.actor, action.controller, assets);
        return settle(h, m, () => v.connect(signer).withdraw(assets, signer.address, controller), expected);
      }
      const limit = m.maxWithdraw(action.controller);
      const assets = pick(action.amount, limit, MAX_UINT);
      const expected = strangerExit(m, action.actor, action.controller, assets > limit, "withdraw", assets, limit);
      return settle(h, m, () => v.connect(signer).withdraw(assets, signer.address, controller), expected);
    }
    case "redeem": {
      const signer = h.holders[action.actor];
      const controller = h.holders[action.controller].address;
      if (h.async) {
        const limit = m.requests[action.controller].claimableShares;
        const shares = pick(action.amount, limit, MAX_UINT);
        const expected = m.claimRedeem(action.actor, action.controller, shares);
        return settle(h, m, () => v.connect(signer).redeem(shares, signer.address, controller), expected);
      }
      const limit = m.maxRedeem(action.controller);
      const shares = pick(action.amount, limit, MAX_UINT);
      const expected = strangerExit(m, action.actor, action.controller, shares > limit, "redeem", shares, limit);
      return settle(h, m, () => v.connect(signer).redeem(shares, signer.address, controller), expected);
    }
    case "request": {
      const signer = h.holders[action.actor];
      const shares = pick(action.amount, m.shares[action.actor], MAX_UINT);
      const expected = h.async
        ? m.requestRedeem(action.actor, action.controller, shares)
        : { ok: false as const, error: "AsyncRedeemNotSupported", args: [] };
      const controller = h.holders[action.controller].address;
      return settle(h, m, () => v.connect(signer).requestRedeem(shares, controller, signer.address), expected);
    }
    case "cancel": {
      const controller = h.holders[action.controller].address;
      const expected = m.cancel(action.actor, action.controller);
      return settle(h, m, () => v.connect(h.holders[action.actor]).cancelRedeemRequest(0, controller), expected);
    }
    case "claimCancel": {
      const signer = h.holders[action.actor];
      const controller = h.holders[action.controller].address;
      const expected = m.claimCancel(action.actor, action.controller);
      return settle(h, m, () => v.connect(signer).claimCancelRedeemRequest(0, signer.address, controller), expected);
    }
    case "fulfil": {
      const caller = action.byFulfiller ? a.fulfiller : h.holders[action.actor];
      const expected = m.fulfil(action.byFulfiller, action.controller);
      return settle(h, m, () => v.connect(caller).fulfillRedeem(h.holders[action.controller].address), expected);
    }
    case "giveShares": {
      const signer = h.holders[action.actor];
      const shares = pick(action.amount, m.shares[action.actor], MAX_UINT);
      const expected = m.giveSharesToVault(action.actor, shares);
      return settle(h, m, () => v.connect(signer).transfer(v.getAddress(), shares), expected);
    }
    case "donate": {
      const amount = BigInt(action.value) * 10_000n;
      return settle(h, m, () => h.usdc.connect(h.donor).transfer(v.getAddress(), amount), m.donate(amount));
    }
    case "donateToEscrow": {
      // A synchronous vault has no escrow: the assets go to the vault instead.
      const amount = BigInt(action.value) * 100n;
      const expected = h.async ? m.donateToEscrow(amount) : m.donate(amount);
      const to = h.async ? h.escrow : await v.getAddress();
      return settle(h, m, () => h.usdc.connect(h.donor).transfer(to, amount), expected);
    }
    case "report": {
      const gain = BigInt(action.value) * 10_000n;
      return settle(h, m, () => v.connect(a.harvester).report(gain), m.report(gain));
    }
    case "fees": {
      const [mgmt, perf, hurdle] = [action.management, action.performance, action.hurdle];
      const expected = m.setFees(BigInt(mgmt), BigInt(perf), BigInt(hurdle));
      return settle(h, m, () => v.connect(a.admin).setFees(mgmt, perf, hurdle), expected);
    }
    case "cap": {
      const tokens = action.tokens < 0 ? NO_CAP_TOKENS : BigInt(action.tokens);
      const expected = m.setCapTokens(tokens);
      const cap = tokens === NO_CAP_TOKENS ? MAX_UINT : tokens * USDC;
      return settle(h, m, () => v.connect(a.admin).setDepositCap(cap), expected);
    }
    case "accrue":
      return settle(h, m, () => v.accrueFees(), m.accrueFees());
    case "claimFees": {
      const paid = m.claimFees();
      const before = await h.usdc.balanceOf(a.feeRecipient.address);
      await settle(h, m, () => v.connect(h.donor).claimFees(), { ok: true });
      expect(await h.usdc.balanceOf(a.feeRecipient.address), "fees paid").to.equal(before + paid);
      return;
    }
    case "pause":
      return settle(h, m, () => v.connect(a.guardian).pause(), m.pause());
    case "unpause":
      return settle(h, m, () => v.connect(a.guardian).unpause(), m.unpause());
    case "revokeFulfiller":
      m.fulfillerHasRole = false;
      return settle(h, m, () => v.connect(a.admin).revokeRole(FULFILLER_ROLE, a.fulfiller.address), { ok: true });
    case "grantFulfiller":
      m.fulfillerHasRole = true;
      return settle(h, m, () => v.connect(a.admin).grantRole(FULFILLER_ROLE, a.fulfiller.address), { ok: true });
  }
}

/**
 * Synchronous withdraw or redeem by `caller` of `owner`'s shares: the owner itself, or a stranger without an
 * allowance, which fails unless it moves nothing.
 */
function strangerExit(
  m: VaultModel,
  caller: number,
  owner: number,
  overMax: boolean,
  kind: "withdraw" | "redeem",
  amount: bigint,
  max: bigint,
): Expectation {
  const error = kind === "withdraw" ? "ERC4626ExceededMaxWithdraw" : "ERC4626ExceededMaxRedeem";
  if (overMax) return { ok: false, error, args: [m.actors[owner], amount, max] };
  if (caller === owner) return kind === "withdraw" ? m.withdraw(owner, amount) : m.redeem(owner, amount);
  const shares = kind === "withdraw" ? m.withdrawShares(owner, amount) : amount;
  if (shares > 0n) return { ok: false, error: "ERC20InsufficientAllowance", args: [m.actors[caller], 0n, shares] };
  return kind === "withdraw" ? m.withdraw(owner, 0n) : m.redeem(owner, 0n);
}

/** One controller's request as the probe reads it. */
export interface RequestView {
  pending: bigint;
  readyAt: bigint;
  claimableShares: bigint;
  claimableAssets: bigint;
  canceled: bigint;
}

export interface Snapshot {
  raw: bigint[];
  requests: RequestView[];
}

export async function snapshot(h: Harness): Promise<Snapshot> {
  const raw = await h.probe.read(
    h.vault.getAddress(),
    h.holders.map((s) => s.address),
  );
  const requests = h.holders.map((_, i) => {
    const at = 11 + 7 * i;
    return {
      pending: raw[at + 2],
      readyAt: raw[at + 3],
      claimableShares: raw[at + 4],
      claimableAssets: raw[at + 5],
      canceled: raw[at + 6],
    };
  });
  return { raw: [...raw], requests };
}

/** Compares the chain with the model after a step and checks the money invariants. */
export async function check(h: Harness, m: VaultModel, s: Snapshot, step: number): Promise<void> {
  const [now, supply, totalAssets, accounted, feesOwed, totalClaimable, vaultUsdc, escrowUsdc, vaultShares] = s.raw;
  const feeSharesOwed = s.raw[10];
  expect(now, "time").to.equal(m.now);
  expect(supply, "totalSupply").to.equal(m.supply);
  expect(totalAssets, "totalAssets").to.equal(m.totalAssets());
  expect(accounted, "accountedAssets").to.equal(m.accounted);
  expect(feesOwed, "feesOwed").to.equal(m.feesOwed());
  expect(vaultUsdc, "vault USDC").to.equal(m.vaultUsdc);
  expect(escrowUsdc, "escrow USDC").to.equal(m.escrowUsdc);
  expect(vaultShares, "shares held by the vault").to.equal(m.vaultShares);
  expect(totalClaimable, "total claimable").to.equal(m.totalClaimable);
  expect(feeSharesOwed, "performance fee shares owed").to.equal(m.feeSharesOwed());

  let sumOfBalances = vaultShares;
  let sumOfValues = 0n;
  for (let i = 0; i < h.holders.length; i++) {
    const at = 11 + 7 * i;
    const r = m.requests[i];
    sumOfBalances += s.raw[at];
    expect(s.raw[at], `shares of actor ${i}`).to.equal(m.shares[i]);
    expect(s.raw[at + 1], `USDC of actor ${i}`).to.equal(m.usdc[i]);
    expect(s.requests[i], `request of actor ${i}`).to.deep.equal({
      pending: r.pendingShares,
      readyAt: r.readyAt,
      claimableShares: r.claimableShares,
      claimableAssets: r.claimableAssets,
      canceled: r.canceledShares,
    });
    sumOfValues += m.positionValue(i);
    // The fee bound of docs/vaults.md, and no gain beyond the profit that unlocked to the actor.
    expect(m.feeBoundMargin(i), `fees paid by actor ${i} within the bound`).to.be.gte(0n);
    expect(m.gainBoundMargin(i), `actor ${i} gained no more than its share of unlocked profit`).to.be.gte(0n);
  }
  // The fee recipient and the harvester hold no shares: every share is a holder's or the vault's own.
  expect(sumOfBalances, "totalSupply == sum of balances").to.equal(supply);
  // Claims never exceed assets: the escrow covers every filled request, the vault covers its books, and what all
  // holders could take out is covered by the holders' assets and the escrow.
  expect(escrowUsdc, "escrow covers every claim").to.be.gte(totalClaimable);
  expect(vaultUsdc, "vault covers its books").to.be.gte(accounted);
  expect(sumOfValues, "holders' claims within assets").to.be.lte(totalAssets + totalClaimable);

  // Conversions never round against the vault.
  const v = h.vault;
  const x = 10n ** BigInt(step % 13) + BigInt(step);
  expect(await v.convertToAssets(await v.convertToShares(x))).to.be.lte(x);
  expect(await v.previewMint(await v.previewDeposit(x))).to.be.lte(x);
  if (!h.async) expect(await v.previewRedeem(await v.previewWithdraw(x))).to.be.gte(x);
}

/**
 * No step changes another controller's pending or claimable amounts or ready time, except a fill of that
 * controller's ready request, which moves all of its pending shares to claimable.
 */
export function checkOthersUntouched(action: Action, before: Snapshot, after: Snapshot): void {
  const own = "controller" in action && action.kind !== "fulfil" ? action.controller : -1;
  const acting = "actor" in action ? action.actor : -1;
  for (let i = 0; i < before.requests.length; i++) {
    const was = before.requests[i];
    const is = after.requests[i];
    if (i === own && own === acting) continue;
    if (action.kind === "fulfil" && action.controller === i && is.pending !== was.pending) {
      expect(is.pending, `fill of ${i} takes the whole pending amount`).to.equal(0n);
      expect(is.readyAt).to.equal(0n);
      expect(is.claimableShares, `fill of ${i} makes it claimable`).to.equal(was.claimableShares + was.pending);
      expect(is.canceled).to.equal(was.canceled);
      continue;
    }
    expect(is, `request of controller ${i} untouched by the step of actor ${acting} (${action.kind})`).to.deep.equal(
      was,
    );
  }
}

/** Runs `actions` from a fresh EVM snapshot, checking after every primitive step. */
export async function runSequence(
  h: Harness,
  actions: Action[],
  restore: () => Promise<void>,
  onStep?: (action: Action, before: Snapshot, after: Snapshot) => void,
): Promise<VaultModel> {
  await restore();
  const m = await newModel(h);
  let before = await snapshot(h);
  let step = 0;
  for (const action of actions) {
    for (const primitive of expand(h, action)) {
      await apply(h, m, primitive);
      const after = await snapshot(h);
      await check(h, m, after, step++);
      onStep?.(primitive, before, after);
      before = after;
    }
  }
  return m;
}

/** Saves the chain state and returns a function that goes back to it (and saves it again for the next time). */
export async function snapshotRestorer(): Promise<() => Promise<void>> {
  let id: string = await network.provider.send("evm_snapshot", []);
  return async () => {
    await network.provider.send("evm_revert", [id]);
    id = await network.provider.send("evm_snapshot", []);
  };
}
