import type { Provider } from "ethers";
import { UnavailableError } from "../errors";
import type { Deployment } from "../chain/deployment";
import { VAULT_IDS, type VaultId } from "../domain/model";
import {
  AgentBadges__factory,
  NapFaucet__factory,
  NapGovernor__factory,
  NapMinter__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
  VaultLens__factory,
  type AgentBadges,
  type NapFaucet,
  type NapGovernor,
  type NapMinter,
  type NapToken,
  type StrategyRegistryV3,
  type TestUSDC,
  type VaultLens,
} from "../../../typechain-types";

/**
 * Read-only handles on the contracts of the deployment file (writes are encoded with their interfaces and sent by
 * the transaction engine). Each getter throws a 503 naming what is missing, so an endpoint whose contract is not
 * deployed answers clearly instead of failing deep inside.
 */
export class SystemContracts {
  constructor(
    private readonly provider: Provider,
    readonly deployment: Deployment | null,
    private readonly chainId: number,
  ) {}

  #address(name: string): string {
    if (!this.deployment) {
      throw new UnavailableError(`no deployment file for chain ${this.chainId}: onchain endpoints are unavailable`);
    }
    const entry = name === "USDC" ? this.deployment.usdc : this.deployment.contracts[name];
    if (!entry) throw new UnavailableError(`the deployment file lists no ${name}: this endpoint is unavailable`);
    return entry.address;
  }

  get registry(): StrategyRegistryV3 {
    return StrategyRegistryV3__factory.connect(this.#address("StrategyRegistryV3"), this.provider);
  }
  /** The deployment's USDC (TestUSDC locally; any ERC-20 with the same read/approve surface elsewhere). */
  get usdc(): TestUSDC {
    return TestUSDC__factory.connect(this.#address("USDC"), this.provider);
  }
  get lens(): VaultLens {
    return VaultLens__factory.connect(this.#address("VaultLens"), this.provider);
  }
  get faucet(): NapFaucet {
    return NapFaucet__factory.connect(this.#address("NapFaucet"), this.provider);
  }
  get badges(): AgentBadges {
    return AgentBadges__factory.connect(this.#address("AgentBadges"), this.provider);
  }
  get token(): NapToken {
    return NapToken__factory.connect(this.#address("NapToken"), this.provider);
  }
  /** The rate-limited minter through which the relayer grants NAP (it alone holds the token's MINTER_ROLE). */
  get minter(): NapMinter {
    return NapMinter__factory.connect(this.#address("NapMinter"), this.provider);
  }
  get governor(): NapGovernor {
    return NapGovernor__factory.connect(this.#address("NapGovernor"), this.provider);
  }

  vaultInterface() {
    return NapVault__factory.createInterface();
  }

  vault(id: VaultId) {
    const entry = this.deployment?.vaults[id];
    if (!this.deployment) this.#address("vaults");
    if (!entry) throw new UnavailableError(`the deployment file lists no ${id} vault: deposits to it are unavailable`);
    return NapVault__factory.connect(entry.address, this.provider);
  }

  /** The vaults of the deployment, in the API's order. */
  vaultList(): { id: VaultId; address: string }[] {
    if (!this.deployment) return [];
    return VAULT_IDS.flatMap((id) => {
      const entry = this.deployment?.vaults[id];
      return entry ? [{ id, address: entry.address }] : [];
    });
  }
}
