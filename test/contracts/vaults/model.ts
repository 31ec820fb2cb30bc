/**
 * An executable model of a NapVault, written from docs/vaults.md and independent of the contract: the vault's books,
 * asset balances, shares, profit unlocking, fees, ERC-7540 requests and ERC-7887 cancelations, roles and pausing.
 * All arithmetic is exact (bigint) and rounds as the documentation says.
 *
 * Besides predicting every balance, it keeps for each actor what the fee bound of docs/vaults.md allows it to pay:
 * the management fee on the value it held for the time it held it, plus the performance fee on the gross gains
 * that unlocked to it while it held. Shares count as "held" while owned, pending in a request, or canceled and not
 * yet claimed back; a filled request is fixed in assets and bears nothing. The bound is integrated as the clock
 * moves (`advance`), second by second in closed form from the unlock's antiderivative, not with the vault's fee
 * formula, so that a vault charging more than the integral breaks it (model.test.ts shows one that does).
 */
import {
  BPS,
  FEE_DENOMINATOR,
  VIRTUAL_SHARES,
  type Entry,
  joinEntry,
  managementFeeOver,
  mulDiv,
  settlement,
  sharePrice,
  unlockDuration,
} from "./fixtures";

/** Largest value of the vault's 64-bit books. */
export const MAX_BOOKS = 2n ** 64n - 1n;
/** Stored deposit cap meaning "no cap", in whole tokens. */
export const NO_CAP_TOKENS = 2n ** 32n - 1n;
/** Time after a request's ready time from which anyone may fill it. */
export const GRACE = 3600n;
/** Precision of the per-actor fee-bound accounting: amounts are kept in 1e-18 asset units. */
export const SCALE = 10n ** 18n;

export interface ModelConfig {
  async: boolean;
  /** Asset units of one whole token (the unit of the cap). */
  capUnit: bigint;
  capTokens: bigint;
  profitUnlockPeriod: bigint;
  fulfillmentDelay: bigint;
  managementBps: bigint;
  performanceBps: bigint;
  hurdleBps: bigint;
  /** When the fee rates were set (the vault's creation): the hurdle accumulator counts from there. */
  ratesSince: bigint;
}

export interface Request {
  pendingShares: bigint;
  readyAt: bigint;
  claimableShares: bigint;
  claimableAssets: bigint;
  canceledShares: bigint;
}

/** Outcome the model predicts for an action: success, or the custom error (with its arguments) it must revert with. */
export type Expectation = { ok: true } | { ok: false; error: string; args: unknown[] };

const OK: Expectation = { ok: true };

function fail(error: string, ...args: unknown[]): Expectation {
  return { ok: false, error, args };
}

function ceilDiv(x: bigint, d: bigint): bigint {
  return (x + d - 1n) / d;
}

export class VaultModel {
  now: bigint;
  // Books and balances.
  vaultUsdc = 0n;
  escrowUsdc = 0n;
  accounted = 0n;
  lastAccrual: bigint;
  feeRemainder = 0n;
  /** Hurdle accumulator (hurdleBps x seconds) when the rates were last set, and when. */
  markBase = 0n;
  markedAt: bigint;
  lockedProfit = 0n;
  lastReport = 0n;
  unlockEnd = 0n;
  /** The locked profit before performance fees, unlocking on the same schedule (for the fee bound). */
  grossLockedProfit = 0n;
  /**
   * Highest performance fee rate so far: a holder's fee is settled at the rate in force then, on gains that may
   * have unlocked before a rate change.
   */
  lockedPerformanceBps = 0n;
  supply = 0n;
  /** Shares the vault holds: pending and canceled requests, and shares sent to it (owned by no one). */
  vaultShares = 0n;
  totalClaimable = 0n;
  paused = false;
  fulfillerHasRole = true;
  // Per actor.
  readonly shares: bigint[];
  readonly usdc: bigint[];
  readonly requests: Request[];
  /** Where each actor's position counts its gain and hurdle from. */
  readonly entries: Entry[];
  /** The same for each controller's requested (pending and canceled) shares. */
  readonly requestEntries: Entry[];
  readonly moneyIn: bigint[];
  readonly moneyOut: bigint[];
  /** Net profit that unlocked to the actor while it held (scaled, rounded up: an upper bound of its gains). */
  readonly netYield: bigint[];
  /** Gross profit (before the performance fee) that unlocked to it while it held (scaled, rounded down). */
  readonly grossYield: bigint[];
  /** Management fee on the value it held for the time held (scaled, rounded up). */
  readonly managementBound: bigint[];
  /** Performance fee rate times the gross profit that unlocked to it (scaled, rounded up). */
  readonly performanceBound: bigint[];
  steps = 0;
  /**
   * Rounding that may fairly move between holders: each operation rounds by less than one share unit's value in
   * favour of the vault, i.e. of the other holders. Summed over steps, ceil((totalAssets + 1) / (supply + 1e6)) + 1.
   */
  roundingSlack = 0n;

