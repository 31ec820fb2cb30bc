import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import { ZeroAddress } from "ethers";
import type { DeployParameters } from "../../deploy/parameters";
import type { tokensModule } from "./tokens";

/**
 * The timelock and the governor. The timelock starts with no proposer (the roles module makes the governor its
 * proposer and canceller), lets anyone execute a queued proposal, and is administered by itself and, until the
 * roles module renounces it, by the deployer.
 */
export function governanceModule(p: DeployParameters, tokens: ReturnType<typeof tokensModule>) {
  return buildModule("Governance", (m) => {
    const deployer = m.getAccount(0);
    const { napToken } = m.useModule(tokens);
    const g = p.Governance;
    const timelock = m.contract("TimelockController", [g.timelockMinDelay, [], [ZeroAddress], deployer]);
    const governor = m.contract("NapGovernor", [
      napToken,
      timelock,
      g.votingDelay,
      g.votingPeriod,
      g.proposalThreshold,
      g.quorumPercent,
      g.proposalGuardian,
    ]);
    return { timelock, governor };
  });
}
