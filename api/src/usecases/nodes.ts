import { randomUUID } from "node:crypto";
import { ConflictError, DuplicateKeyError } from "../errors";
import type { Logger } from "../logger";

/**
 * Nodes of the NAP network: running NAP service instances. Each instance of the API heartbeats its record into the
 * shared store every NODE_HEARTBEAT_INTERVAL_MS; its role says whether it also holds the indexer lease at that beat.
 * A Node Operator key with the `nodes:write` scope may register an external node (one this deployment does not run)
 * through POST /v1/nodes/heartbeat, which it must then call at the same pace.
 *
 * Both are use cases here: this instance's own beat (createNodeHeartbeat) and an external node's (NodeRegistry).
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

/** What an external node reports at each heartbeat. */
export interface ExternalHeartbeat {
  nodeId: string;
  version: string;
  url: string | null;
  /** Absent: the first heartbeat's time, kept by later ones. */
  startedAt?: Date;
}

/** The nodes of the network as clients see and register them. */
export class NodeRegistry {
  constructor(
    private readonly store: NodeStore,
    private readonly clock: () => Date,
  ) {}

  /** Every node, and the time their status is read at. */
  async list(): Promise<{ nodes: NodeRecord[]; now: Date }> {
    const now = this.clock();
    return { nodes: await this.store.list(), now };
  }

  /**
   * Registers or refreshes an external node for `registrant` (the owner of a Node Operator key). A node id another
   * registrant holds is refused (CONFLICT NODE_ID_TAKEN), so that nobody takes over another's node.
   */
  async heartbeat(registrant: string, beat: ExternalHeartbeat): Promise<{ record: NodeRecord; now: Date }> {
    const now = this.clock();
    const previous = (await this.store.list()).find(
      (record) => record.nodeId === beat.nodeId && record.registeredBy === registrant,
    );
    const record: NodeRecord = {
      nodeId: beat.nodeId,
      role: "external",
      version: beat.version,
      url: beat.url,
      startedAt: beat.startedAt ?? previous?.startedAt ?? now,
      lastHeartbeatAt: now,
      registeredBy: registrant,
    };
    try {
      await this.store.heartbeat(record);
    } catch (error) {
      if (error instanceof DuplicateKeyError) {
        throw new ConflictError(
          `node id ${beat.nodeId} is registered by someone else`,
          { node_id: beat.nodeId },
          { reason: "NODE_ID_TAKEN" },
        );
      }
      throw error;
    }
    return { record, now };
  }
}