  constructor(
    readonly config: ModelConfig,
    readonly actors: string[],
    actorUsdc: bigint[],
    now: bigint,
    lastAccrual: bigint,
  ) {
    this.now = now;
    this.lastAccrual = lastAccrual;
    this.markedAt = config.ratesSince;
    this.entries = actorUsdc.map(() => ({ price: 0n, mark: 0n }));
    this.requestEntries = actorUsdc.map(() => ({ price: 0n, mark: 0n }));
    this.usdc = [...actorUsdc];
    const zero = () => actorUsdc.map(() => 0n);
    this.shares = zero();
    this.moneyIn = zero();
    this.moneyOut = zero();
    this.netYield = zero();
    this.grossYield = zero();
    this.managementBound = zero();
    this.performanceBound = zero();
    this.requests = actorUsdc.map(() => ({
      pendingShares: 0n,
      readyAt: 0n,
      claimableShares: 0n,
      claimableAssets: 0n,
      canceledShares: 0n,
    }));
  }

  // ---------------------------------------------------------------- views

  private lockedAt(amount: bigint, at: bigint): bigint {
    if (at >= this.unlockEnd) return 0n;
    return (amount * (this.unlockEnd - at)) / (this.unlockEnd - this.lastReport);
  }

  stillLocked(at: bigint = this.now): bigint {
    return this.lockedAt(this.lockedProfit, at);
  }

  /** Holders' assets before the management fee since the last accrual. */
  protected assetsBeforeFee(): bigint {
    return this.accounted - this.stillLocked();
  }

  /**
   * The management fee the vault takes for the time since the last accrual, with the fraction `carried`: the
   * documented time integral of the holders' assets (fixtures.managementFeeOver).
   */
  protected chargedFee(carried: bigint): { fee: bigint; remainder: bigint } {
    return managementFeeOver({
      accounted: this.accounted,
      lockedAtReport: this.lockedProfit,
      lastReport: this.lastReport,
      unlockEnd: this.unlockEnd,
      from: this.lastAccrual,
      to: this.now,
      bps: this.config.managementBps,
      carried,
    });
  }

  /** Management fee since the last accrual, as deposits and exits take it (no fraction carried). */
  pendingFee(): bigint {
    return this.chargedFee(0n).fee;
  }

  /** The same with the fraction carried by the last explicit accrual, as accrueFees and claimFees take it. */
  private pendingFeeCarried(): bigint {
    if (this.now === this.lastAccrual) return 0n;
    return this.chargedFee(this.feeRemainder).fee;
  }

  totalAssets(): bigint {
    return this.assetsBeforeFee() - this.pendingFee();
  }

  feesOwed(): bigint {
    return this.vaultUsdc - (this.accounted - this.pendingFeeCarried());
  }

  /** The hurdle accumulator now: hurdleBps x seconds since the vault's creation, at the rates in force. */
  markNow(): bigint {
    return this.markBase + this.config.hurdleBps * (this.now - this.markedAt);
  }

  /** The settlement of an actor's position at the price of now (nothing changed). */
  settlementOf(actor: number): { fee: bigint; feeAssets: bigint; entry: Entry } {
    return settlement(
      this.shares[actor],
      this.entries[actor],
      this.totalAssets(),
      this.supply,
      this.markNow(),
      this.config.performanceBps,
    );
  }

  /** Performance fee shares the actors owe now, summed (what the probe reads). */
  feeSharesOwed(): bigint {
    return this.actors.reduce((sum, _, i) => sum + this.settlementOf(i).fee, 0n);
  }

  /** Synchronous maxRedeem: the actor's shares less the fee shares it owes. */
  maxRedeem(actor: number): bigint {
    return this.shares[actor] - this.settlementOf(actor).fee;
  }

