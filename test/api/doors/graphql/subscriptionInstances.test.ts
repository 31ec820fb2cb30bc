import { expect } from "chai";
import type { ChildProcess } from "node:child_process";
import Redis from "ioredis";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { Deployment } from "../../../../api/src/chain/deployment";
import { connectMongoStore, type MongoStore } from "../../../../api/src/store/mongo";
import { startRedisServer, ensureMongo } from "../../../helpers/services";
import { registerAgent, startTestApp, type TestApp } from "../../helpers/app";
import { dropMongoStore, freshMongoStore } from "../../helpers/mongo";
import { deployTestSystem } from "../../helpers/system";
import { indexUntilCaughtUp } from "../../indexer/helpers";
import { DEV_MNEMONIC, OPERATOR_KEY, client } from "../../../e2e/helpers";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Two API instances over one MongoDB store and one Redis: instance A runs the indexer and takes deposits through the
 * live API; instance B only reads, and its feed's poll is an hour, so that what reaches B's subscriber comes through
 * the Redis notice (or the read after a Redis reconnect), not through polling. Redis is stopped in the middle and
 * started again on the same port: B's subscriber still gets every deposit exactly once, in order.
 */
describe("GraphQL subscriptions across two instances, with a Redis restart in the middle", function () {
  this.timeout(180_000);

  let deployment: Deployment;
  let storeA: MongoStore;
  let storeB: MongoStore;
  let redisPort: number;
  let redisChild: ChildProcess;
  const redisClients: Redis[] = [];
  let a: TestApp;
  let b: TestApp;
  let subscriber: Client | undefined;

  const redisClient = () => {
    const redis = new Redis(`redis://127.0.0.1:${redisPort}`, { maxRetriesPerRequest: 1 });
    // A stopped Redis makes every client report errors until it is back: expected here.
    redis.on("error", () => undefined);
    redisClients.push(redis);
    return redis;
  };

  before(async function () {
    deployment = await deployTestSystem();
    ({ port: redisPort, child: redisChild } = await startRedisServer());
    storeA = await freshMongoStore("feednotice");
    storeB = await connectMongoStore({ uri: await ensureMongo(), dbName: storeA.db.databaseName });
    a = await startTestApp({
      store: storeA,
      deployment,
      env: { SERVER_WALLET_MNEMONIC: DEV_MNEMONIC, AGENT_API_KEYS: OPERATOR_KEY },
      rateLimitBackend: { driver: "redis", db: redisClient() },
      extra: { engineOptions: { pollIntervalMs: 20 } },
    });
    await a.app.useCases.start();
    b = await startTestApp({
      store: storeB,
      deployment,
      env: { INDEXER_ENABLED: "false" },
      rateLimitBackend: { driver: "redis", db: redisClient() },
      extra: { feed: { pollMs: 3_600_000 } },
    });
    expect(b.app.indexer).to.equal(null);
    await indexUntilCaughtUp(a.app.indexer!);
  });

  after(async function () {
    await subscriber?.dispose();
    await b?.close();
    await a?.app.useCases.settled();
    await a?.close();
    for (const redis of redisClients) redis.disconnect();
    await storeB?.close();
    if (storeA) await dropMongoStore(storeA);
    redisChild?.kill();
  });

  it("the subscriber on B receives every deposit made through A's live API exactly once, in order", async function () {
    const vault = deployment.vaults.moderate!.address;
    const { apiKey } = await registerAgent(a.url);
    const call = client(a.url, apiKey);
    expect((await call("POST", "/api/v1/agent/faucet")).status).to.equal(200);

    const received: any[] = [];
    const waiters: Array<{ count: number; resolve: () => void }> = [];
    const receivedCount = (count: number) =>
      new Promise<void>((resolve) => {
        if (received.length >= count) resolve();
        else waiters.push({ count, resolve });
      });
    let failure: unknown;
    subscriber = createClient({ url: b.url.replace("http", "ws") + "/graphql", webSocketImpl: WebSocket, lazy: false });
    // From the log's tail as it is now: a subscription that starts after the first deposit still replays it.
    const from = await b.app.feed.lastSeq();
    subscriber.subscribe(
      {
        query: `subscription($a: String, $s: Int) { transactionCreated(vaultAddress: $a, afterSeq: $s) { hash type amount } }`,
        variables: { a: vault, s: from },
      },
      {
        next: (message) => {
          received.push(message);
          for (const waiter of waiters.filter((w) => received.length >= w.count)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        },
        error: (error) => (failure = error),
        complete: () => undefined,
      },
    );

    const deposits: string[] = [];
    const depositThroughA = async (amount: number) => {
      const answer = await call("POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: amount });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      deposits.push(answer.body.deposit_tx as string);
      await indexUntilCaughtUp(a.app.indexer!);
    };

    await depositThroughA(1);
    await receivedCount(1);

    // Redis goes away: A's notices are lost while B's subscriber connection is down.
    await new Promise<void>((resolve) => {
      redisChild.once("exit", () => resolve());
      redisChild.kill("SIGKILL");
    });
    await depositThroughA(2);
    await depositThroughA(3);
    ({ child: redisChild } = await startRedisServer(redisPort));
    // Back on the same port: B's subscriber reconnects, subscribes again and reads what the log gained meanwhile.
    await receivedCount(3);
    // A's own client may still be in its reconnect backoff: a notice published then is dropped (a delay until the
    // next poll in service, an hour here), so the next deposit waits until every client is connected again.
    await Promise.all(
      redisClients.map((redis) =>
        redis.status === "ready" ? undefined : new Promise<void>((resolve) => redis.once("ready", () => resolve())),
      ),
    );

    await depositThroughA(4);
    await receivedCount(4);
    expect(failure).to.equal(undefined);

    expect(received.map((m) => m.data.transactionCreated)).to.deep.equal(
      deposits.map((hash, i) => ({ hash, type: "DEPOSIT", amount: String((i + 1) * 1_000_000) })),
    );
    const log = (await storeA.readModel.eventLog(from, 1_000)).filter(
      (e) => e.action === "added" && e.event.name === "Deposit" && e.event.address === vault.toLowerCase(),
    );
    expect(received.map((m) => m.extensions.seq)).to.deep.equal(log.map((e) => e.seq));

    // Exactly once: the next message after a fifth deposit is that deposit, nothing was sent twice in between.
    await depositThroughA(5);
    await receivedCount(5);
    expect(received).to.have.length(5);
    expect(received[4].data.transactionCreated.hash).to.equal(deposits[4]);
  });
});
