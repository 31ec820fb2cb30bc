import { expect } from "chai";
import { MongoBulkWriteError, MongoNetworkError, MongoServerError, MongoServerSelectionError } from "mongodb";
import { DuplicateKeyError, StoreUnavailableError } from "../../../api/src/errors";
import { guardStoreOutages, isStoreUnreachable } from "../../../api/src/store/mongo/outage";

/** An adapter with a private field, as the MongoDB adapters have. */
class FakeAdapter {
  readonly #answers: unknown[] = [];
  constructor(private readonly failure: () => unknown) {}
  async read(): Promise<string> {
    this.#answers.push("read");
    throw this.failure();
  }
  count(): number {
    return this.#answers.length;
  }
}

describe("store outages: the driver's 'cannot reach the server' errors become one StoreUnavailableError", function () {
  it("a dropped connection, a server selection timeout and a bulk write cut by a dropped connection are the store away; a server's refusal is not", function () {
    const network = new MongoNetworkError("connect ECONNREFUSED 127.0.0.1:1");
    expect(isStoreUnreachable(network)).to.equal(true);
    expect(
      isStoreUnreachable(
        new MongoServerSelectionError("Server selection timed out after 1000 ms", { servers: new Map() } as never),
      ),
    ).to.equal(true);
    expect(isStoreUnreachable(new MongoBulkWriteError(network, {} as never))).to.equal(true);
    expect(isStoreUnreachable(new MongoServerError({ message: "E11000 duplicate key", code: 11000 }))).to.equal(false);
    expect(
      isStoreUnreachable(
        new MongoBulkWriteError({ message: "E11000", code: 11000, writeErrors: [] } as never, {} as never),
      ),
    ).to.equal(false);
    expect(isStoreUnreachable(new DuplicateKeyError("nonce"))).to.equal(false);
  });

  it("a guarded adapter throws StoreUnavailableError (503, Retry-After 2, the driver's error as cause) and passes every other error unchanged", async function () {
    const network = new MongoNetworkError("connect ECONNREFUSED 127.0.0.1:1");
    const away = guardStoreOutages(new FakeAdapter(() => network));
    const thrown = await away.read().then(
      () => null,
      (error: unknown) => error,
    );
    expect(thrown).to.be.instanceOf(StoreUnavailableError);
    expect((thrown as StoreUnavailableError).code).to.equal("UNAVAILABLE");
    expect((thrown as StoreUnavailableError).retryAfterSeconds).to.equal(2);
    expect((thrown as StoreUnavailableError).message).to.equal("the store is unavailable: try again shortly");
    expect((thrown as StoreUnavailableError).cause).to.equal(network);
    // Methods run on the adapter itself: its private fields work through the guard.
    expect(away.count()).to.equal(1);

    const duplicate = new DuplicateKeyError("nonce");
    const refusing = guardStoreOutages(new FakeAdapter(() => duplicate));
    expect(await refusing.read().catch((error: unknown) => error)).to.equal(duplicate);
  });
});