  /** Synchronous maxWithdraw: maxRedeem at the price after the actor's settlement, rounded down. */
  maxWithdraw(actor: number): bigint {
    const { fee, feeAssets } = this.settlementOf(actor);
    return mulDiv(this.shares[actor] - fee, this.totalAssets() - feeAssets + 1n, this.supply - fee + VIRTUAL_SHARES);
  }

  /** Shares a synchronous withdraw of `assets` by the actor burns, at the price after its settlement, rounded up. */
  withdrawShares(actor: number, assets: bigint): bigint {
    const { fee, feeAssets } = this.settlementOf(actor);
    return mulDiv(assets, this.supply - fee + VIRTUAL_SHARES, this.totalAssets() - feeAssets + 1n, true);
  }

  /** Takes the actor's performance fee owed (after an accrual): its fee shares burnt, their assets off the books. */
  private settleActor(actor: number): void {
    const { fee, feeAssets, entry } = this.settlementOf(actor);
    this.shares[actor] -= fee;
    this.supply -= fee;
    this.accounted -= feeAssets;
    this.entries[actor] = entry;
  }

  /** Joins `shares` entered at `incoming` to the actor's position (before they are added to its balance). */
  private join(actor: number, shares: bigint, incoming: Entry): void {
    this.entries[actor] = joinEntry(this.shares[actor], this.entries[actor], shares, incoming, this.markNow());
  }

  toShares(assets: bigint, roundUp = false): bigint {
    return mulDiv(assets, this.supply + VIRTUAL_SHARES, this.totalAssets() + 1n, roundUp);
  }

  toAssets(shares: bigint, roundUp = false): bigint {
    return mulDiv(shares, this.totalAssets() + 1n, this.supply + VIRTUAL_SHARES, roundUp);
  }

  maxDeposit(): bigint {
    if (this.paused) return 0n;
    const accountedAfterFee = this.accounted - this.pendingFee();
    const limit = MAX_BOOKS - accountedAfterFee;
    if (this.config.capTokens === NO_CAP_TOKENS) return limit;
    const cap = this.config.capTokens * this.config.capUnit;
    const assets = this.totalAssets();
    if (cap <= assets) return 0n;
    return cap - assets < limit ? cap - assets : limit;
  }

  maxMint(): bigint {
    return this.toShares(this.maxDeposit());
  }

  /** Shares an actor bears gains and fees on: owned, pending, or canceled and not yet claimed back. */
  exposed(actor: number): bigint {
    const r = this.requests[actor];
    return this.shares[actor] + r.pendingShares + r.canceledShares;
  }

  /** Value of an actor's position now: exposed shares at the current price, plus claimable assets. */
  positionValue(actor: number): bigint {
    return this.toAssets(this.exposed(actor)) + this.requests[actor].claimableAssets;
  }

  // ---------------------------------------------------------------- time and fees

  /** Counts one more step of rounding slack, at the share unit's value before the step. */
  countStep(): void {
    this.steps += 1;
    this.roundingSlack += mulDiv(1n, this.totalAssets() + 1n, this.supply + VIRTUAL_SHARES, true) + 1n;
  }

  /**
   * Moves the clock to `to`, crediting each actor with its part of the profit that unlocks meanwhile (net and
   * gross of the performance fee) and with the management fee it may pay for the time: the rate times its part of
   * the holders' assets integrated over [now, to]. All pro rata of all shares (virtual ones included); nothing
   * else changes the books or the shares between two steps.
   */
  advance(to: bigint): void {
    const net = this.stillLocked(this.now) - this.stillLocked(to);
    const gross = this.lockedAt(this.grossLockedProfit, this.now) - this.lockedAt(this.grossLockedProfit, to);
    const area = this.holdersArea(this.now, to);
    const total = this.supply + VIRTUAL_SHARES;
    for (let i = 0; i < this.actors.length; i++) {
      const exposed = this.exposed(i);
      if (exposed === 0n) continue;
      this.netYield[i] += ceilDiv(net * exposed * SCALE, total);
      this.grossYield[i] += (gross * exposed * SCALE) / total;
      this.performanceBound[i] += ceilDiv(gross * exposed * SCALE * this.lockedPerformanceBps, total * BPS);
      this.managementBound[i] += ceilDiv(
        area.numerator * exposed * this.config.managementBps * SCALE,
        area.denominator * total * FEE_DENOMINATOR,
      );
    }
    this.now = to;
  }

