import type { Provider } from "ethers";
import { NotConfiguredError } from "../errors";
import type { Deployment } from "./deployment";
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
  type NapVault,
  type StrategyRegistryV3,
  type TestUSDC,
  type VaultLens,
} from "../../../typechain-types";

/**
 * The system's contracts, typed (TypeChain), at the addresses of the deployment file: the one place that knows
 * where each contract is. Handles are read-only (writes are encoded with their interfaces and signed by the
 * transaction engine). A contract the deployment does not list is a NotConfiguredError naming it, so an endpoint
 * that needs it answers clearly instead of failing deep inside.
 */

/** Contract names as the deployment file lists them under `contracts`. */
export type ContractName =
  "StrategyRegistryV3" | "VaultLens" | "NapFaucet" | "AgentBadges" | "NapToken" | "NapGovernor" | "NapMinter";

export interface VaultAddress {
  id: VaultId;
  address: string;
}

export class SystemContracts {
  readonly #handles = new Map<string, unknown>();
  #vaults: readonly VaultAddress[] | undefined;

  constructor(
    private readonly provider: Provider,
    readonly deployment: Deployment | null,
    private readonly chainId: number,
  ) {}

  /** The address of a contract of the deployment (USDC: the deployment's asset). */
  address(name: ContractName | "USDC"): string {
    if (!this.deployment) {
      throw new NotConfiguredError(`no deployment file for chain ${this.chainId}: onchain endpoints are unavailable`);
    }
    const entry = name === "USDC" ? this.deployment.usdc : this.deployment.contracts[name];
    if (!entry) throw new NotConfiguredError(`the deployment file lists no ${name}: this endpoint is unavailable`);
    return entry.address;
  }

  /** True when the deployment lists `name`. */
  has(name: ContractName): boolean {
    return Boolean(this.deployment?.contracts[name]);
  }

  #handle<T>(address: string, connect: (address: string, provider: Provider) => T): T {
    let handle = this.#handles.get(address) as T | undefined;
    if (!handle) {
      handle = connect(address, this.provider);
      this.#handles.set(address, handle);
    }
    return handle;
  }

  get registry(): StrategyRegistryV3 {
    return this.#handle(this.address("StrategyRegistryV3"), StrategyRegistryV3__factory.connect);
  }
  /** The deployment's USDC (TestUSDC locally; any ERC-20 with the same read/approve surface elsewhere). */
  get usdc(): TestUSDC {
    return this.#handle(this.address("USDC"), TestUSDC__factory.connect);
  }
  get lens(): VaultLens {
    return this.#handle(this.address("VaultLens"), VaultLens__factory.connect);
  }
  get faucet(): NapFaucet {
    return this.#handle(this.address("NapFaucet"), NapFaucet__factory.connect);
  }
  get badges(): AgentBadges {
    return this.#handle(this.address("AgentBadges"), AgentBadges__factory.connect);
  }
  get token(): NapToken {
    return this.#handle(this.address("NapToken"), NapToken__factory.connect);
  }
  get governor(): NapGovernor {
    return this.#handle(this.address("NapGovernor"), NapGovernor__factory.connect);
  }
  /** The rate-limited minter through which the relayer grants NAP (it alone holds the token's MINTER_ROLE). */
  get napMinter(): NapMinter {
    return this.#handle(this.address("NapMinter"), NapMinter__factory.connect);
  }

  vault(id: VaultId): NapVault {
    if (!this.deployment) this.address("USDC");
    const entry = this.deployment?.vaults[id];
    if (!entry) throw new NotConfiguredError(`the deployment file lists no ${id} vault: it is unavailable`);
    return this.#handle(entry.address, NapVault__factory.connect);
  }

  /** The vaults of the deployment, in the API's order (one array for the life of the deployment). */
  vaultList(): readonly VaultAddress[] {
    this.#vaults ??= VAULT_IDS.flatMap((id) => {
      const entry = this.deployment?.vaults[id];
      return entry ? [{ id, address: entry.address }] : [];
    });
    return this.#vaults;
  }
}
