import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { ethers, network } from "hardhat";
import type { MongoClient, Db } from "mongodb";
import { MongoTxJournal } from "../../../api/src/store/mongo/txJournal";
import type { TxJournalEntry } from "../../../api/src/tx/journal";
import { TxEngine } from "../../../api/src/tx";
import type { TxProbe } from "../../../typechain-types";
import { serveChain } from "./chainServer";
import { DEV_MNEMONIC, deployProbe, devWallets, fundAgents, provider } from "./helpers";
import { connectMongo, mongoUri, uniqueDb } from "./mongo";
import { recordFigure } from "../../helpers/figures";

/**
 * Crash safety: a child process runs the engine on the Mongo journal and is killed with SIGKILL in the middle of
 * a burst, while transactions sit unmined in the mempool (interval mining). Half of the journal's unmined
 * transactions are then dropped from the node's mempool, as if they had never left the dead process. A new
 * engine reconciles; every intent the journal accepted must end mined exactly once, and nothing else is mined.
 */
/** The journal's document counts, one number per collection. */
async function journalCounts(db: Db): Promise<string> {
  const names = ["tx_intents", "tx_steps", "tx_open", "tx_leases"];
  const counts = await Promise.all(names.map((name) => db.collection(name).countDocuments({})));
  return counts.join(",");
}

