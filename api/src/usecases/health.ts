import type { ChainAccess } from "../chain";
import { TtlCache } from "../ttlCache";
import { SERVICE_VERSION } from "../version";

/** Service health: the chain's RPC endpoint and the store, probed at most once per second. */

export interface StoreHealth {
  kind: "mongodb" | "memory";
  connected: boolean;
}

/** What the health check asks of the store. */
export interface StoreProbe {
  health(): Promise<StoreHealth>;
}

export interface ServiceHealth {
  status: "ok" | "degraded";
  version: string;
  chainId: number;
  chainName: string;
  rpcConnected: boolean;
  store: StoreHealth;
}

/** How long one answer is reused: under load, health costs no store ping or RPC call per request. */
export const HEALTH_TTL_MS = 1_000;

export class Health {
  readonly #snapshots = new TtlCache<"health", ServiceHealth>(HEALTH_TTL_MS);

  constructor(
    private readonly chain: ChainAccess,
    private readonly store: StoreProbe,
  ) {}

  /** The current health (one object per second, shared by every caller in that second). */
  snapshot(): Promise<ServiceHealth> {
    return this.#snapshots.get("health", async () => {
      const [rpcConnected, store] = await Promise.all([this.chain.isConnected(), this.store.health()]);
      return {
        status: rpcConnected && store.connected ? "ok" : "degraded",
        version: SERVICE_VERSION,
        chainId: this.chain.chainId,
        chainName: this.chain.chainName,
        rpcConnected,
        store,
      };
    });
  }
}
