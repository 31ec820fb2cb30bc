import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

/** The stateless VaultLens the API reads the vaults through (no roles). */
export const lensModule = buildModule("Lens", (m) => {
  const lens = m.contract("VaultLens", []);
  return { lens };
});
