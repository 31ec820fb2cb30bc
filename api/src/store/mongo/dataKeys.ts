import type { Collection } from "mongodb";
import { DuplicateKeyError } from "../../errors";
import type { DataKeyRecord, DataKeyStore } from "../../usecases/dataKeys/keys";
import type { Scope } from "../../usecases/dataKeys/scopes";
import { isDuplicate } from "./duplicate";

/** Data API keys in MongoDB: `_id` is the key id, a unique index on the hash finds a key by its hash. */

export interface DataKeyDocument {
  _id: string;
  keyHash: string;
  keyPrefix: string;
  owner: string;
  name: string;
  tier: DataKeyRecord["tier"];
  scopes: Scope[];
  issuedBy: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
}

function toRecord(doc: DataKeyDocument): DataKeyRecord {
  const { _id, revokedAt, ...rest } = doc;
  return { keyId: _id, ...rest, ...(revokedAt ? { revokedAt } : {}) };
}

export class MongoDataKeyStore implements DataKeyStore {
  constructor(private readonly collection: Collection<DataKeyDocument>) {}

  async init(): Promise<void> {
    await this.collection.createIndex({ keyHash: 1 }, { unique: true, name: "data_keys_hash" });
    await this.collection.createIndex({ owner: 1, createdAt: -1 }, { name: "data_keys_owner" });
  }

  async insert(record: DataKeyRecord): Promise<void> {
    const { keyId, revokedAt, ...rest } = record;
    try {
      await this.collection.insertOne({ _id: keyId, ...rest, ...(revokedAt ? { revokedAt } : {}) });
    } catch (error) {
      if (isDuplicate(error)) {
        // FerretDB does not say which index refused: look.
        const sameId = await this.collection.findOne({ _id: keyId }, { projection: { _id: 1 } });
        throw new DuplicateKeyError(sameId ? "keyId" : "keyHash");
      }
      throw error;
    }
  }

  async findByHash(keyHash: string): Promise<DataKeyRecord | null> {
    const doc = await this.collection.findOne({ keyHash });
    return doc ? toRecord(doc) : null;
  }

  async findById(keyId: string): Promise<DataKeyRecord | null> {
    const doc = await this.collection.findOne({ _id: keyId });
    return doc ? toRecord(doc) : null;
  }

  async listByOwner(owner: string): Promise<DataKeyRecord[]> {
    const docs = await this.collection.find({ owner }).sort({ createdAt: -1, _id: -1 }).toArray();
    return docs.map(toRecord);
  }

  async revoke(keyId: string, at: Date): Promise<DataKeyRecord | null> {
    // Only the first revocation sets the time; a later one (or a race) leaves it as it is.
    await this.collection.updateOne({ _id: keyId, revokedAt: { $exists: false } }, { $set: { revokedAt: at } });
    return this.findById(keyId);
  }
}
