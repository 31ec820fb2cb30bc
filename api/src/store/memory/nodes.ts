import { DuplicateKeyError } from "../../errors";
import type { NodeRecord, NodeStore } from "../../usecases/nodes";

function copyNode(record: NodeRecord): NodeRecord {
  return { ...record, startedAt: new Date(record.startedAt), lastHeartbeatAt: new Date(record.lastHeartbeatAt) };
}

export class MemoryNodeStore implements NodeStore {
  private readonly records = new Map<string, NodeRecord>();

  async heartbeat(record: NodeRecord): Promise<void> {
    const existing = this.records.get(record.nodeId);
    if (existing && existing.registeredBy !== record.registeredBy) throw new DuplicateKeyError("nodeId");
    this.records.set(record.nodeId, copyNode(record));
  }

  async list(): Promise<NodeRecord[]> {
    return [...this.records.values()].sort((a, b) => a.nodeId.localeCompare(b.nodeId)).map(copyNode);
  }

  async purgeSilentSince(before: Date): Promise<number> {
    let removed = 0;
    for (const [nodeId, record] of this.records) {
      if (record.lastHeartbeatAt.getTime() < before.getTime()) {
        this.records.delete(nodeId);
        removed += 1;
      }
    }
    return removed;
  }
}
