import type { Collection } from "mongodb";
import { DuplicateKeyError } from "../../errors";
import type { NonceRecord, NonceStore } from "../../usecases/registration";
import { isDuplicate } from "./duplicate";

/** Sign-in nonces in MongoDB: consumed by inserting a claim (store/mongo/index.ts). */

export interface NonceDocument {
  _id: string;
  walletAddress: string;
  walletKey: string;
  issuedAt: Date;
  expiresAt: Date;
  consumedAt?: Date;
}

export interface NonceClaimDocument {
  _id: string;
  walletKey: string;
  consumedAt: Date;
}

function toNonceRecord(doc: NonceDocument): NonceRecord {
  return {
    nonce: doc._id,
    walletAddress: doc.walletAddress,
    issuedAt: doc.issuedAt,
    expiresAt: doc.expiresAt,
    ...(doc.consumedAt ? { consumedAt: doc.consumedAt } : {}),
  };
}

export class MongoNonceStore implements NonceStore {
  constructor(
    private readonly collection: Collection<NonceDocument>,
    private readonly claims: Collection<NonceClaimDocument>,
  ) {}

  async init(): Promise<void> {
    // Expiry is enforced by `consume`; this index only lets purgeExpired find old nonces.
    await this.collection.createIndex({ expiresAt: 1 }, { name: "nonces_expiry" });
  }

  async insert(record: NonceRecord): Promise<void> {
    try {
      await this.collection.insertOne({
        _id: record.nonce,
        walletAddress: record.walletAddress,
        walletKey: record.walletAddress.toLowerCase(),
        issuedAt: record.issuedAt,
        expiresAt: record.expiresAt,
      });
    } catch (error) {
      if (isDuplicate(error)) throw new DuplicateKeyError("nonce");
      throw error;
    }
  }

  async find(nonce: string): Promise<NonceRecord | null> {
    const doc = await this.collection.findOne({ _id: nonce });
    if (!doc) return null;
    const claim = await this.claims.findOne({ _id: nonce });
    return toNonceRecord(claim ? { ...doc, consumedAt: claim.consumedAt } : doc);
  }

  async consume(nonce: string, walletAddress: string, now: Date): Promise<NonceRecord | null> {
    const doc = await this.collection.findOne({ _id: nonce });
    if (!doc || doc.walletKey !== walletAddress.toLowerCase() || doc.expiresAt.getTime() <= now.getTime()) return null;
    try {
      // The insert of the claim is the atomic step: the unique _id lets exactly one caller through.
      await this.claims.insertOne({ _id: nonce, walletKey: doc.walletKey, consumedAt: now });
    } catch (error) {
      if (isDuplicate(error)) return null;
      throw error;
    }
    // The claim is the record of consumption (find reads it); the nonce document itself is not written again.
    return toNonceRecord(doc);
  }

  async purgeExpired(before: Date): Promise<number> {
    const expired = await this.collection.find({ expiresAt: { $lt: before } }, { projection: { _id: 1 } }).toArray();
    if (expired.length === 0) return 0;
    const ids = expired.map((doc) => doc._id);
    const result = await this.collection.deleteMany({ _id: { $in: ids } });
    await this.claims.deleteMany({ _id: { $in: ids } });
    return result.deletedCount;
  }
}