  /**
   * Asset-seconds the holders held over [t0, t1] (numerator / denominator, exact): the books less the locked
   * profit, which is lockedProfit * (unlockEnd - t) / D at t < unlockEnd (D = unlockEnd - lastReport) and 0 after.
   * Its antiderivative is -lockedProfit * (unlockEnd - t)^2 / (2 * D), so the locked profit holds
   * lockedProfit * (g(t0) - g(t1)) / (2 * D) of them, g(t) = (unlockEnd - min(t, unlockEnd))^2.
   */
  private holdersArea(t0: bigint, t1: bigint): { numerator: bigint; denominator: bigint } {
    const duration = this.unlockEnd - this.lastReport;
    if (duration === 0n || this.lockedProfit === 0n) return { numerator: this.accounted * (t1 - t0), denominator: 1n };
    const g = (t: bigint) => (t >= this.unlockEnd ? 0n : (this.unlockEnd - t) ** 2n);
    const numerator = 2n * duration * this.accounted * (t1 - t0) - this.lockedProfit * (g(t0) - g(t1));
    return { numerator: numerator > 0n ? numerator : 0n, denominator: 2n * duration };
  }

  /** Brings the management fee to date; `carry` for the explicit accruals, which keep the fraction of a unit. */
  private accrue(carry: boolean): bigint {
    const elapsed = this.now - this.lastAccrual;
    if (elapsed === 0n) return 0n;
    const { fee, remainder } = this.chargedFee(carry ? this.feeRemainder : 0n);
    if (carry) this.feeRemainder = remainder;
    this.accounted -= fee;
    this.lastAccrual = this.now;
    return fee;
  }

  // ---------------------------------------------------------------- entries and exits

  deposit(actor: number, assets: bigint): Expectation {
    const max = this.maxDeposit();
    if (assets > max) return fail("ERC4626ExceededMaxDeposit", this.actors[actor], assets, max);
    if (this.paused) return fail("VaultIsPaused");
    this.accrue(false);
    const shares = this.toShares(assets);
    this.enter(actor, assets, shares);
    return OK;
  }

  mint(actor: number, shares: bigint): Expectation {
    const max = this.maxMint();
    if (shares > max) return fail("ERC4626ExceededMaxMint", this.actors[actor], shares, max);
    if (this.paused) return fail("VaultIsPaused");
    this.accrue(false);
    this.enter(actor, this.toAssets(shares, true), shares);
    return OK;
  }

  private enter(actor: number, assets: bigint, shares: bigint): void {
    this.join(actor, shares, { price: sharePrice(this.totalAssets(), this.supply), mark: this.markNow() });
    this.usdc[actor] -= assets;
    this.vaultUsdc += assets;
    this.accounted += assets;
    this.shares[actor] += shares;
    this.supply += shares;
    this.moneyIn[actor] += assets;
  }

  /** Synchronous withdraw. */
  withdraw(actor: number, assets: bigint): Expectation {
    const max = this.maxWithdraw(actor);
    if (assets > max) return fail("ERC4626ExceededMaxWithdraw", this.actors[actor], assets, max);
    this.accrue(false);
    this.settleActor(actor);
    this.exit(actor, this.toShares(assets, true), assets);
    return OK;
  }

  /** Synchronous redeem. */
  redeem(actor: number, shares: bigint): Expectation {
    const max = this.maxRedeem(actor);
    if (shares > max) return fail("ERC4626ExceededMaxRedeem", this.actors[actor], shares, max);
    this.accrue(false);
    this.settleActor(actor);
    this.exit(actor, shares, this.toAssets(shares));
    return OK;
  }

  private exit(actor: number, shares: bigint, assets: bigint): void {
    this.shares[actor] -= shares;
    this.supply -= shares;
    this.vaultUsdc -= assets;
    this.accounted -= assets;
    this.usdc[actor] += assets;
    this.moneyOut[actor] += assets;
  }

  // ---------------------------------------------------------------- ERC-7540 and ERC-7887

  /** `caller` asks to redeem its own `shares` into the request of `controller`. */
  requestRedeem(caller: number, controller: number, shares: bigint): Expectation {
    if (shares === 0n) return fail("ZeroShares");
    if (caller !== controller) return fail("NotControllerOrOperator", this.actors[caller], this.actors[controller]);
    if (shares > this.shares[caller])
      return fail("ERC20InsufficientBalance", this.actors[caller], this.shares[caller], shares);
    const r = this.requests[controller];
    this.requestEntries[controller] = joinEntry(
      r.pendingShares + r.canceledShares,
      this.requestEntries[controller],
      shares,
      this.entries[caller],
      this.markNow(),
    );
    this.shares[caller] -= shares;
    this.vaultShares += shares;
    r.pendingShares += shares;
    r.readyAt = this.now + this.config.fulfillmentDelay;
    return OK;
  }

