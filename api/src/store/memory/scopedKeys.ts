import { DuplicateKeyError } from "../../errors";
import { fitsDailyLimit } from "../../domain/keyScopes";
import type {
  ReservationResult,
  ScopedKeyRecord,
  ScopedKeyStore,
  UsdcReservation,
} from "../../usecases/custody/scopedKeys";

function copyKey(record: ScopedKeyRecord): ScopedKeyRecord {
  const date = (value: Date | null) => (value ? new Date(value) : null);
  return {
    ...record,
    scope: { ...record.scope, operations: [...record.scope.operations] },
    createdAt: new Date(record.createdAt),
    expiresAt: new Date(record.expiresAt),
    lastUsedAt: date(record.lastUsedAt),
    revokedAt: date(record.revokedAt),
  };
}

/** What a key spent on one day, and the claims counted in it. */
interface DaySpend {
  spent: bigint;
  claims: Set<string>;
}

export class MemoryScopedKeyStore implements ScopedKeyStore {
  private readonly byId = new Map<string, ScopedKeyRecord>();
  private readonly idByHash = new Map<string, string>();
  /** `${keyId}\u0000${day}` -> the day's spend. */
  private readonly spend = new Map<string, DaySpend>();

  async insert(record: ScopedKeyRecord): Promise<void> {
    if (this.byId.has(record.keyId)) throw new DuplicateKeyError("keyId");
    if (this.idByHash.has(record.keyHash)) throw new DuplicateKeyError("keyHash");
    this.byId.set(record.keyId, copyKey(record));
    this.idByHash.set(record.keyHash, record.keyId);
  }

  async findByHash(keyHash: string): Promise<ScopedKeyRecord | null> {
    const id = this.idByHash.get(keyHash);
    return id === undefined ? null : this.findById(id);
  }

  async findById(keyId: string): Promise<ScopedKeyRecord | null> {
    const record = this.byId.get(keyId);
    return record ? copyKey(record) : null;
  }

  async listByAgent(agentId: string): Promise<ScopedKeyRecord[]> {
    return [...this.byId.values()]
      .filter((record) => record.agentId === agentId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.keyId.localeCompare(a.keyId))
      .map(copyKey);
  }

  async revoke(keyId: string, at: Date): Promise<ScopedKeyRecord | null> {
    const record = this.byId.get(keyId);
    if (!record) return null;
    record.revokedAt ??= new Date(at);
    return copyKey(record);
  }

  async touch(keyId: string, at: Date): Promise<void> {
    const record = this.byId.get(keyId);
    if (record && (record.lastUsedAt === null || record.lastUsedAt < at)) record.lastUsedAt = new Date(at);
  }

  // No await between the read and the write: one reservation at a time, as the MongoDB ledger's unique slots make it.
  async reserveUsdc(reservation: UsdcReservation): Promise<ReservationResult> {
    const slot = `${reservation.keyId}\u0000${reservation.day}`;
    const day = this.spend.get(slot) ?? { spent: 0n, claims: new Set<string>() };
    if (day.claims.has(reservation.claim)) return { reserved: true, spent: day.spent };
    if (!fitsDailyLimit(day.spent, reservation.amount, reservation.limit)) return { reserved: false, spent: day.spent };
    day.spent += reservation.amount;
    day.claims.add(reservation.claim);
    this.spend.set(slot, day);
    return { reserved: true, spent: day.spent };
  }

  async spentOn(keyId: string, day: string): Promise<bigint> {
    return this.spend.get(`${keyId}\u0000${day}`)?.spent ?? 0n;
  }
}
