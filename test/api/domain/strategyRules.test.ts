import { expect } from "chai";
import { ethers } from "hardhat";
import { RISK_PARAMS, TEXT_BYTES, textBytesProblem } from "../../../api/src/domain/strategyRules";
import { checkSubmission, type RiskParams } from "../../../api/src/usecases/strategies";
import type { StrategyRegistryV3 } from "../../../typechain-types";
import { deployRegistry } from "../../contracts/registry/helpers";

const CAMEL: Record<keyof typeof RISK_PARAMS, string> = {
  max_position_size_percent: "maxPositionSizePercent",
  max_leverage: "maxLeverage",
  stop_loss_percent: "stopLossPercent",
  slippage_tolerance_bps: "slippageToleranceBps",
  correlation_threshold: "correlationThreshold",
  velocity_limit: "velocityLimit",
};

const defaults = (): RiskParams => ({
  max_position_size_percent: 10,
  max_leverage: 200,
  stop_loss_percent: 500,
  slippage_tolerance_bps: 100,
  correlation_threshold: 70,
  velocity_limit: 1_000_000,
  flash_loans_enabled: false,
});

/**
 * The registry's bounds as the service mirrors them (api/src/domain/strategyRules.ts), held against StrategyRegistryV3
 * itself: what the service lets through the registry accepts, and the first value past each bound both refuse.
 */
describe("Strategy rules against StrategyRegistryV3", function () {
  let registry: StrategyRegistryV3;

  before(async function () {
    ({ registry } = await deployRegistry());
  });

  async function registryAccepts(name: string, description: string, risk: RiskParams): Promise<boolean> {
    const params = Object.fromEntries(
      Object.entries(CAMEL).map(([api, onchain]) => [onchain, risk[api as keyof typeof CAMEL]]),
    );
    return registry.submit
      .staticCall(name, description, ethers.id(name), {
        ...params,
        flashLoansEnabled: risk.flash_loans_enabled,
      } as never)
      .then(
        () => true,
        () => false,
      );
  }

  const serviceAccepts = (name: string, description: string, risk: RiskParams) => {
    try {
      checkSubmission({ name, description, risk });
      return true;
    } catch {
      return false;
    }
  };

  it("agrees on the byte bounds of name and description, for multi-byte characters too", async function () {
    const cases: [string, string][] = [];
    for (const [field, { min, max }] of Object.entries(TEXT_BYTES) as [
      keyof typeof TEXT_BYTES,
      { min: number; max: number },
    ][]) {
      for (const length of [min - 1, min, max, max + 1]) {
        const ascii = "a".repeat(length);
        // Two-byte characters: the same byte lengths in half the characters (rounded down, then topped up).
        const accented = "é".repeat(Math.floor(length / 2)) + (length % 2 ? "a" : "");
        for (const text of [ascii, accented]) {
          cases.push(field === "name" ? [text, "a valid description"] : ["valid name", text]);
        }
      }
    }
    for (const [name, description] of cases) {
      expect(serviceAccepts(name, description, defaults()), `${name.length}/${description.length}`).to.equal(
        await registryAccepts(name, description, defaults()),
      );
    }
    expect(textBytesProblem("name", "é".repeat(100))).to.equal("must be at most 100 bytes of UTF-8 (this one is 200)");
  });

  it("agrees on every risk bound", async function () {
    for (const [param, { min, max }] of Object.entries(RISK_PARAMS) as [
      keyof typeof RISK_PARAMS,
      { min: number; max: number },
    ][]) {
      const values = [min - 1, min, max, ...(max === Number.MAX_SAFE_INTEGER ? [] : [max + 1])].filter((v) => v >= 0);
      for (const value of values) {
        const risk = { ...defaults(), [param]: value };
        expect(serviceAccepts("valid name", "a valid description", risk), `${param} ${value}`).to.equal(
          await registryAccepts("valid name", "a valid description", risk),
        );
      }
    }
  });
});
