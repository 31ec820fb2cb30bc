import { expect } from "chai";
import { MongoServerError, type Db } from "mongodb";
import { MemoryIdempotencyStore } from "../../../api/src/store/memory/idempotency";
import { IDEMPOTENCY_COLLECTION, MongoIdempotencyStore, TTL_INDEX } from "../../../api/src/store/mongo/idempotency";
import type { MongoStore } from "../../../api/src/store/mongo";
import type { IdempotencyStore } from "../../../api/src/usecases/idempotency";
import { dropMongoStore, freshMongoStore } from "../helpers/mongo";

const DAY_MS = 24 * 3600 * 1000;

function idempotencyConformance(
  name: string,
  open: () => Promise<{ store: IdempotencyStore; close(): Promise<void> }>,
) {
  describe(`idempotent answers: ${name}`, function () {
    let store: IdempotencyStore;
    let close: () => Promise<void>;

    beforeEach(async function () {
      ({ store, close } = await open());
      await store.init();
    });

    afterEach(async function () {
      await close();
    });

    it("keeps the first answer of a key and returns it while younger than 24 h", async function () {
      const createdAt = new Date(Date.now() - DAY_MS + 60_000);
      await store.put("k1", { fingerprint: "f1", body: { a: 1 }, createdAt });
      await store.put("k1", { fingerprint: "f2", body: { a: 2 }, createdAt: new Date() });
      expect(await store.get("k1")).to.deep.equal({ fingerprint: "f1", body: { a: 1 }, createdAt });
    });

    it("never returns an answer older than 24 h, whether or not the database has removed it yet", async function () {
      await store.put("old", { fingerprint: "f", body: { a: 1 }, createdAt: new Date(Date.now() - DAY_MS - 1) });
      expect(await store.get("old")).to.equal(null);
      // A new answer takes the expired one's place.
      const createdAt = new Date();
      await store.put("old", { fingerprint: "g", body: { b: 2 }, createdAt });
      expect(await store.get("old")).to.deep.equal({ fingerprint: "g", body: { b: 2 }, createdAt });
    });

    it("purges the answers older than 24 h and keeps the others", async function () {
      const now = new Date();
      await store.put("expired", { fingerprint: "f", body: 1, createdAt: new Date(now.getTime() - DAY_MS - 1) });
      await store.put("fresh", { fingerprint: "f", body: 2, createdAt: new Date(now.getTime() - DAY_MS + 1000) });
      expect(await store.purgeExpired(now)).to.equal(1);
      expect(await store.get("fresh", now)).to.not.equal(null);
      expect(await store.purgeExpired(now)).to.equal(0);
    });
  });
}

/** A Db whose one collection records createIndex calls, and refuses TTL indexes the way FerretDB v1 does. */
function recordingDb(refuseTtl: boolean) {
  const calls: { key: unknown; options: Record<string, unknown> }[] = [];
  const collection = {
    async createIndex(key: unknown, options: Record<string, unknown>) {
      calls.push({ key, options });
      if (refuseTtl && options.expireAfterSeconds !== undefined) {
        throw new MongoServerError({ code: 238, codeName: "NotImplemented", errmsg: "not implemented yet" });
      }
      return String(options.name);
    },
  };
  const db = { collection: (name: string) => (name === IDEMPOTENCY_COLLECTION ? collection : null) };
  return { db: db as unknown as Db, calls };
}

describe("Idempotent answer stores", function () {
  idempotencyConformance("memory", async () => ({ store: new MemoryIdempotencyStore(), close: async () => undefined }));

  let mongo: MongoStore;
  idempotencyConformance("MongoDB", async () => {
    mongo = await freshMongoStore("idempotency");
    return { store: new MongoIdempotencyStore(mongo.db), close: () => dropMongoStore(mongo) };
  });

  it("gives the MongoDB collection a TTL index of 24 h on createdAt", async function () {
    const { db, calls } = recordingDb(false);
    await new MongoIdempotencyStore(db).init();
    expect(calls).to.deep.equal([{ key: { createdAt: 1 }, options: { name: TTL_INDEX, expireAfterSeconds: 86_400 } }]);
  });

  it("falls back to a plain createdAt index where the server has no TTL indexes (FerretDB v1)", async function () {
    const { db, calls } = recordingDb(true);
    await new MongoIdempotencyStore(db).init();
    expect(calls.map((call) => call.options)).to.deep.equal([
      { name: TTL_INDEX, expireAfterSeconds: 86_400 },
      { name: "idempotency_by_created" },
    ]);
  });
});
