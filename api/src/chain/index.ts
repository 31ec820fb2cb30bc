import { JsonRpcProvider, Network, type Provider } from "ethers";
import { VAULT_IDS } from "../domain/model";
import { defaultDeploymentFile, loadDeployment, type Deployment } from "./deployment";
import { TtlCache } from "../ttlCache";
import { VaultReader, type VaultReaderOptions } from "./vaults";

/** Chain access for the API: the provider, the chain identity, the deployment and the readers built from it. */
export interface ChainAccess {
  readonly provider: Provider;
  readonly chainId: number;
  readonly chainName: string;
  /** Null when no deployment file was found (the vault endpoints answer 503). */
  readonly deployment: Deployment | null;
  /** Null without a deployment or without a VaultLens in it. */
  readonly vaults: VaultReader | null;
  /** Answers within `timeoutMs` whether the RPC endpoint serves requests (cached for one second). */
  isConnected(timeoutMs?: number): Promise<boolean>;
}

const CHAIN_NAMES: Record<number, string> = {
  1: "ethereum",
  8453: "base",
  84532: "base-sepolia",
  11155111: "sepolia",
  31337: "hardhat",
};

export function chainNameOf(chainId: number): string {
  return CHAIN_NAMES[chainId] ?? `chain-${chainId}`;
}

export function createChainAccess(
  provider: Provider,
  chainId: number,
  deployment: Deployment | null,
  options: { vaultReader?: VaultReaderOptions } = {},
): ChainAccess {
  const probes = new TtlCache<"rpc", boolean>(1_000);
  const sources = deployment
    ? VAULT_IDS.flatMap((id) => {
        const entry = deployment.vaults[id];
        return entry ? [{ id, address: entry.address }] : [];
      })
    : [];
  return {
    provider,
    chainId,
    chainName: deployment?.network && deployment.network !== "localhost" ? deployment.network : chainNameOf(chainId),
    deployment,
    vaults: deployment?.contracts.VaultLens
      ? new VaultReader(provider, sources, deployment.contracts.VaultLens.address, options.vaultReader)
      : null,
    isConnected(timeoutMs = 2_000) {
      // One probe at a time, its answer reused for a second: health checks under load cost no extra RPC traffic.
      return probes.get(
        "rpc",
        () =>
          new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), timeoutMs);
            provider.getBlockNumber().then(
              () => (clearTimeout(timer), resolve(true)),
              () => (clearTimeout(timer), resolve(false)),
            );
          }),
      );
    },
  };
}

export interface ConnectChainOptions {
  rpcUrl: string;
  chainId?: number;
  deploymentFile?: string;
  warn(message: string): void;
}

/**
 * Connects to RPC_URL. The chain id comes from CHAIN_ID or, when unset, from the RPC endpoint (which must then
 * answer). A missing deployment file is not fatal (logged; vault endpoints answer 503); an invalid one is.
 */
export async function connectChain(options: ConnectChainOptions): Promise<ChainAccess> {
  let chainId = options.chainId;
  if (chainId === undefined) {
    const probe = new JsonRpcProvider(options.rpcUrl);
    try {
      chainId = Number((await probe.getNetwork()).chainId);
    } catch (error) {
      throw new Error(`RPC_URL ${options.rpcUrl} is unreachable and CHAIN_ID is not set: ${String(error)}`, {
        cause: error,
      });
    } finally {
      probe.destroy();
    }
  }
  // No answer cache: ethers would otherwise answer a repeated getTransactionCount from the last 250 ms, and a wallet
  // lane taken again right after its previous transactions would sign with a nonce already used.
  const provider = new JsonRpcProvider(options.rpcUrl, Network.from(chainId), {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  const file = options.deploymentFile ?? defaultDeploymentFile(chainId);
  let deployment: Deployment | null = null;
  try {
    deployment = await loadDeployment(file, chainId);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    options.warn(`deployment file ${file} not found: vault endpoints will answer 503 until it exists`);
  }
  return createChainAccess(provider, chainId, deployment);
}
