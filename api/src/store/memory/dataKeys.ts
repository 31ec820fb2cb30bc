import { DuplicateKeyError } from "../../errors";
import type { DataKeyRecord, DataKeyStore } from "../../usecases/dataKeys/keys";

function copyKey(record: DataKeyRecord): DataKeyRecord {
  return {
    ...record,
    scopes: [...record.scopes],
    createdAt: new Date(record.createdAt),
    expiresAt: new Date(record.expiresAt),
    ...(record.revokedAt ? { revokedAt: new Date(record.revokedAt) } : {}),
  };
}

export class MemoryDataKeyStore implements DataKeyStore {
  private readonly byId = new Map<string, DataKeyRecord>();
  private readonly idByHash = new Map<string, string>();

  async insert(record: DataKeyRecord): Promise<void> {
    if (this.byId.has(record.keyId)) throw new DuplicateKeyError("keyId");
    if (this.idByHash.has(record.keyHash)) throw new DuplicateKeyError("keyHash");
    this.byId.set(record.keyId, copyKey(record));
    this.idByHash.set(record.keyHash, record.keyId);
  }

  async findByHash(keyHash: string): Promise<DataKeyRecord | null> {
    const id = this.idByHash.get(keyHash);
    return id === undefined ? null : this.findById(id);
  }

  async findById(keyId: string): Promise<DataKeyRecord | null> {
    const record = this.byId.get(keyId);
    return record ? copyKey(record) : null;
  }

  async listByOwner(owner: string): Promise<DataKeyRecord[]> {
    return [...this.byId.values()]
      .filter((record) => record.owner === owner)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.keyId.localeCompare(a.keyId))
      .map(copyKey);
  }

  async revoke(keyId: string, at: Date): Promise<DataKeyRecord | null> {
    const record = this.byId.get(keyId);
    if (!record) return null;
    record.revokedAt ??= new Date(at);
    return copyKey(record);
  }
}
