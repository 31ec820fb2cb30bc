import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { DeployParameters } from "../../deploy/parameters";
import { badgesModule } from "./badges";
import { faucetModule } from "./faucet";
import { fundingModule } from "./funding";
import { governanceModule } from "./governance";
import { lensModule } from "./lens";
import { registryModule } from "./registry";
import { rolesModule } from "./roles";
import { routerModule } from "./router";
import { tokensModule } from "./tokens";
import { vaultsModule } from "./vaults";

/**
 * The whole system, built from one network's parameters: tokens, governance, registry, faucet, badges, vaults, lens,
 * router, funding (local chains) and roles. The result names are the contract names of deployments/<chainId>.json
 * (USDC or TestUSDC) and the vault ids.
 */
export function systemModule(p: DeployParameters) {
  const tokens = tokensModule(p);
  const governance = governanceModule(p, tokens);
  const registry = registryModule(p);
  const faucet = faucetModule(p, tokens);
  const vaults = vaultsModule(p, tokens, governance);
  const funding = fundingModule(p, faucet);
  const roles = rolesModule(p, { tokens, governance, registry, faucet, badges: badgesModule });
  return buildModule("Nap", (m) => {
    const { usdc, napToken, napMinter } = m.useModule(tokens);
    const { timelock, governor } = m.useModule(governance);
    m.useModule(funding);
    m.useModule(roles);
    return {
      [p.Tokens.usdc === undefined ? "TestUSDC" : "USDC"]: usdc,
      NapToken: napToken,
      NapMinter: napMinter,
      TimelockController: timelock,
      NapGovernor: governor,
      StrategyRegistryV3: m.useModule(registry).registry,
      NapFaucet: m.useModule(faucet).faucet,
      AgentBadges: m.useModule(badgesModule).badges,
      VaultLens: m.useModule(lensModule).lens,
      NapRouter: m.useModule(routerModule).router,
      ...m.useModule(vaults),
    };
  });
}
