import { JsonRpcProvider, Network, type Provider } from "ethers";
import { TtlCache } from "../ttlCache";
import { SystemContracts } from "./contracts";
import { defaultDeploymentFile, loadDeployment, type Deployment } from "./deployment";
import { EventDecoder } from "./events";
import { ChainHead, type ChainHeadOptions } from "./head";
import { httpJsonRpc, providerJsonRpc, type JsonRpc } from "./rpc/jsonRpc";

/** A provider that also takes raw JSON-RPC requests (JsonRpcProvider in the service, Hardhat's provider in tests). */
export type RpcProvider = Provider & { send(method: string, params: unknown[]): Promise<unknown> };

/**
 * Chain access for the service: the provider (ethers, for the typed contracts), the JSON-RPC connection of the
 * indexer and the transaction engine (rpc/), the chain's identity, the deployment and what is built from it (typed
 * contracts, the event decoder) and the one chain head that every read is made at (head.ts states the read rule).
 * Only this folder knows contract addresses and the provider.
 */
export interface ChainAccess {
  readonly provider: RpcProvider;
  /** Where the indexer and the engine send their JSON-RPC actions (rpc/actions.ts). */
  readonly rpc: JsonRpc;
  readonly chainId: number;
  readonly chainName: string;
  /** Null when no deployment file was found (onchain endpoints answer 503). */
  readonly deployment: Deployment | null;
  readonly contracts: SystemContracts;
  readonly events: EventDecoder;
  readonly head: ChainHead;
  /** Answers within `timeoutMs` whether the RPC endpoint serves requests (one probe per second at most). */
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
  provider: RpcProvider,
  chainId: number,
  deployment: Deployment | null,
  options: { head?: ChainHeadOptions; rpc?: JsonRpc } = {},
): ChainAccess {
  const probes = new TtlCache<"rpc", boolean>(1_000);
  const contracts = new SystemContracts(provider, deployment, chainId);
  return {
    provider,
    rpc: options.rpc ?? providerJsonRpc(provider),
    chainId,
    chainName: deployment?.network && deployment.network !== "localhost" ? deployment.network : chainNameOf(chainId),
    deployment,
    contracts,
    events: new EventDecoder(contracts),
    head: new ChainHead(provider, options.head),
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

/**
 * The ethers provider of the service (the typed contracts' reads), with public options only. ethers answers an
 * identical request from a cache for 250 ms by default, so right after a transaction is mined the nonce and the block
 * number would read as before it: that cache is off (`cacheTimeout: -1`); the chain head (head.ts) is the one place
 * that reuses an answer, under the read rule. ethers also holds every request 10 ms by default to gather a batch;
 * calls made in the same turn of the event loop still share one batch with no hold (`batchStallTime: 0`).
 */
export function jsonRpcProvider(rpcUrl: string, chainId: number): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, Network.from(chainId), {
    staticNetwork: true,
    cacheTimeout: -1,
    batchStallTime: 0,
  });
}

/** The provider of `rpcUrl` (above) and the JSON-RPC connection of the indexer and the engine to the same node. */
export function httpChainClients(rpcUrl: string, chainId: number): { provider: JsonRpcProvider; rpc: JsonRpc } {
  const provider = jsonRpcProvider(rpcUrl, chainId);
  return { provider, rpc: httpJsonRpc(rpcUrl, provider) };
}

export interface ConnectChainOptions {
  rpcUrl: string;
  chainId?: number;
  deploymentFile?: string;
  head?: ChainHeadOptions;
  warn(message: string): void;
}

/**
 * Connects to RPC_URL. The chain id comes from CHAIN_ID or, when unset, from the RPC endpoint (which must then
 * answer). A missing deployment file is not fatal (logged; onchain endpoints answer 503); an invalid one is.
 */
export async function connectChain(options: ConnectChainOptions): Promise<ChainAccess> {
  let chainId = options.chainId;
  if (chainId === undefined) {
    const probe = new JsonRpcProvider(options.rpcUrl, undefined, { cacheTimeout: -1 });
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
  const { provider, rpc } = httpChainClients(options.rpcUrl, chainId);
  const file = options.deploymentFile ?? defaultDeploymentFile(chainId);
  let deployment: Deployment | null = null;
  try {
    deployment = await loadDeployment(file, chainId);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    options.warn(`deployment file ${file} not found: onchain endpoints will answer 503 until it exists`);
  }
  return createChainAccess(provider, chainId, deployment, { head: options.head, rpc });
}
