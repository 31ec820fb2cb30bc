/**
 * Who signs the deployment. A local node signs with its own unlocked accounts. A public network's endpoint holds
 * none: the deployer's key is then read from Hardhat's configuration variables (`npx hardhat vars set
 * DEPLOYER_PRIVATE_KEY`, a file in the user's Hardhat folder, never the repository or a shell export) at this moment
 * and only by the deployment, which signs with it locally through Hardhat's own signing provider.
 */
import { vars } from "hardhat/config";
import type { EIP1193Provider, Network } from "hardhat/types";

export const DEPLOYER_KEY_VARIABLE = "DEPLOYER_PRIVATE_KEY";

export interface DeployerAccess {
  /** The provider Ignition sends through (it signs for `accounts`). */
  provider: EIP1193Provider;
  accounts: string[];
}

/** The deployer's key from the configuration variable, or undefined when it is not set. */
export function configuredDeployerKey(): string | undefined {
  return vars.has(DEPLOYER_KEY_VARIABLE) ? vars.get(DEPLOYER_KEY_VARIABLE) : undefined;
}

export async function deployerAccess(
  network: Pick<Network, "name" | "provider">,
  readKey: () => string | undefined = configuredDeployerKey,
): Promise<DeployerAccess> {
  const nodeAccounts = (await network.provider.request({ method: "eth_accounts" })) as string[];
  if (nodeAccounts.length > 0) return { provider: network.provider, accounts: nodeAccounts };
  const key = readKey()?.trim();
  if (!key) {
    throw new Error(
      `network ${network.name} has no deployer account: store its key with ` +
        `\`npx hardhat vars set ${DEPLOYER_KEY_VARIABLE}\` (docs/deploy.md)`,
    );
  }
  // Hardhat's signing wrapper, as Hardhat itself builds it for a network with `accounts` configured.
  const { LocalAccountsProvider } = await import("hardhat/internal/core/providers/accounts");
  const provider = new LocalAccountsProvider(network.provider, [key.startsWith("0x") ? key : `0x${key}`]);
  return { provider, accounts: (await provider.request({ method: "eth_accounts" })) as string[] };
}
