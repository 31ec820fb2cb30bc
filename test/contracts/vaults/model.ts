/**
 * An executable model of a NapVault, written from docs/vaults.md and independent of the contract: USDC balances,
 * shares, profit unlocking, fees, ERC-7540 requests, and each actor's money in, money out and fair share of yield.
 * All arithmetic is exact (bigint) and rounds as the documentation says.
 */
import { VIRTUAL_SHARES, expectedFees, mulDiv } from "./fixtures";

export const NO_CAP = 2n ** 256n - 1n;

export interface ModelConfig {
  async: boolean;
  depositCap: bigint;
  profitUnlockPeriod: bigint;
  fulfillmentDelay: bigint;
  managementBps: bigint;
  performanceBps: bigint;
  hurdleBps: bigint;
  lastAccrual: bigint;
  mark: bigint;
  markTime: bigint;
}

export interface Request {
  pendingShares: bigint;
  requestedAt: bigint;
  claimableShares: bigint;
  claimableAssets: bigint;
}

/** Outcome the model predicts for an action: success, or the custom error (with its arguments) it must revert with. */
export type Expectation = { ok: true } | { ok: false; error: string; args: unknown[] };

const OK: Expectation = { ok: true };

function fail(error: string, ...args: unknown[]): Expectation {
  return { ok: false, error, args };
}

