import { MongoServerError, type Collection, type Db } from "mongodb";
import { IDEMPOTENCY_TTL_MS, type IdempotencyStore, type StoredAnswer } from "../../usecases/idempotency";
import { isDuplicate } from "./duplicate";

/**
 * Idempotent answers in the collection `idempotent_responses`. A TTL index removes answers a day old where the server
 * has TTL indexes; FerretDB v1 refuses the option (NotImplemented), so there a plain index on `createdAt` serves
 * `purgeExpired`, which the server runs periodically. Either way `get` checks the age itself and never returns an
 * expired answer. The body is kept as JSON text so that no field name is rewritten by the server.
 */

interface AnswerDocument {
  _id: string;
  fingerprint: string;
  body: string;
  createdAt: Date;
}

export const IDEMPOTENCY_COLLECTION = "idempotent_responses";
export const TTL_INDEX = "idempotency_ttl";
const PLAIN_INDEX = "idempotency_by_created";
/** MongoDB's error codes: NotImplemented (FerretDB without TTL), IndexOptionsConflict, IndexKeySpecsConflict. */
const NOT_IMPLEMENTED = 238;
const INDEX_CONFLICTS = [85, 86];

function codeOf(error: unknown): number | undefined {
  return error instanceof MongoServerError ? Number(error.code) : undefined;
}

export class MongoIdempotencyStore implements IdempotencyStore {
  readonly #collection: Collection<AnswerDocument>;

  constructor(db: Db) {
    this.#collection = db.collection<AnswerDocument>(IDEMPOTENCY_COLLECTION);
  }

  async init(): Promise<void> {
    const ttl = { name: TTL_INDEX, expireAfterSeconds: IDEMPOTENCY_TTL_MS / 1000 };
    try {
      await this.#collection.createIndex({ createdAt: 1 }, ttl);
    } catch (error) {
      const code = codeOf(error);
      if (code === NOT_IMPLEMENTED) {
        await this.#collection.createIndex({ createdAt: 1 }, { name: PLAIN_INDEX });
      } else if (code !== undefined && INDEX_CONFLICTS.includes(code)) {
        // An older index on the same key without the TTL option: replace it.
        for (const index of await this.#collection.listIndexes().toArray()) {
          if (index.name !== TTL_INDEX && (index.key as Record<string, number>).createdAt === 1) {
            await this.#collection.dropIndex(index.name as string);
          }
        }
        await this.#collection.createIndex({ createdAt: 1 }, ttl);
      } else {
        throw error;
      }
    }
  }

  async get(id: string, now: Date = new Date()): Promise<StoredAnswer | null> {
    const doc = await this.#collection.findOne({ _id: id });
    if (!doc || now.getTime() - doc.createdAt.getTime() >= IDEMPOTENCY_TTL_MS) return null;
    return { fingerprint: doc.fingerprint, body: JSON.parse(doc.body), createdAt: doc.createdAt };
  }

  async put(id: string, answer: StoredAnswer): Promise<void> {
    const doc = {
      fingerprint: answer.fingerprint,
      body: JSON.stringify(answer.body),
      createdAt: answer.createdAt,
    };
    try {
      await this.#collection.insertOne({ _id: id, ...doc });
    } catch (error) {
      if (!isDuplicate(error)) throw error;
      // An answer the TTL index has not removed yet, but expired: the new one takes its place.
      await this.#collection.updateOne(
        { _id: id, createdAt: { $lte: new Date(Date.now() - IDEMPOTENCY_TTL_MS) } },
        { $set: doc },
      );
    }
  }

  async purgeExpired(now: Date = new Date()): Promise<number> {
    const result = await this.#collection.deleteMany({
      createdAt: { $lt: new Date(now.getTime() - IDEMPOTENCY_TTL_MS) },
    });
    return result.deletedCount;
  }
}
