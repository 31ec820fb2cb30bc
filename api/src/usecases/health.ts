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
  readonly kind: StoreHealth["kind"];
  health(): Promise<StoreHealth>;
}

export interface ServiceHealth {
  status: "ok" | "degraded";
  version: string;
  chainId: number;
  chainName: string;
  rpcConnected: boolean;
  store: StoreHealth;
  /** Absent when the service runs without a read model. */
  indexer?: IndexerHealth;
}

/** What /health shows of the data API's indexer. */
export interface IndexerHealth {
  role: "writer" | "reader" | "halted";
  indexedBlock: number | null;
  headBlock: number | null;
  lagBlocks: number | null;
  /** Why the indexer stopped (a reorg deeper than its window), or null. */
  halt: string | null;
}

/** How long one answer is reused: under load, health costs no store ping or RPC call per request. */
export const HEALTH_TTL_MS = 1_000;
/** How long before a snapshot expires a request starts the next probe in the background, so that none waits for it. */
const HEALTH_REFRESH_AHEAD_MS = 250;
/**
 * How long the store's probe (and the indexer's, which reads the store) may take: a store that does not answer by
 * then is reported away, so that /health answers `degraded` at once instead of waiting for the driver to give up.
 */
export const STORE_PROBE_TIMEOUT_MS = 500;

export class Health {
  readonly #snapshots = new TtlCache<"health", ServiceHealth>(HEALTH_TTL_MS, {
    refreshAheadMs: HEALTH_REFRESH_AHEAD_MS,
  });
  #indexer: (() => Promise<IndexerHealth>) | undefined;

  constructor(
    private readonly chain: ChainAccess,
    private readonly store: StoreProbe,
  ) {}

  /** Adds the indexer's state to every snapshot (a halted indexer makes the service degraded). */
  watchIndexer(probe: () => Promise<IndexerHealth>): void {
    this.#indexer = probe;
  }

  /** The current health (one object per second, shared by every caller in that second). */
  snapshot(): Promise<ServiceHealth> {
    return this.#snapshots.get("health", this.#probe);
  }

  /** The current snapshot when one is kept and probed (no promise: the hot path answers at once); else undefined. */
  keptSnapshot(): ServiceHealth | undefined {
    return this.#snapshots.peek("health", this.#probe);
  }

  readonly #probe = async (): Promise<ServiceHealth> => {
    const [rpcConnected, store, indexer] = await Promise.all([
      this.chain.isConnected(),
      within(STORE_PROBE_TIMEOUT_MS, this.store.health(), { kind: this.store.kind, connected: false }),
      // The indexer's state is read from the store: while the store is away it is left out, not a failed probe.
      this.#indexer ? within(STORE_PROBE_TIMEOUT_MS, this.#indexer(), undefined) : undefined,
    ]);
    return {
      status: rpcConnected && store.connected && !indexer?.halt ? "ok" : "degraded",
      version: SERVICE_VERSION,
      chainId: this.chain.chainId,
      chainName: this.chain.chainName,
      rpcConnected,
      store,
      ...(indexer ? { indexer } : {}),
    };
  };
}

/** What `probe` answers within `timeoutMs`; `fallback` when it fails or takes longer. */
async function within<T>(timeoutMs: number, probe: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
  });
  try {
    return await Promise.race([probe.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
