import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { DeployParameters } from "../../deploy/parameters";

/** The strategy registry, administered by the deployer until the roles module hands it to the timelock. */
export function registryModule(p: DeployParameters) {
  return buildModule("Registry", (m) => {
    const r = p.Registry;
    const registry = m.contract("StrategyRegistryV3", [
      m.getAccount(0),
      r.guardianThreshold,
      r.oracleThreshold,
      r.minPaperTradingPeriod,
    ]);
    return { registry };
  });
}