/** Resolves once no collection of the journal has changed for `quietMs`, polling every 100 ms (at most `maxMs`). */
async function journalSettled(db: Db, quietMs = 1_000, maxMs = 30_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = await journalCounts(db);
  let quietSince = Date.now();
  while (Date.now() - quietSince < quietMs) {
    if (Date.now() > deadline) throw new Error(`the journal kept changing for ${maxMs} ms after the kill: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await journalCounts(db);
    if (now !== last) {
      last = now;
      quietSince = Date.now();
    }
  }
}

describe("TxEngine crash safety (child process killed mid-burst, Mongo journal)", function () {
  this.timeout(180_000);

  const FIRST_AGENT = 500;
  const AGENTS = Number(process.env.TX_CRASH_AGENTS ?? 10);
  const PER_AGENT = Number(process.env.TX_CRASH_PER_AGENT ?? 10);
  const PREFIX = `crash${Date.now()}`;

  let client: MongoClient;
  let db: Db;
  let dropDb: () => Promise<void>;
  let chain: { url: string; close(): Promise<void> };
  let probe: TxProbe;
  let worker: ChildProcess | null = null;

  before(async () => {
    client = await connectMongo();
    const unique = uniqueDb(client, "txcrash");
    db = unique.db;
    dropDb = unique.drop;
    probe = await deployProbe();
    await fundAgents(AGENTS, "1", FIRST_AGENT);
    chain = await serveChain();
  });

  after(async () => {
    if (worker && worker.exitCode === null) worker.kill("SIGKILL");
    await network.provider.send("evm_setIntervalMining", [0]);
    await network.provider.send("evm_setAutomine", [true]);
    await chain?.close();
    await dropDb?.();
    await client?.close();
  });

  it("ends every accepted intent mined exactly once after SIGKILL and reconcile", async () => {
    const total = AGENTS * PER_AGENT;
    await network.provider.send("evm_setAutomine", [false]);
    // Slow blocks, so that at the kill some transactions are broadcast but not yet mined.
    await network.provider.send("evm_setIntervalMining", [1_000]);

    worker = spawn(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", path.join(__dirname, "fixtures/crashWorker.ts")],
      {
        cwd: path.resolve(__dirname, "../../.."),
        env: {
          ...process.env,
          RPC_URL: chain.url,
          MONGODB_URI: await mongoUri(),
          DB_NAME: db.databaseName,
          PROBE: await probe.getAddress(),
          FIRST_AGENT: String(FIRST_AGENT),
          AGENTS: String(AGENTS),
          PER_AGENT: String(PER_AGENT),
          PREFIX,
          WAVE_MS: "120",
          SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    worker.stdout!.on("data", (chunk) => (output += String(chunk)));
    worker.stderr!.on("data", (chunk) => (output += String(chunk)));
    const exited = new Promise<void>((resolve) => worker!.once("exit", () => resolve()));

    // Kill once a good part of the burst is journaled, part of it is mined and part waits in the mempool.
    const intents = db.collection("tx_intents");
    const deadline = Date.now() + 90_000;
    for (;;) {
      const recorded = await intents.countDocuments({});
      // Entries leave tx_open when they are final (here: mined).
      const mined = recorded - (await db.collection("tx_open").countDocuments({}));
      const pendingBlock = (await network.provider.send("eth_getBlockByNumber", ["pending", false])) as {
        transactions: string[];
      };
      if (recorded >= total * 0.4 && mined >= total / 20 && pendingBlock.transactions.length >= 5) break;
      if (Date.now() > deadline || worker.exitCode !== null) throw new Error(`worker did not get going:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    worker.kill("SIGKILL");
    // Stop mining so that what waits in the mempool stays there until half of it is dropped below.
    await network.provider.send("evm_setIntervalMining", [0]);
    await exited;
    expect(output).to.not.contain("error ");
    // Requests the worker sent just before dying may still be executing in the database server (FerretDB retries
    // writes that SQLite answers busy): wait until the journal's collections stop changing.
    await journalSettled(db);

    const journal = new MongoTxJournal(db);
    const openAtCrash = await journal.listOpen();
    expect(openAtCrash.length, "the kill should land while transactions are open").to.be.greaterThan(0);
    const withHash = openAtCrash.filter((e) => e.hash !== null);
    let dropped = 0;
    for (const entry of withHash.filter((_, i) => i % 2 === 0)) {
      // Some of them were mined after all (the worker died before journaling the receipt): those stay.
      const gone = await network.provider.send("hardhat_dropTransaction", [entry.hash]).catch(() => false);
      if (gone) dropped++;
    }

    await network.provider.send("evm_setIntervalMining", [100]);
    const engine = new TxEngine({
      provider,
      journal,
      wallets: devWallets,
      pollIntervalMs: 50,
      leaseTtlMs: 2_000,
      leaseWaitMs: 20_000,
    });
    const states = openAtCrash.reduce<Record<string, number>>(
      (acc, e) => ({ ...acc, [e.state]: (acc[e.state] ?? 0) + 1 }),
      {},
    );
    const started = Date.now();
    try {
      const report = await engine.reconcile();
      recordFigure("TxEngine crash", `reconcile of ${JSON.stringify(states)} took ${Date.now() - started} ms`);
      expect(report).to.deep.include({ open: openAtCrash.length, failed: 0, pending: 0 });
    } finally {
      await engine.close();
    }
    await network.provider.send("evm_mine", []);

    // Everything the journal accepted is mined once, with the hash it journaled; nothing else ran.
    const entries: TxJournalEntry[] = [];
    for (let a = FIRST_AGENT; a < FIRST_AGENT + AGENTS; a++) {
      for (let t = 0; t < PER_AGENT; t++) {
        const key = `${PREFIX}-${a}-${t}`;
        const entry = await journal.get(key);
        const hits = await probe.hits(ethers.id(key));
        if (!entry) {
          expect(hits, `${key} was never accepted`).to.equal(0n);
          continue;
        }
        entries.push(entry);
        expect(entry.state, key).to.equal("mined");
        expect(entry.status, key).to.equal(1);
        expect(hits, key).to.equal(1n);
        const receipt = await provider.getTransactionReceipt(entry.hash!);
        expect(receipt?.status, key).to.equal(1);
        for (const replaced of entry.replacedHashes)
          expect(await provider.getTransactionReceipt(replaced)).to.equal(null);
      }
    }
    for (let a = FIRST_AGENT; a < FIRST_AGENT + AGENTS; a++) {
      const address = devWallets.agentAddress(a);
      const mine = entries.filter((e) => e.from === address.toLowerCase());
      expect(await probe.hitsBy(address)).to.equal(BigInt(mine.length));
      // No gaps and no extra transactions: the wallet's nonce count is exactly its mined intents.
      expect(await provider.getTransactionCount(address)).to.equal(mine.length);
    }
    expect(entries.length).to.be.greaterThanOrEqual(total * 0.4);
    expect(dropped, "some journaled transactions were taken out of the mempool").to.be.greaterThan(0);
    recordFigure(
      "TxEngine crash",
      `crash: ${entries.length}/${total} intents accepted, ${openAtCrash.length} open at SIGKILL, ` +
        `${dropped} dropped from the mempool, all mined once after reconcile`,
    );
  });
});
