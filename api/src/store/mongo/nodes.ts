import type { Collection } from "mongodb";
import { DuplicateKeyError } from "../../errors";
import type { NodeRecord, NodeRole, NodeStore } from "../../usecases/nodes";
import { isDuplicate } from "./duplicate";

/**
 * Network nodes in MongoDB. A heartbeat is an upsert filtered by node id and registrant: when the id exists with
 * another registrant, the upsert tries to insert a second document with the same `_id` and the unique `_id` refuses
 * it, on MongoDB and FerretDB alike, so a node id cannot be taken over.
 */

export interface NodeDocument {
  _id: string;
  role: NodeRole;
  version: string;
  url: string | null;
  startedAt: Date;
  lastHeartbeatAt: Date;
  registeredBy: string;
}

function toRecord(doc: NodeDocument): NodeRecord {
  const { _id, ...rest } = doc;
  return { nodeId: _id, ...rest };
}

export class MongoNodeStore implements NodeStore {
  constructor(private readonly collection: Collection<NodeDocument>) {}

  async init(): Promise<void> {
    await this.collection.createIndex({ lastHeartbeatAt: 1 }, { name: "nodes_heartbeat" });
  }

  async heartbeat(record: NodeRecord): Promise<void> {
    const { nodeId, registeredBy, ...fields } = record;
    try {
      await this.collection.updateOne({ _id: nodeId, registeredBy }, { $set: fields }, { upsert: true });
    } catch (error) {
      if (isDuplicate(error)) throw new DuplicateKeyError("nodeId");
      throw error;
    }
  }

  async list(): Promise<NodeRecord[]> {
    return (await this.collection.find({}).sort({ _id: 1 }).toArray()).map(toRecord);
  }

  async purgeSilentSince(before: Date): Promise<number> {
    return (await this.collection.deleteMany({ lastHeartbeatAt: { $lt: before } })).deletedCount;
  }
}