export class VaultModel {
  now: bigint;
  vaultAssets = 0n; // USDC held by the vault
  escrowAssets = 0n; // USDC held by the redeem escrow
  supply = 0n;
  vaultShares = 0n; // shares held by the vault for pending requests
  feeShares = 0n; // shares of the fee recipient
  lockedProfit = 0n;
  lastReport = 0n;
  unlockEnd = 0n;
  totalClaimable = 0n;
  readonly shares: bigint[];
  readonly usdc: bigint[];
  readonly requests: Request[];
  /** Money each actor put in and took out, and the yield it may fairly have earned (scaled by FAIR_SCALE). */
  readonly moneyIn: bigint[];
  readonly moneyOut: bigint[];
  readonly fairYield: bigint[];
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
  ) {
    this.now = now;
    this.usdc = [...actorUsdc];
    this.shares = actorUsdc.map(() => 0n);
    this.requests = actorUsdc.map(() => ({
      pendingShares: 0n,
      requestedAt: 0n,
      claimableShares: 0n,
      claimableAssets: 0n,
    }));
    this.moneyIn = actorUsdc.map(() => 0n);
    this.moneyOut = actorUsdc.map(() => 0n);
    this.fairYield = actorUsdc.map(() => 0n);
  }

  stillLocked(at: bigint = this.now): bigint {
    if (at >= this.unlockEnd) return 0n;
    return (this.lockedProfit * (this.unlockEnd - at)) / (this.unlockEnd - this.lastReport);
  }

  totalAssets(at: bigint = this.now): bigint {
    return this.vaultAssets - this.stillLocked(at);
  }

  toShares(assets: bigint, roundUp = false): bigint {
    return mulDiv(assets, this.supply + VIRTUAL_SHARES, this.totalAssets() + 1n, roundUp);
  }

  toAssets(shares: bigint, roundUp = false): bigint {
    return mulDiv(shares, this.totalAssets() + 1n, this.supply + VIRTUAL_SHARES, roundUp);
  }

  maxDeposit(): bigint {
    if (this.config.depositCap === NO_CAP) return NO_CAP;
    const assets = this.totalAssets();
    return this.config.depositCap > assets ? this.config.depositCap - assets : 0n;
  }

  maxMint(): bigint {
    const room = this.maxDeposit();
    return room === NO_CAP ? NO_CAP : this.toShares(room);
  }

  /** Value of an actor's position now: shares at the current price, pending shares likewise, claimable assets. */
  positionValue(actor: number): bigint {
    const r = this.requests[actor];
    return this.toAssets(this.shares[actor] + r.pendingShares) + r.claimableAssets;
  }

  /**
   * Moves the clock to `to`, crediting each actor with its fair part of the profit that unlocks meanwhile: the
   * fraction of all shares (virtual ones included) it holds or has pending. Rounded up (an upper bound).
   */
  /** Counts one more step of rounding slack, at the share unit's value before the step. */
  countStep(): void {
    this.steps += 1;
    this.roundingSlack += mulDiv(1n, this.totalAssets() + 1n, this.supply + VIRTUAL_SHARES, true) + 1n;
  }

  advance(to: bigint): void {
    const unlocked = this.stillLocked(this.now) - this.stillLocked(to);
    if (unlocked > 0n) this.creditYield(unlocked);
    this.now = to;
  }

  private creditYield(amount: bigint): void {
    const total = this.supply + VIRTUAL_SHARES;
    this.shares.forEach((held, i) => {
      const exposed = held + this.requests[i].pendingShares;
      if (exposed > 0n) this.fairYield[i] += mulDiv(amount, exposed, total, true);
    });
  }

  private accrueFees(): void {
    const outcome = expectedFees({
      assets: this.totalAssets(),
      supply: this.supply,
      mark: this.config.mark,
      markTime: this.config.markTime,
      lastAccrual: this.config.lastAccrual,
      managementBps: this.config.managementBps,
      performanceBps: this.config.performanceBps,
      hurdleBps: this.config.hurdleBps,
      now: this.now,
    });
    if (this.now !== this.config.lastAccrual) this.config.lastAccrual = this.now;
    if (outcome === null) return;
    this.supply += outcome.feeShares;
    this.feeShares += outcome.feeShares;
    if (outcome.markMoves) {
      this.config.mark = outcome.priceAfter;
      this.config.markTime = this.now;
    }
  }

  deposit(actor: number, assets: bigint): Expectation {
    const max = this.maxDeposit();
    if (assets > max) return fail("ERC4626ExceededMaxDeposit", this.actors[actor], assets, max);
    const shares = this.toShares(assets);
    this.usdc[actor] -= assets;
    this.vaultAssets += assets;
    this.shares[actor] += shares;
    this.supply += shares;
    this.moneyIn[actor] += assets;
    return OK;
  }

  mint(actor: number, shares: bigint): Expectation {
    const max = this.maxMint();
    if (shares > max) return fail("ERC4626ExceededMaxMint", this.actors[actor], shares, max);
    const assets = this.toAssets(shares, true);
    this.usdc[actor] -= assets;
    this.vaultAssets += assets;
    this.shares[actor] += shares;
    this.supply += shares;
    this.moneyIn[actor] += assets;
    return OK;
  }

  /** Synchronous withdraw. */
  withdraw(actor: number, assets: bigint): Expectation {
    const max = this.toAssets(this.shares[actor]);
    if (assets > max) return fail("ERC4626ExceededMaxWithdraw", this.actors[actor], assets, max);
    this.burnFor(actor, this.toShares(assets, true), assets);
    return OK;
  }

  /** Synchronous redeem. */
  redeem(actor: number, shares: bigint): Expectation {
    const max = this.shares[actor];
    if (shares > max) return fail("ERC4626ExceededMaxRedeem", this.actors[actor], shares, max);
    this.burnFor(actor, shares, this.toAssets(shares));
    return OK;
  }

  private burnFor(actor: number, shares: bigint, assets: bigint): void {
    this.shares[actor] -= shares;
    this.supply -= shares;
    this.vaultAssets -= assets;
    this.usdc[actor] += assets;
    this.moneyOut[actor] += assets;
  }

  requestRedeem(actor: number, shares: bigint): Expectation {
    if (shares === 0n) return fail("ZeroShares");
    if (shares > this.shares[actor])
      return fail("ERC20InsufficientBalance", this.actors[actor], this.shares[actor], shares);
    this.shares[actor] -= shares;
    this.vaultShares += shares;
    const r = this.requests[actor];
    r.pendingShares += shares;
    r.requestedAt = this.now;
    return OK;
  }

  fulfil(actor: number): Expectation {
    const r = this.requests[actor];
    if (r.pendingShares === 0n) return fail("NothingToFulfill", this.actors[actor]);
    const readyAt = r.requestedAt + this.config.fulfillmentDelay;
    if (this.now < readyAt) return fail("FulfillmentNotReady", this.actors[actor], readyAt, this.now);
    this.accrueFees();
    const shares = r.pendingShares;
    const assets = this.toAssets(shares);
    r.pendingShares = 0n;
    r.claimableShares += shares;
    r.claimableAssets += assets;
    this.totalClaimable += assets;
    this.supply -= shares;
    this.vaultShares -= shares;
    this.vaultAssets -= assets;
    this.escrowAssets += assets;
    return OK;
  }

  claimRedeem(actor: number, shares: bigint): Expectation {
    const r = this.requests[actor];
    if (shares > r.claimableShares)
      return fail("ERC4626ExceededMaxRedeem", this.actors[actor], shares, r.claimableShares);
    const assets = shares === r.claimableShares ? r.claimableAssets : (shares * r.claimableAssets) / r.claimableShares;
    this.payClaim(actor, shares, assets);
    return OK;
  }

  claimWithdraw(actor: number, assets: bigint): Expectation {
    const r = this.requests[actor];
    if (assets > r.claimableAssets)
      return fail("ERC4626ExceededMaxWithdraw", this.actors[actor], assets, r.claimableAssets);
    const shares =
      assets === r.claimableAssets ? r.claimableShares : mulDiv(assets, r.claimableShares, r.claimableAssets, true);
    this.payClaim(actor, shares, assets);
    return OK;
  }

  private payClaim(actor: number, shares: bigint, assets: bigint): void {
    const r = this.requests[actor];
    r.claimableShares -= shares;
    r.claimableAssets -= assets;
    this.totalClaimable -= assets;
    this.escrowAssets -= assets;
    this.usdc[actor] += assets;
    this.moneyOut[actor] += assets;
  }

  donate(amount: bigint): Expectation {
    this.vaultAssets += amount;
    this.creditYield(amount);
    return OK;
  }

  report(gain: bigint): Expectation {
    this.accrueFees();
    this.lockedProfit = this.stillLocked() + gain;
    this.lastReport = this.now;
    this.unlockEnd = this.now + this.config.profitUnlockPeriod;
    this.vaultAssets += gain;
    return OK;
  }

  setFees(managementBps: bigint, performanceBps: bigint, hurdleBps: bigint): Expectation {
    this.accrueFees();
    this.config.managementBps = managementBps;
    this.config.performanceBps = performanceBps;
    this.config.hurdleBps = hurdleBps;
    return OK;
  }

  accrue(): Expectation {
    this.accrueFees();
    return OK;
  }
}
