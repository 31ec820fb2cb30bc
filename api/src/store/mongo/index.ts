import { MongoClient, type Db } from "mongodb";
import type { Stores } from "../stores";
import type { StoreHealth } from "../../usecases/health";
import {
  MongoAgentStore,
  type AgentDocument,
  type AgentPointerDocument,
  type DepositDocument,
  type StrategyFactDocument,
} from "./agents";
import { MongoCounterStore, type SequenceClaimDocument } from "./counters";
import { MongoDataKeyStore, type DataKeyDocument } from "./dataKeys";
import { MongoIdempotencyStore } from "./idempotency";
import { MongoNodeStore, type NodeDocument } from "./nodes";
import { MongoNonceStore, type NonceClaimDocument, type NonceDocument } from "./nonces";
import { guardStoreOutages, STORE_OUTAGE_SETTINGS } from "./outage";
import { MongoReadModelStore } from "./readModel";
import { MongoScopedKeyStore, type ScopedKeyDocument, type SpendSlotDocument } from "./scopedKeys";
import { MongoTxJournal } from "./txJournal";

/**
 * MongoDB adapter, the store of record. Written for the portable subset that FerretDB v1 also serves: no
 * transactions, no change streams, no `$cond` in `$group`, expiry checked with the caller's clock.
 *
 * Atomicity. MongoDB applies findOneAndUpdate and $inc atomically, but FerretDB v1 (SQLite handler) does not: our
 * conformance suite saw 4 of 100 concurrent conditional updates of one nonce succeed and $inc lose updates. The one
 * primitive that is atomic on both servers is an insert against a unique index. So everything that guards security
 * or identity is built on inserts:
 * - a nonce is consumed by inserting its claim document (`nonce_claims`, _id = nonce): one insert wins;
 * - sequence numbers (agent wallet indexes) are claimed by inserting `${name}:${n}` into `sequence_claims`.
 * Activity counters (statistics, not security) use $inc, which is atomic on MongoDB; on FerretDB updates of one
 * agent are additionally serialized inside this process (a KeyedQueue), which suffices for a single instance.
 * The transaction journal (txJournal.ts) explains its own, append-only, layout.
 *
 * Outages (outage.ts): every adapter answers "the store is unavailable" (503 at the doors) within about a second
 * of the server going away, and serves again as soon as it is back.
 */

export interface MongoStoreOptions {
  uri: string;
  dbName: string;
}

export class MongoStore implements Stores {
  readonly kind = "mongodb" as const;
  readonly agents: MongoAgentStore;
  readonly nonces: MongoNonceStore;
  readonly counters: MongoCounterStore;
  readonly journal: MongoTxJournal;
  readonly idempotency: MongoIdempotencyStore;
  readonly dataKeys: MongoDataKeyStore;
  readonly scopedKeys: MongoScopedKeyStore;
  readonly nodes: MongoNodeStore;
  readonly readModel: MongoReadModelStore;

  constructor(
    readonly client: MongoClient,
    readonly db: Db,
  ) {
    this.agents = guardStoreOutages(
      new MongoAgentStore(
        db.collection<AgentDocument>("agents"),
        db.collection<AgentPointerDocument>("agent_wallets"),
        db.collection<AgentPointerDocument>("agent_keys"),
        db.collection<StrategyFactDocument>("agent_strategy_facts"),
        db.collection<DepositDocument>("agent_deposits"),
      ),
    );
    this.nonces = guardStoreOutages(
      new MongoNonceStore(db.collection<NonceDocument>("nonces"), db.collection<NonceClaimDocument>("nonce_claims")),
    );
    this.counters = guardStoreOutages(new MongoCounterStore(db.collection<SequenceClaimDocument>("sequence_claims")));
    this.journal = guardStoreOutages(new MongoTxJournal(db));
    this.idempotency = guardStoreOutages(new MongoIdempotencyStore(db));
    this.dataKeys = guardStoreOutages(new MongoDataKeyStore(db.collection<DataKeyDocument>("data_keys")));
    this.scopedKeys = guardStoreOutages(
      new MongoScopedKeyStore(
        db.collection<ScopedKeyDocument>("scoped_keys"),
        db.collection<SpendSlotDocument>("scoped_key_spend"),
      ),
    );
    this.nodes = guardStoreOutages(new MongoNodeStore(db.collection<NodeDocument>("nodes")));
    this.readModel = guardStoreOutages(new MongoReadModelStore(db));
  }

  async init(): Promise<void> {
    await this.agents.init();
    await this.nonces.init();
    await this.counters.init();
    await this.journal.init();
    await this.idempotency.init();
    await this.dataKeys.init();
    await this.scopedKeys.init();
    await this.nodes.init();
    await this.readModel.init();
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.db.command({ ping: 1 });
      return { kind: "mongodb", connected: true };
    } catch {
      return { kind: "mongodb", connected: false };
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** How long a starting service waits for its store (which may start beside it) before it gives up. */
const STARTUP_WAIT_MS = 5_000;

/** Connects (failing after STARTUP_WAIT_MS if the server is unreachable) and creates the indexes. */
export async function connectMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const client = new MongoClient(options.uri, { ...STORE_OUTAGE_SETTINGS, appName: "nap-api" });
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (;;) {
    try {
      await client.connect();
      break;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const store = new MongoStore(client, client.db(options.dbName));
  await store.init();
  return store;
}
