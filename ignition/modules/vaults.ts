import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { ArgumentType } from "@nomicfoundation/ignition-core";
import type { DeployParameters } from "../../deploy/parameters";
import { VAULT_IDS, vaultConfigs, vaultConstructorArgs, vaultContractName } from "../../deploy/vaults";
import type { governanceModule } from "./governance";
import type { tokensModule } from "./tokens";

/**
 * The six vaults (configurations and constructor arguments: deploy/vaults.ts). Their roles are set at construction,
 * none for the deployer: the timelock administers and manages them and receives their fees, the relayer harvests
 * and fulfils redemptions, the first registry guardian may pause them.
 */
export function vaultsModule(
  p: DeployParameters,
  tokens: ReturnType<typeof tokensModule>,
  governance: ReturnType<typeof governanceModule>,
) {
  return buildModule("Vaults", (m) => {
    const { usdc } = m.useModule(tokens);
    const { timelock } = m.useModule(governance);
    const roles = {
      admin: timelock,
      manager: timelock,
      harvester: p.Roles.relayer,
      guardian: p.Roles.guardians[0],
      fulfiller: p.Roles.relayer,
      feeRecipient: timelock,
    };
    const deploy = (id: (typeof VAULT_IDS)[number]) =>
      m.contract(
        vaultContractName(vaultConfigs[id]),
        [...vaultConstructorArgs<ArgumentType>(vaultConfigs[id], usdc, roles)],
        {
          id,
        },
      );
    return {
      conservative: deploy("conservative"),
      moderate: deploy("moderate"),
      aggressive: deploy("aggressive"),
      inverse: deploy("inverse"),
      hedged: deploy("hedged"),
      configurable: deploy("configurable"),
    };
  });
}
