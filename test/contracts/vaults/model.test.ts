/**
 * The model's fee bound is computed independently of the fee formula it predicts the vault with: a vault that
 * charged the third review's finding (the holders' assets at the end of the interval for the whole interval) breaks
 * it, and the documented time integral keeps it. Pure model, no chain.
 */
import { expect } from "chai";
import { DAY, USDC, managementFee } from "./fixtures";
import { NO_CAP_TOKENS, SCALE, VaultModel, type ModelConfig } from "./model";

/** A vault charging the end value for the whole interval, as NapVault did before the third review. */
class EndValueFeeModel extends VaultModel {
  protected override chargedFee(carried: bigint): { fee: bigint; remainder: bigint } {
    return managementFee(this.assetsBeforeFee(), this.config.managementBps, this.now - this.lastAccrual, carried);
  }
}

const HARD_BOUNDS: ModelConfig = {
  async: false,
  capUnit: USDC,
  capTokens: NO_CAP_TOKENS,
  profitUnlockPeriod: 30n * BigInt(DAY),
  fulfillmentDelay: 0n,
  managementBps: 500n,
  performanceBps: 0n,
  hurdleBps: 0n,
  ratesSince: 1_000n,
};

/** One holder deposits 1,000,000 USDC, 1,000,000 of profit is reported and unlocks idle; then one accrual. */
function idleUnlock(model: VaultModel): VaultModel {
  const step = (seconds: bigint, action: () => void) => {
    model.countStep();
    model.advance(model.now + seconds);
    action();
  };
  step(1n, () => expect(model.deposit(0, 1_000_000n * USDC)).to.deep.equal({ ok: true }));
  step(1n, () => expect(model.report(1_000_000n * USDC)).to.deep.equal({ ok: true }));
  step(30n * BigInt(DAY), () => model.accrueFees());
  return model;
}

const fresh = <M extends VaultModel>(Model: new (...args: ConstructorParameters<typeof VaultModel>) => M) =>
  new Model({ ...HARD_BOUNDS }, ["holder"], [2_000_000n * USDC], 1_000n, 1_000n);

describe("VaultModel fee bound", () => {
  it("holds for the documented time integral of the holders' assets", () => {
    const model = idleUnlock(fresh(VaultModel));
    expect(model.feeBoundMargin(0)).to.be.gte(0n);
  });

  it("is broken by a vault that charges the end value for the whole interval (the third review's finding)", () => {
    const model = idleUnlock(fresh(EndValueFeeModel));
    // 2,054.79 USDC charged beyond the bound: 8,219.18 against 6,164.38.
    const margin = model.feeBoundMargin(0) / SCALE;
    expect(margin).to.be.lte(-2_054_790_000n);
    expect(margin).to.be.gte(-2_054_800_000n);
  });
});
