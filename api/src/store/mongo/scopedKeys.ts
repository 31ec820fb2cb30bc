import type { Collection } from "mongodb";
import { fitsDailyLimit, type KeyOperation } from "../../domain/keyScopes";
import { DuplicateKeyError } from "../../errors";
import type {
  ReservationResult,
  ScopedKeyRecord,
  ScopedKeyStore,
  UsdcReservation,
} from "../../usecases/custody/scopedKeys";
import { isDuplicate } from "./duplicate";

/**
 * Scoped API keys in MongoDB: `scoped_keys` (`_id` the key id, a unique index on the hash) and the daily USDC ledger
 * `scoped_key_spend`.
 *
 * The ledger is append-only, for the reason store/mongo/index.ts gives (a conditional update is not atomic on
 * FerretDB v1; an insert against a unique index is, on both servers): a key's reservations of one day are slots
 * 0, 1, 2, ... (`_id` `${keyId}/${day}/${seq}`), each holding the day's running total. A reservation reads the last
 * slot, checks `total + amount <= limit` and inserts the next slot; of two racing for one slot, one insert wins and
 * the other reads again. So every total is its predecessor's plus its own amount, and none exceeds the limit. A unique
 * index on the claim (`${keyId}/${day}/${claim}`) keeps one request from holding two slots.
 */

export interface ScopedKeyDocument {
  _id: string;
  agentId: string;
  keyHash: string;
  keyPrefix: string;
  label: string | null;
  readOnly: boolean;
  operations: KeyOperation[];
  /** Micro-USDC as a decimal string; null: no daily limit. */
  usdcPerDay: string | null;
  issuedBy: ScopedKeyRecord["issuedBy"];
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface SpendSlotDocument {
  _id: string;
  keyId: string;
  day: string;
  seq: number;
  claimKey: string;
  amount: string;
  /** The day's total up to and including this slot. */
  total: string;
  at: Date;
}

function toRecord(doc: ScopedKeyDocument): ScopedKeyRecord {
  return {
    keyId: doc._id,
    agentId: doc.agentId,
    keyHash: doc.keyHash,
    keyPrefix: doc.keyPrefix,
    label: doc.label,
    scope: {
      readOnly: doc.readOnly,
      operations: doc.operations,
      usdcPerDay: doc.usdcPerDay === null ? null : BigInt(doc.usdcPerDay),
    },
    issuedBy: doc.issuedBy,
    createdAt: doc.createdAt,
    expiresAt: doc.expiresAt,
    lastUsedAt: doc.lastUsedAt,
    revokedAt: doc.revokedAt,
  };
}

export class MongoScopedKeyStore implements ScopedKeyStore {
  constructor(
    private readonly keys: Collection<ScopedKeyDocument>,
    private readonly spend: Collection<SpendSlotDocument>,
  ) {}

  async init(): Promise<void> {
    await this.keys.createIndex({ keyHash: 1 }, { unique: true, name: "scoped_keys_hash" });
    await this.keys.createIndex({ agentId: 1, createdAt: -1 }, { name: "scoped_keys_agent" });
    await this.spend.createIndex({ keyId: 1, day: 1, seq: -1 }, { name: "scoped_key_spend_day" });
    await this.spend.createIndex({ claimKey: 1 }, { unique: true, name: "scoped_key_spend_claim" });
  }

  async insert(record: ScopedKeyRecord): Promise<void> {
    const { scope, keyId, ...rest } = record;
    try {
      await this.keys.insertOne({
        _id: keyId,
        ...rest,
        readOnly: scope.readOnly,
        operations: [...scope.operations],
        usdcPerDay: scope.usdcPerDay === null ? null : scope.usdcPerDay.toString(),
      });
    } catch (error) {
      if (isDuplicate(error)) {
        // FerretDB does not say which index refused: look.
        const sameId = await this.keys.findOne({ _id: keyId }, { projection: { _id: 1 } });
        throw new DuplicateKeyError(sameId ? "keyId" : "keyHash");
      }
      throw error;
    }
  }

  async findByHash(keyHash: string): Promise<ScopedKeyRecord | null> {
    const doc = await this.keys.findOne({ keyHash });
    return doc ? toRecord(doc) : null;
  }

  async findById(keyId: string): Promise<ScopedKeyRecord | null> {
    const doc = await this.keys.findOne({ _id: keyId });
    return doc ? toRecord(doc) : null;
  }

  async listByAgent(agentId: string): Promise<ScopedKeyRecord[]> {
    const docs = await this.keys.find({ agentId }).sort({ createdAt: -1, _id: -1 }).toArray();
    return docs.map(toRecord);
  }

  async revoke(keyId: string, at: Date): Promise<ScopedKeyRecord | null> {
    // Only the first revocation sets the time; a later one (or a race) leaves it as it is.
    await this.keys.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: at } });
    return this.findById(keyId);
  }

  async touch(keyId: string, at: Date): Promise<void> {
    await this.keys.updateOne(
      { _id: keyId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: at } }] },
      { $set: { lastUsedAt: at } },
    );
  }

  async reserveUsdc(reservation: UsdcReservation): Promise<ReservationResult> {
    const { keyId, day, amount, limit } = reservation;
    const claimKey = `${keyId}/${day}/${reservation.claim}`;
    for (;;) {
      const last = await this.#lastSlot(keyId, day);
      const spent = last ? BigInt(last.total) : 0n;
      if (await this.spend.findOne({ claimKey }, { projection: { _id: 1 } })) return { reserved: true, spent };
      if (!fitsDailyLimit(spent, amount, limit)) return { reserved: false, spent };
      const seq = last ? last.seq + 1 : 0;
      const total = spent + amount;
      try {
        await this.spend.insertOne({
          _id: `${keyId}/${day}/${seq}`,
          keyId,
          day,
          seq,
          claimKey,
          amount: amount.toString(),
          total: total.toString(),
          at: new Date(),
        });
        return { reserved: true, spent: total };
      } catch (error) {
        // Another reservation took this slot, or this claim's: read again.
        if (!isDuplicate(error)) throw error;
      }
    }
  }

  async spentOn(keyId: string, day: string): Promise<bigint> {
    const last = await this.#lastSlot(keyId, day);
    return last ? BigInt(last.total) : 0n;
  }

  #lastSlot(keyId: string, day: string): Promise<SpendSlotDocument | null> {
    return this.spend.find({ keyId, day }).sort({ seq: -1 }).limit(1).next();
  }
}
