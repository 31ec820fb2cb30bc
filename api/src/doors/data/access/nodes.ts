import { randomUUID } from "node:crypto";
import type { Logger } from "../../../logger";

/**
 * Nodes of the NAP network: running NAP service instances. Each instance of the API heartbeats its record into the
 * shared store every NODE_HEARTBEAT_INTERVAL_MS; its role says whether it also holds the indexer lease at that beat.
 * A Node Operator key with the `nodes:write` scope may register an external node (one this deployment does not run)
 * through POST /v1/nodes/heartbeat, which it must then call at the same pace.
 *
 * Status comes from the age of the last heartbeat: up within NODE_UP_WITHIN_MS (three missed beats), stale within
 * NODE_STALE_WITHIN_MS, down after that; a node silent for NODE_FORGET_AFTER_MS leaves the list.
 */

export const NODE_HEARTBEAT_INTERVAL_MS = 15_000;
export const NODE_UP_WITHIN_MS = 45_000;
export const NODE_STALE_WITHIN_MS = 300_000;
export const NODE_FORGET_AFTER_MS = 86_400_000;

export const NODE_ROLES = ["api", "api+indexer", "external"] as const;
export type NodeRole = (typeof NODE_ROLES)[number];
export type NodeStatus = "up" | "stale" | "down";

/** The registrant of this deployment's own instances; external nodes are registered by `operator:<label>`. */
export const SELF_REGISTRANT = "self";

export interface NodeRecord {
  nodeId: string;
  role: NodeRole;
  version: string;
  /** Public base URL of the node, when it serves one. */
  url: string | null;
  startedAt: Date;
  lastHeartbeatAt: Date;
  /** Who may refresh this record: SELF_REGISTRANT or the registering operator's owner label. */
  registeredBy: string;
}

export interface NodeStore {
  /**
   * Creates or replaces the node's record. Throws DuplicateKeyError("nodeId") when a record of that id exists with
   * another `registeredBy`, so that nobody can take over another's node id.
   */
  heartbeat(record: NodeRecord): Promise<void>;
  /** Every node, by node id. */
  list(): Promise<NodeRecord[]>;
  /** Deletes nodes whose last heartbeat is before `before`; returns how many. */
  purgeSilentSince(before: Date): Promise<number>;
}

export function nodeStatus(record: NodeRecord, now: Date): NodeStatus {
  const age = now.getTime() - record.lastHeartbeatAt.getTime();
  if (age <= NODE_UP_WITHIN_MS) return "up";
  if (age <= NODE_STALE_WITHIN_MS) return "stale";
  return "down";
}

export function describeNode(record: NodeRecord, now: Date) {
  return {
    node_id: record.nodeId,
    role: record.role,
    version: record.version,
    url: record.url,
    status: nodeStatus(record, now),
    started_at: record.startedAt.toISOString(),
    last_heartbeat_at: record.lastHeartbeatAt.toISOString(),
    external: record.registeredBy !== SELF_REGISTRANT,
  };
}

export interface NodeHeartbeatOptions {
  store: NodeStore;
  logger: Logger;
  version: string;
  /** Public base URL of this instance (config.publicUrl). */
  url: string | null;
  /** True while this instance holds the indexer lease (absent: never). */
  holdsIndexerLease?: () => boolean;
  clock?: () => Date;
  /** Default: a new UUID per process, so that a restart shows as a new node and the old one goes down. */
  nodeId?: string;
  intervalMs?: number;
}

export interface NodeHeartbeat {
  readonly nodeId: string;
  /** Writes one heartbeat (and forgets long-silent nodes). */
  beat(): Promise<void>;
  /**
   * Beats now (resolving once that beat is written or has failed) and every interval until stop(); a failed beat is
   * logged and retried at the next one.
   */
  start(): Promise<void>;
  stop(): void;
}

export function createNodeHeartbeat(options: NodeHeartbeatOptions): NodeHeartbeat {
  const clock = options.clock ?? (() => new Date());
  const nodeId = options.nodeId ?? randomUUID();
  const startedAt = clock();
  let timer: NodeJS.Timeout | undefined;

  async function beat(): Promise<void> {
    const now = clock();
    await options.store.heartbeat({
      nodeId,
      role: options.holdsIndexerLease?.() ? "api+indexer" : "api",
      version: options.version,
      url: options.url,
      startedAt,
      lastHeartbeatAt: now,
      registeredBy: SELF_REGISTRANT,
    });
    await options.store.purgeSilentSince(new Date(now.getTime() - NODE_FORGET_AFTER_MS));
  }

  const beatLogged = () =>
    beat().catch((error: unknown) => options.logger.warn({ err: error, nodeId }, "node heartbeat failed"));

  return {
    nodeId,
    beat,
    async start() {
      if (timer) return;
      timer = setInterval(() => void beatLogged(), options.intervalMs ?? NODE_HEARTBEAT_INTERVAL_MS);
      timer.unref();
      await beatLogged();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
