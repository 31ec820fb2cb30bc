import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

/** Agent badges (ERC-721), administered by the deployer until the roles module hands them to the timelock. */
export const badgesModule = buildModule("Badges", (m) => {
  const badges = m.contract("AgentBadges", [m.getAccount(0)]);
  return { badges };
});
