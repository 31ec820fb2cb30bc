import { expect } from "chai";
import type { MongoClient } from "mongodb";
import { MongoTxJournal } from "../../../api/src/store/mongo/txJournal";
import type { TxJournalStore } from "../../../api/src/tx/journal";
import { TxEngine, type SendResult } from "../../../api/src/tx";
import type { TxProbe } from "../../../typechain-types";
import { agent, deployProbe, devWallets, fundAgents, hitData, provider } from "./helpers";
import { connectMongo, uniqueDb } from "./mongo";
import { ethers } from "hardhat";

/** Two engine instances on one Mongo journal, as two API processes would run. */
describe("TxEngine leases across instances (Mongo journal)", () => {
  let client: MongoClient;
  let drop: () => Promise<void>;
  let journal: MongoTxJournal;
  let probe: TxProbe;
  let to: string;
  let one: TxEngine;
  let two: TxEngine;

  before(async () => {
    client = await connectMongo();
    const unique = uniqueDb(client, "txlease");
    drop = unique.drop;
    journal = new MongoTxJournal(unique.db);
    await journal.init();
    probe = await deployProbe();
    to = await probe.getAddress();
    await fundAgents(3, "1", 600);
  });

  /** Signatures journaled by an instance while the store said another instance held the wallet's lease. */
  let violations: string[];

  /** The shared journal as one instance sees it, checking the lease holder whenever that instance signs. */
  function watched(instanceId: string): TxJournalStore {
    return new Proxy(journal, {
      get(target, prop, receiver) {
        if (prop !== "transition") {
          const value = Reflect.get(target, prop, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: Parameters<TxJournalStore["transition"]>) => {
          const result = await target.transition(...args);
          if (result && args[2].state === "signed") {
            const lease = await target.getLease(result.from);
            if (lease?.holder !== instanceId)
              violations.push(`${instanceId} signed nonce ${result.nonce} under ${lease?.holder}`);
          }
          return result;
        };
      },
    });
  }

  beforeEach(() => {
    violations = [];
    const log = (level: string) => (obj: object, msg?: string) =>
      process.env.TX_DEBUG && console.log(level, msg, JSON.stringify(obj));
    const logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
    const options = { provider, wallets: devWallets, pollIntervalMs: 20, leaseTtlMs: 5_000, leaseLingerMs: 0, logger };
    one = new TxEngine({ ...options, journal: watched("instance-one"), instanceId: "instance-one" });
    two = new TxEngine({ ...options, journal: watched("instance-two"), instanceId: "instance-two" });
  });

  afterEach(async () => {
    await one.close();
    await two.close();
  });

  after(async () => {
    await drop?.();
    await client?.close();
  });

  const send = (engine: TxEngine, index: number, tag: string, intentKey?: string) =>
    engine.send({ wallet: agent(index), to, data: hitData(probe, tag), kind: "probe.hit", intentKey });

  it("keeps one writer per wallet: 2 instances × 10 concurrent sends from one wallet all mine with distinct nonces", async () => {
    const sends: Promise<SendResult>[] = [];
    for (let i = 0; i < 10; i++) {
      sends.push(send(one, 600, `lease-one-${i}`));
      sends.push(send(two, 600, `lease-two-${i}`));
    }
    const results = await Promise.all(sends);
    const nonces = results.map((r) => r.journalEntry.nonce!).sort((a, b) => a - b);
    expect(nonces).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
    expect(await provider.getTransactionCount(devWallets.agentAddress(600))).to.equal(20);
    expect(await probe.hitsBy(devWallets.agentAddress(600))).to.equal(20n);
    expect(await journal.getLease(devWallets.agentAddress(600))).to.equal(null, "released when idle");
    expect(violations).to.deep.equal([]);
    const signers = new Set(results.map((r) => r.journalEntry.intentKey));
    expect(signers.size).to.equal(20);
  });

  it("mines 5 wallets × 8 transactions sent alternately through both instances, each exactly once", async function () {
    this.timeout(120_000);
    await fundAgents(5, "1", 620);
    const sends: Promise<SendResult>[] = [];
    for (let w = 0; w < 5; w++)
      for (let t = 0; t < 8; t++) sends.push(send(t % 2 ? one : two, 620 + w, `alt-${w}-${t}`));
    const results = await Promise.all(sends);
    expect(new Set(results.map((r) => r.hash)).size).to.equal(40);
    for (let w = 0; w < 5; w++) {
      const address = devWallets.agentAddress(620 + w);
      expect(await probe.hitsBy(address)).to.equal(8n);
      expect(await provider.getTransactionCount(address)).to.equal(8);
      for (let t = 0; t < 8; t++) expect(await probe.hits(ethers.id(`alt-${w}-${t}`))).to.equal(1n);
    }
    expect(violations).to.deep.equal([]);
  });

  it("sends one transaction when two instances get the same key at once", async () => {
    const results = await Promise.all([
      send(one, 601, "lease-same", "shared-key"),
      send(two, 601, "lease-same", "shared-key"),
      send(one, 601, "lease-same", "shared-key"),
      send(two, 601, "lease-same", "shared-key"),
    ]);
    expect(new Set(results.map((r) => r.hash)).size).to.equal(1);
    expect(results.filter((r) => !r.replayed)).to.have.length(1);
    expect(await probe.hits(ethers.id("lease-same"))).to.equal(1n);
    expect(await provider.getTransactionCount(devWallets.agentAddress(601))).to.equal(1);
  });

  it("takes over the lease of a crashed holder once it expires", async () => {
    const address = devWallets.agentAddress(602);
    expect(await journal.acquireLease(address, "crashed-instance", 700)).to.equal(true);
    const started = Date.now();
    const result = await send(one, 602, "after-takeover");
    expect(Date.now() - started).to.be.gte(500);
    expect(result.journalEntry.state).to.equal("mined");
    expect(await probe.hits(ethers.id("after-takeover"))).to.equal(1n);
  });
});
