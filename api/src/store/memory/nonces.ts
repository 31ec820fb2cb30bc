import { DuplicateKeyError } from "../../errors";
import type { NonceRecord, NonceStore } from "../../usecases/registration";

function copyNonce(record: NonceRecord): NonceRecord {
  return {
    ...record,
    issuedAt: new Date(record.issuedAt),
    expiresAt: new Date(record.expiresAt),
    ...(record.consumedAt ? { consumedAt: new Date(record.consumedAt) } : {}),
  };
}

export class MemoryNonceStore implements NonceStore {
  private readonly records = new Map<string, NonceRecord>();

  async insert(record: NonceRecord): Promise<void> {
    if (this.records.has(record.nonce)) throw new DuplicateKeyError("nonce");
    this.records.set(record.nonce, copyNonce(record));
  }

  async find(nonce: string): Promise<NonceRecord | null> {
    const record = this.records.get(nonce);
    return record ? copyNonce(record) : null;
  }

  async consume(nonce: string, walletAddress: string, now: Date): Promise<NonceRecord | null> {
    const record = this.records.get(nonce);
    if (!record || record.consumedAt !== undefined) return null;
    if (record.walletAddress.toLowerCase() !== walletAddress.toLowerCase()) return null;
    if (record.expiresAt.getTime() <= now.getTime()) return null;
    const before = copyNonce(record);
    record.consumedAt = new Date(now);
    return before;
  }

  async purgeExpired(before: Date): Promise<number> {
    let removed = 0;
    for (const [nonce, record] of this.records) {
      if (record.expiresAt.getTime() < before.getTime()) {
        this.records.delete(nonce);
        removed += 1;
      }
    }
    return removed;
  }
}
