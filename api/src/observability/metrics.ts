import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The service's Prometheus metrics (docs/operations.md lists them with what to alert on). One registry per
 * service instance, so that several servers in one process (the tests) keep their figures apart. Figures that
 * something else already counts (queue depth, open sockets, indexer lag) are read when Prometheus scrapes, through
 * the `watch*` functions; events are recorded as they happen, through the recorder methods.
 */

/** The doors a request or a socket can belong to; a closed set, so label values stay bounded. */
export type Door = "live" | "data" | "graphql" | "ws";

/** Latency buckets in seconds: cached reads answer in well under a millisecond, writes wait for a block. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class ServiceMetrics {
  readonly registry = new Registry();

  readonly #requests = new Histogram({
    name: "nap_http_request_duration_seconds",
    help: "HTTP requests by door, route template, method and status, and how long they took",
    labelNames: ["door", "route", "method", "status"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly #refusals = new Counter({
    name: "nap_limiter_refusals_total",
    help: "HTTP requests a rate limit or a cap refused (429), by door",
    labelNames: ["door"] as const,
    registers: [this.registry],
  });

  readonly #indexerSteps = new Histogram({
    name: "nap_indexer_step_duration_seconds",
    help: "Indexer steps (one batch read and written, a rewind, or a wait at the head) by result, and their time",
    labelNames: ["result"] as const,
    buckets: STEP_BUCKETS,
    registers: [this.registry],
  });

  readonly #txRetries = new Counter({
    name: "nap_tx_retries_total",
    help: "Transactions broadcast again (the node lost them) or signed again with a new nonce, by reason",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });

  readonly #txFailures = new Counter({
    name: "nap_tx_failures_total",
    help: "Intents this instance drove that ended in an error (refused, reverted, not mined in time), by error code",
    labelNames: ["code"] as const,
    registers: [this.registry],
  });

  readonly #sockets = new Map<Door, () => number>();
  #queueDepth: () => number = () => 0;
  #indexerLag: () => Promise<number | null> = () => Promise.resolve(null);

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "nap_" });
    const sockets = this.#sockets;
    new Gauge({
      name: "nap_open_sockets",
      help: "WebSocket connections open on this instance, by door",
      labelNames: ["door"] as const,
      registers: [this.registry],
      collect() {
        for (const [door, count] of sockets) this.set({ door }, count());
      },
    });
    const queueDepth = () => this.#queueDepth();
    new Gauge({
      name: "nap_tx_queue_depth",
      help: "Intents the transaction engine of this instance is driving now (accepted, not yet mined or failed)",
      registers: [this.registry],
      collect() {
        this.set(queueDepth());
      },
    });
    const lag = () => this.#indexerLag();
    new Gauge({
      name: "nap_indexer_lag_blocks",
      help: "Blocks between the chain's head and the read model's indexed block (-1: unknown)",
      registers: [this.registry],
      async collect() {
        this.set((await lag().catch(() => null)) ?? -1);
      },
    });
  }

  /** One answered HTTP request. */
  request(door: Door, route: string, method: string, status: number, seconds: number): void {
    this.#requests.observe({ door, route, method, status }, seconds);
    if (status === 429) this.#refusals.inc({ door });
  }

  indexerStep(result: string, seconds: number): void {
    this.#indexerSteps.observe({ result }, seconds);
  }

  /** The transaction engine's observer (tx/engine.ts). */
  readonly tx = {
    retried: (reason: string) => this.#txRetries.inc({ reason }),
    failed: (code: string) => this.#txFailures.inc({ code }),
  };

  watchSockets(door: Door, count: () => number): void {
    this.#sockets.set(door, count);
  }

  watchQueueDepth(depth: () => number): void {
    this.#queueDepth = depth;
  }

  watchIndexerLag(lag: () => Promise<number | null>): void {
    this.#indexerLag = lag;
  }

  /** The exposition text and its content type, for GET /metrics. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