  /** A fill of `controller`'s request by the fulfiller (`byFulfiller`) or by anyone else. */
  fulfil(byFulfiller: boolean, controller: number): Expectation {
    const r = this.requests[controller];
    if (r.pendingShares === 0n) return fail("NothingToFulfill", this.actors[controller]);
    const byRole = byFulfiller && this.fulfillerHasRole;
    const readyAt = byRole ? r.readyAt : r.readyAt + GRACE;
    if (this.now < readyAt) return fail("FulfillmentNotReady", this.actors[controller], readyAt, this.now);
    this.accrue(false);
    const shares = r.pendingShares;
    const total = this.totalAssets();
    const { fee, feeAssets } = settlement(
      shares,
      this.requestEntries[controller],
      total,
      this.supply,
      this.markNow(),
      this.config.performanceBps,
    );
    const assets = mulDiv(shares - fee, total - feeAssets + 1n, this.supply - fee + VIRTUAL_SHARES);
    this.accounted -= feeAssets;
    r.pendingShares = 0n;
    r.readyAt = 0n;
    r.claimableShares += shares;
    r.claimableAssets += assets;
    this.totalClaimable += assets;
    this.supply -= shares;
    this.vaultShares -= shares;
    this.vaultUsdc -= assets;
    this.accounted -= assets;
    this.escrowUsdc += assets;
    return OK;
  }

  cancel(caller: number, controller: number): Expectation {
    if (caller !== controller) return fail("NotControllerOrOperator", this.actors[caller], this.actors[controller]);
    const r = this.requests[controller];
    if (r.pendingShares === 0n) return fail("NothingToCancel", this.actors[controller]);
    r.canceledShares += r.pendingShares;
    r.pendingShares = 0n;
    r.readyAt = 0n;
    return OK;
  }

  claimCancel(caller: number, controller: number): Expectation {
    if (caller !== controller) return fail("NotControllerOrOperator", this.actors[caller], this.actors[controller]);
    const r = this.requests[controller];
    if (r.canceledShares === 0n) return fail("NothingToClaim", this.actors[controller]);
    this.join(caller, r.canceledShares, this.requestEntries[controller]);
    this.shares[caller] += r.canceledShares;
    this.vaultShares -= r.canceledShares;
    r.canceledShares = 0n;
    return OK;
  }

  claimRedeem(caller: number, controller: number, shares: bigint): Expectation {
    if (caller !== controller) return fail("NotControllerOrOperator", this.actors[caller], this.actors[controller]);
    const r = this.requests[controller];
    if (shares > r.claimableShares)
      return fail("ERC4626ExceededMaxRedeem", this.actors[controller], shares, r.claimableShares);
    const assets = shares === r.claimableShares ? r.claimableAssets : (shares * r.claimableAssets) / r.claimableShares;
    this.payClaim(controller, shares, assets);
    return OK;
  }

  claimWithdraw(caller: number, controller: number, assets: bigint): Expectation {
    if (caller !== controller) return fail("NotControllerOrOperator", this.actors[caller], this.actors[controller]);
    const r = this.requests[controller];
    if (assets > r.claimableAssets)
      return fail("ERC4626ExceededMaxWithdraw", this.actors[controller], assets, r.claimableAssets);
    const shares =
      assets === r.claimableAssets ? r.claimableShares : mulDiv(assets, r.claimableShares, r.claimableAssets, true);
    this.payClaim(controller, shares, assets);
    return OK;
  }

  private payClaim(actor: number, shares: bigint, assets: bigint): void {
    const r = this.requests[actor];
    r.claimableShares -= shares;
    r.claimableAssets -= assets;
    this.totalClaimable -= assets;
    this.escrowUsdc -= assets;
    this.usdc[actor] += assets;
    this.moneyOut[actor] += assets;
  }

  // ---------------------------------------------------------------- others' actions

  /** Assets sent to the vault by someone who is not an actor: they count for no holder. */
  donate(amount: bigint): Expectation {
    this.vaultUsdc += amount;
    return OK;
  }

  /** Assets sent to the escrow: they stay there, owned by no one. */
  donateToEscrow(amount: bigint): Expectation {
    this.escrowUsdc += amount;
    return OK;
  }

