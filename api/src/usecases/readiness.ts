import type { Health } from "./health";

/**
 * Readiness, apart from liveness (/health answers whenever the process does): whether this instance should get
 * traffic now. A load balancer takes an instance out while it is not ready and puts it back once it is, without
 * restarting it; a shutting-down instance is not ready from its first moment, so that traffic leaves before the
 * server closes.
 */

export interface ReadinessChecks {
  /** False from the start of a shutdown on. */
  serving: boolean;
  store: boolean;
  rpc: boolean;
  /** Absent when the service runs without Redis. */
  redis?: boolean;
  /** Absent when the service runs without a read model; false when halted, unknown or behind by more than the bound. */
  indexer?: boolean;
}

export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessChecks;
}

export interface ReadinessSettings {
  /** Blocks the read model may trail the chain's head by and still be ready. */
  maxLagBlocks: number;
}

/** How long a Redis ping may take before Redis counts as away (the same bound as the store's probe). */
const REDIS_PROBE_TIMEOUT_MS = 500;

export class Readiness {
  #serving = true;
  #redis: (() => Promise<unknown>) | undefined;

  constructor(
    private readonly health: Health,
    private readonly settings: ReadinessSettings,
  ) {}

  /** Adds Redis to the checks (a ping that must answer). */
  watchRedis(ping: () => Promise<unknown>): void {
    this.#redis = ping;
  }

  /** The shutdown has begun: not ready from now on. */
  stopServing(): void {
    this.#serving = false;
  }

  async check(): Promise<ReadinessReport> {
    const [health, redis] = await Promise.all([
      this.health.snapshot(),
      this.#redis ? answersWithin(REDIS_PROBE_TIMEOUT_MS, this.#redis) : undefined,
    ]);
    const indexer = health.indexer;
    const checks: ReadinessChecks = {
      serving: this.#serving,
      store: health.store.connected,
      rpc: health.rpcConnected,
      ...(redis === undefined ? {} : { redis }),
      ...(indexer
        ? {
            indexer:
              indexer.halt === null && indexer.lagBlocks !== null && indexer.lagBlocks <= this.settings.maxLagBlocks,
          }
        : {}),
    };
    return { ready: Object.values(checks).every(Boolean), checks };
  }
}

async function answersWithin(timeoutMs: number, probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      probe().then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
