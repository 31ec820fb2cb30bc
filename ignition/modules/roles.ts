import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { ContractCallFuture } from "@nomicfoundation/ignition-core";
import type { DeployParameters } from "../../deploy/parameters";
import { ROLE_IDS } from "../../deploy/roleIds";
import type { badgesModule } from "./badges";
import type { faucetModule } from "./faucet";
import type { governanceModule } from "./governance";
import type { registryModule } from "./registry";
import type { tokensModule } from "./tokens";

export interface RoleModuleParts {
  tokens: ReturnType<typeof tokensModule>;
  governance: ReturnType<typeof governanceModule>;
  registry: ReturnType<typeof registryModule>;
  faucet: ReturnType<typeof faucetModule>;
  badges: typeof badgesModule;
}

/**
 * Every role grant and renouncement of the deployment, one named step each (`Roles#<Contract>_<ROLE>_<holder>`), in
 * three stages. The table these steps must produce is in deploy/roleTable.ts (docs/deploy.md), and
 * `npm run deploy:check` compares the chain with it.
 * 1. Grants, made while the deployer still administers each contract.
 * 2. Handover: the timelock becomes DEFAULT_ADMIN of registry, faucet, badges, token and minter (it administers
 *    itself and the vaults from their constructors).
 * 3. Renouncements: the deployer gives up DEFAULT_ADMIN on each of them, the timelock last. From then on only a
 *    governance proposal changes a role. TestUSDC (local chains only) stays with the deployer for dev minting.
 */
export function rolesModule(p: DeployParameters, parts: RoleModuleParts) {
  return buildModule("Roles", (m) => {
    const deployer = m.getAccount(0);
    const { usdc, napToken, napMinter } = m.useModule(parts.tokens);
    const { timelock, governor } = m.useModule(parts.governance);
    const { registry } = m.useModule(parts.registry);
    const { faucet } = m.useModule(parts.faucet);
    const { badges } = m.useModule(parts.badges);
    const { relayer, guardians, oracles } = p.Roles;

    // 1. Grants.
    const timelockGrants = [
      m.call(timelock, "grantRole", [ROLE_IDS.PROPOSER_ROLE, governor], { id: "Timelock_PROPOSER_governor" }),
      m.call(timelock, "grantRole", [ROLE_IDS.CANCELLER_ROLE, governor], { id: "Timelock_CANCELLER_governor" }),
    ];
    const registryGrants = [
      m.call(registry, "grantRole", [ROLE_IDS.SCREENER_ROLE, relayer], { id: "Registry_SCREENER_relayer" }),
      m.call(registry, "grantRole", [ROLE_IDS.MANAGER_ROLE, relayer], { id: "Registry_MANAGER_relayer" }),
      ...guardians.map((guardian, i) =>
        m.call(registry, "grantRole", [ROLE_IDS.GUARDIAN_ROLE, guardian], { id: `Registry_GUARDIAN_guardian${i}` }),
      ),
      ...oracles.map((oracle, i) =>
        m.call(registry, "grantRole", [ROLE_IDS.ORACLE_ROLE, oracle], { id: `Registry_ORACLE_oracle${i}` }),
      ),
    ];
    const faucetGrants = [
      m.call(faucet, "grantRole", [ROLE_IDS.DRIPPER_ROLE, relayer], { id: "Faucet_DRIPPER_relayer" }),
    ];
    const badgesGrants = [
      m.call(badges, "grantRole", [ROLE_IDS.MINTER_ROLE, relayer], { id: "Badges_MINTER_relayer" }),
    ];
    // No hot key mints NAP: the minter alone holds the token's MINTER_ROLE, and the relayer mints through its budget.
    const tokenGrants = [
      m.call(napToken, "grantRole", [ROLE_IDS.MINTER_ROLE, napMinter], { id: "NapToken_MINTER_napMinter" }),
    ];
    const minterGrants = [
      m.call(napMinter, "grantRole", [ROLE_IDS.MINTER_ROLE, relayer], { id: "NapMinter_MINTER_relayer" }),
    ];
    if (p.Tokens.usdc === undefined) {
      m.call(usdc, "grantRole", [ROLE_IDS.MINTER_ROLE, faucet], { id: "TestUSDC_MINTER_faucet" });
    }

    // 2. Handover and 3. renouncements.
    const handOver = (
      name: string,
      contract: typeof registry | typeof faucet | typeof badges | typeof napToken | typeof napMinter,
      grants: ContractCallFuture<string, string>[],
    ) => {
      const granted = m.call(contract, "grantRole", [ROLE_IDS.DEFAULT_ADMIN_ROLE, timelock], {
        id: `${name}_DEFAULT_ADMIN_timelock`,
        after: grants,
      });
      return m.call(contract, "renounceRole", [ROLE_IDS.DEFAULT_ADMIN_ROLE, deployer], {
        id: `${name}_renounce_DEFAULT_ADMIN_deployer`,
        after: [granted],
      });
    };
    const renounced = [
      handOver("Registry", registry, registryGrants),
      handOver("Faucet", faucet, faucetGrants),
      handOver("Badges", badges, badgesGrants),
      handOver("NapToken", napToken, tokenGrants),
      handOver("NapMinter", napMinter, minterGrants),
    ];
    m.call(timelock, "renounceRole", [ROLE_IDS.DEFAULT_ADMIN_ROLE, deployer], {
      id: "Timelock_renounce_DEFAULT_ADMIN_deployer",
      after: [...timelockGrants, ...renounced],
    });
    return {};
  });
}