  /**
   * Shares an actor sends to the vault's address by plain transfer: they stay there, owned by no one. The actor
   * counts their value as taken out, so that giving them away is not a fee it paid.
   */
  giveSharesToVault(actor: number, shares: bigint): Expectation {
    if (shares > this.shares[actor])
      return fail("ERC20InsufficientBalance", this.actors[actor], this.shares[actor], shares);
    // The transfer brings no fee to date: the fee those shares bear since the last accrual is the actor's, and so
    // is the bound integrated for them up to now.
    this.moneyOut[actor] += this.toAssets(shares);
    this.shares[actor] -= shares;
    this.vaultShares += shares;
    return OK;
  }

  report(gain: bigint): Expectation {
    if (this.paused) return fail("VaultIsPaused");
    this.accrue(true);
    // No performance fee at the report: each holder's is settled on what unlocks to it.
    const net = gain;
    const stillNet = this.stillLocked();
    const stillGross = this.lockedAt(this.grossLockedProfit, this.now);
    const timeLeft = stillNet > 0n ? this.unlockEnd - this.now : 0n;
    if (this.config.performanceBps > this.lockedPerformanceBps) this.lockedPerformanceBps = this.config.performanceBps;
    this.lockedProfit = stillNet + net;
    this.grossLockedProfit = stillGross + gain;
    this.lastReport = this.now;
    this.unlockEnd = this.now + unlockDuration(stillNet, timeLeft, net, this.config.profitUnlockPeriod);
    this.accounted += net;
    this.vaultUsdc += gain;
    return OK;
  }

  setFees(managementBps: bigint, performanceBps: bigint, hurdleBps: bigint): Expectation {
    if (hurdleBps * performanceBps > managementBps * BPS) {
      return fail("HurdleBeyondManagementFee", hurdleBps, performanceBps, managementBps);
    }
    this.accrue(true);
    // The hurdle earned at the old rate is kept; the new one counts from now.
    this.markBase = this.markNow();
    this.markedAt = this.now;
    this.config.managementBps = managementBps;
    if (performanceBps > this.lockedPerformanceBps) {
      // A fee settled from now on is at the new rate, on gains that may have unlocked before (holders may settle
      // at the old rate while the change waits in the timelock): the bound counts them at the new rate too.
      this.lockedPerformanceBps = performanceBps;
      for (let i = 0; i < this.actors.length; i++) {
        const atNewRate = ceilDiv(this.grossYield[i] * performanceBps, BPS);
        if (atNewRate > this.performanceBound[i]) this.performanceBound[i] = atNewRate;
      }
    }
    this.config.performanceBps = performanceBps;
    this.config.hurdleBps = hurdleBps;
    return OK;
  }

  setCapTokens(capTokens: bigint): Expectation {
    this.config.capTokens = capTokens;
    return OK;
  }

  accrueFees(): Expectation {
    this.accrue(true);
    return OK;
  }

  /** Pays the fee recipient everything beyond the books; returns what it paid. */
  claimFees(): bigint {
    this.accrue(true);
    const paid = this.vaultUsdc - this.accounted;
    this.vaultUsdc -= paid;
    return paid;
  }

  pause(): Expectation {
    if (this.paused) return fail("VaultIsPaused");
    this.paused = true;
    return OK;
  }

  unpause(): Expectation {
    if (!this.paused) return fail("VaultIsNotPaused");
    this.paused = false;
    return OK;
  }

  /** What the actor gained: money out plus what it still has, less money in. */
  netGain(actor: number): bigint {
    return this.moneyOut[actor] + this.positionValue(actor) - this.moneyIn[actor];
  }

  /**
   * The fee bound of docs/vaults.md, checked from the actor's actual gain: the fees it paid (gross profit that
   * unlocked to it, less what it gained) are at most the management fee for the value and time held plus the
   * performance fee on that gross profit, give or take the rounding of the steps. Returns the margin (scaled);
   * negative means the bound is broken.
   */
  feeBoundMargin(actor: number): bigint {
    const paid = this.grossYield[actor] - this.netGain(actor) * SCALE;
    return this.managementBound[actor] + this.performanceBound[actor] + this.roundingSlack * SCALE - paid;
  }

  /** No actor takes out more than it put in plus the net profit that unlocked to it, give or take rounding. */
  gainBoundMargin(actor: number): bigint {
    return this.netYield[actor] + this.roundingSlack * SCALE - this.netGain(actor) * SCALE;
  }
}
