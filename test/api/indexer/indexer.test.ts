import { expect } from "chai";
import fc from "fast-check";
import { ethers } from "hardhat";
import { takeSnapshot, time } from "@nomicfoundation/hardhat-network-helpers";
import { createChainAccess, type ChainAccess, type RpcProvider } from "../../../api/src/chain";
import type { Deployment } from "../../../api/src/chain/deployment";
import { VAULT_IDS } from "../../../api/src/domain/model";
import { Indexer, type IndexerSettings } from "../../../api/src/indexer/indexer";
import { logPieces } from "../../../api/src/indexer/readBatch";
import { createLogger } from "../../../api/src/logger";
import { DataQueries } from "../../../api/src/readmodel/queries";
import type { ReadModelStore } from "../../../api/src/readmodel/store";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";
import { hardhatChain } from "../helpers/app";
import { deployTestSystem } from "../helpers/system";
import { deposit, fund, scriptedActivity, users } from "./activity";
import { expectReadModelMatchesChain, indexUntilCaughtUp } from "./helpers";

const logger = createLogger("silent");

describe("indexer on the local chain (scripted activity across the six vaults)", function () {
  let deployment: Deployment;
  let chain: ChainAccess;

  before(async function () {
    deployment = await deployTestSystem();
    chain = await hardhatChain(deployment);
  });

  function newIndexer(store: ReadModelStore, settings: Partial<IndexerSettings> = {}, holder = "test") {
    return new Indexer({ chain, store, logger, holder, settings: { batchBlocks: 25, ...settings } });
  }

  it("indexes every vault from the deployment block and matches the chain's own view at the end", async function () {
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store);
    const holders = await scriptedActivity(deployment);
    const results = await indexUntilCaughtUp(indexer);
    expect(results.at(-1)).to.equal("caught-up");
    expect((await store.cursor())!.height).to.equal(await ethers.provider.getBlockNumber());
    await expectReadModelMatchesChain(deployment, store, holders);

    const queries = new DataQueries(store, { cursorTtlMs: 0 });
    const [alice, bob] = holders.map((h) => h.toLowerCase());
    const aliceTxs = await queries.transactions(alice, { limit: 500, offset: 0 });
    const byType = (type: string) => aliceTxs.items.filter((tx) => tx.type === type);
    expect(byType("DEPOSIT")).to.have.length(6);
    expect(byType("WITHDRAW")).to.have.length(2);
    expect(byType("REDEEM_REQUEST")).to.have.length(4);
    expect(byType("REDEEM_REQUEST").map((tx) => tx.status)).to.deep.equal(["CLAIMED", "CLAIMED", "CLAIMED", "CLAIMED"]);
    expect(byType("CLAIM")).to.have.length(8);
    const bobTxs = await queries.transactions(bob, { limit: 500, offset: 0, type: "REDEEM_REQUEST" });
    const statuses = bobTxs.items.map((tx) => `${tx.vault.id}:${tx.status}`).sort();
    expect(statuses).to.deep.equal([
      "aggressive:FULFILLED",
      "configurable:FULFILLED",
      "hedged:FAILED",
      "inverse:FULFILLED",
    ]);
    for (const tx of bobTxs.items.filter((t) => t.status === "FULFILLED")) expect(tx.amount > 0n).to.equal(true);

    // Deposits are the cost; the moderate vault's reported gain shows as profit for both holders.
    const moderate = (await queries.positions(alice)).find((p) => p.vault.id === "moderate")!;
    expect(moderate.pnl > 0n, "profit from the report").to.equal(true);
    expect(moderate.depositedAt).to.be.greaterThan(0);
    const stats = await queries.protocolStats();
    expect(stats.vaultCount).to.equal(6);
    expect(stats.userCount).to.equal(2);
    expect(stats.depositVolume).to.equal(6n * 1_500n * 1_000_000n + 200n * 1_000_000n);

    // Writing the same range again (a restart that lost its cursor) changes nothing.
    const before = await store.events({});
    const log = await store.eventLog(0, 100_000);
    await store.setCursor({ height: (await store.checkpoints(Infinity)).at(-1)!.height, hash: "" });
    await indexUntilCaughtUp(indexer);
    expect(await store.events({})).to.deep.equal(before);
    expect(await store.eventLog(0, 100_000)).to.deep.equal(log);
    await expectReadModelMatchesChain(deployment, store, holders);
  });

  it("rewinds a reorg inside the window (evm_snapshot / evm_revert) and re-indexes the new chain", async function () {
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store, { batchBlocks: 3 });
    const { alice, bob } = await users();
    await fund(deployment, alice, 10_000n * 1_000_000n);
    await fund(deployment, bob, 10_000n * 1_000_000n);
    await indexUntilCaughtUp(indexer);
    const snapshot = await takeSnapshot();
    await deposit(deployment, "conservative", alice, 111n * 1_000_000n);
    await indexUntilCaughtUp(indexer);
    const orphan = (await store.events({ names: ["Deposit"] })).at(-1)!;
    expect(orphan.args.assets).to.equal("111000000");
    await snapshot.restore();
    // The new chain: another deposit, and more blocks than the orphaned branch had.
    await deposit(deployment, "moderate", bob, 222n * 1_000_000n);
    await deposit(deployment, "moderate", bob, 1n * 1_000_000n);
    const results = await indexUntilCaughtUp(indexer);
    expect(results).to.include("reorg");
    const ids = (await store.events({})).map((e) => e.id);
    expect(ids).to.not.include(orphan.id);
    const removed = (await store.eventLog(0, 100_000)).filter((e) => e.action === "removed");
    expect(removed.map((e) => e.event.id)).to.include(orphan.id);
    const deposits = (await store.events({ names: ["Deposit"] })).slice(-2).map((e) => e.args.assets);
    expect(deposits).to.deep.equal(["222000000", "1000000"]);
    await expectReadModelMatchesChain(deployment, store, [await alice.getAddress(), await bob.getAddress()]);
    // The event log stays ordered: seq 1, 2, 3 ... without gaps.
    const seqs = (await store.eventLog(0, 100_000)).map((e) => e.seq);
    expect(seqs).to.deep.equal(seqs.map((_, i) => i + 1));
  });

  it("rewinds at once when the chain becomes shorter than what is indexed, without waiting for it to grow back", async function () {
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store, { batchBlocks: 3 });
    const { alice } = await users();
    await fund(deployment, alice, 10_000n * 1_000_000n);
    await indexUntilCaughtUp(indexer);
    const snapshot = await takeSnapshot();
    const shortHead = await ethers.provider.getBlockNumber();
    await deposit(deployment, "aggressive", alice, 333n * 1_000_000n);
    await ethers.provider.send("hardhat_mine", ["0x5"]);
    await indexUntilCaughtUp(indexer);
    const orphan = (await store.events({ names: ["Deposit"] })).at(-1)!;
    expect(orphan.args.assets).to.equal("333000000");
    expect((await store.cursor())!.height).to.be.greaterThan(shortHead);

    // The chain loses the deposit and every block after it, and grows no block: its head is below the cursor.
    await snapshot.restore();
    expect(await ethers.provider.getBlockNumber()).to.equal(shortHead);
    expect(await indexer.step()).to.equal("reorg");
    expect((await store.cursor())!.height).to.be.at.most(shortHead);
    expect((await store.events({})).map((e) => e.id)).to.not.include(orphan.id);
    const removed = (await store.eventLog(0, 100_000)).filter((e) => e.action === "removed");
    expect(removed.map((e) => e.event.id)).to.include(orphan.id);
    await indexUntilCaughtUp(indexer);
    expect((await store.cursor())!.height).to.equal(shortHead);
    await expectReadModelMatchesChain(deployment, store, [await alice.getAddress()]);
  });

  it("leaves a right read model when it dies at any write of a rewind to a shorter chain and restarts", async function () {
    const { alice } = await users();
    await fund(deployment, alice, 10_000n * 1_000_000n);
    const shortHead = await ethers.provider.getBlockNumber();
    const writes = [
      "appendEventLog",
      "deleteEventsAbove",
      "deleteSnapshotsAbove",
      "deleteCheckpointsAbove",
      "putSnapshots",
      "putVaults",
      "deleteVaultsAbove",
      "setCursor",
    ] as const;
    for (const write of writes) {
      const store = new MemoryReadModelStore();
      let armed = false;
      // The store as a process that dies at its first `write` once armed: that call throws before it changes anything.
      const dying = new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            if (armed && property === write) {
              armed = false;
              throw new Error(`died at ${write}`);
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      // Indexed to the short head first, so that the rewind goes back exactly to it (a checkpoint) and the restarted
      // process finds no batch to index: what the rewind left is what it serves.
      await indexUntilCaughtUp(newIndexer(dying));
      const snapshot = await takeSnapshot();
      await deposit(deployment, "hedged", alice, 444n * 1_000_000n);
      await ethers.provider.send("hardhat_mine", ["0x4"]);
      await indexUntilCaughtUp(newIndexer(dying));
      await snapshot.restore();
      expect(await ethers.provider.getBlockNumber()).to.equal(shortHead);

      armed = true;
      const died = await newIndexer(dying)
        .step()
        .then(
          () => null,
          (error: Error) => error.message,
        );
      expect(died, write).to.equal(`died at ${write}`);
      // The restarted process: a new instance on the same store, and no new block to start a batch with.
      await indexUntilCaughtUp(newIndexer(store));
      expect((await store.cursor())!.height, write).to.equal(shortHead);
      expect(
        (await store.events({ names: ["Deposit"] })).map((e) => e.args.assets),
        write,
      ).to.not.include("444000000");
      expect(
        (await store.vaults()).map((v) => v.block),
        write,
      ).to.deep.equal(VAULT_IDS.map(() => shortHead));
      await expectReadModelMatchesChain(deployment, store, [await alice.getAddress()]);
    }
  });

  it("drops the record of a vault deployed above the block a rewind goes back to, until the chain reaches it again", async function () {
    const snapshot = await takeSnapshot();
    const lateBlock = (await ethers.provider.getBlockNumber()) + 2;
    await ethers.provider.send("hardhat_mine", ["0x3"]);
    // The deployment as an indexer would have it if the configurable vault had come in a block the reorg removes
    // (the lens reads the real one at any block after its actual deployment).
    const late: Deployment = {
      ...deployment,
      vaults: { ...deployment.vaults, configurable: { ...deployment.vaults.configurable!, block: lateBlock } },
    };
    const lateChain = await hardhatChain(late);
    const store = new MemoryReadModelStore();
    // What a reader on another instance finds after each write of the store (once watching): the vaults listed.
    let watching = false;
    const listed: string[][] = [];
    const watched = new Proxy(store, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (watching) listed.push((await target.vaults()).map((v) => v.id).sort());
          return result;
        };
      },
    });
    const indexer = new Indexer({
      chain: lateChain,
      store: watched,
      logger,
      holder: "test",
      settings: { batchBlocks: 25 },
    });
    await indexUntilCaughtUp(indexer);
    expect((await store.vaults()).map((v) => v.id)).to.include("configurable");

    await snapshot.restore();
    watching = true;
    expect(await indexer.step()).to.equal("reorg");
    watching = false;
    // The vaults the chain still has stay listed all through the rewind; only the one deployed above goes.
    const stillThere = ["aggressive", "conservative", "hedged", "inverse", "moderate"];
    for (const ids of listed) expect(ids.filter((id) => id !== "configurable")).to.deep.equal(stillThere);
    const cursor = (await store.cursor())!;
    expect(cursor.height).to.be.below(lateBlock);
    const records = await store.vaults();
    expect(records.map((v) => v.id).sort()).to.deep.equal(stillThere);
    expect(records.map((v) => v.block)).to.deep.equal(records.map(() => cursor.height));
    expect(await new DataQueries(store, { cursorTtlMs: 0 }).vault(deployment.vaults.configurable!.address)).to.equal(
      null,
    );

    await ethers.provider.send("hardhat_mine", ["0x3"]);
    await indexUntilCaughtUp(indexer);
    const again = (await store.vaults()).find((v) => v.id === "configurable");
    expect(again?.block).to.equal(await ethers.provider.getBlockNumber());
  });

  it("keeps what it indexed when the node reports a head below the cursor but still has the cursor's block", async function () {
    const store = new MemoryReadModelStore();
    await indexUntilCaughtUp(newIndexer(store));
    const cursor = (await store.cursor())!;
    const events = await store.events({});
    // A node behind a load balancer may answer from a backend a few blocks behind the one that served the logs.
    const provider = Object.create(ethers.provider) as RpcProvider;
    provider.send = async (method: string, params: unknown[]) => {
      const answer = await ethers.provider.send(method, params as never);
      return method === "eth_blockNumber" ? `0x${(Number(answer) - 3).toString(16)}` : answer;
    };
    const lagging = createChainAccess(provider, chain.chainId, deployment, { head: { latestTtlMs: 0 } });
    const indexer = new Indexer({ chain: lagging, store, logger, holder: "test", settings: { batchBlocks: 25 } });
    expect(await indexer.step()).to.equal("caught-up");
    expect(await store.cursor()).to.deep.equal(cursor);
    expect(await store.events({})).to.deep.equal(events);
    expect((await store.eventLog(0, 100_000)).filter((e) => e.action === "removed")).to.have.length(0);
  });

  /** A chain access whose provider notes every JSON-RPC method it is asked. */
  function countingChain(methods: string[]): ChainAccess {
    const provider = Object.create(ethers.provider) as RpcProvider;
    provider.send = (method: string, params: unknown[]) => {
      methods.push(method);
      return ethers.provider.send(method, params as never);
    };
    return createChainAccess(provider, chain.chainId, deployment, { head: { latestTtlMs: 0 } });
  }

  it("asks the node for its head once while catching up over many batches, then at every step", async function () {
    const methods: string[] = [];
    const store = new MemoryReadModelStore();
    const indexer = new Indexer({
      chain: countingChain(methods),
      store,
      logger,
      holder: "test",
      settings: { batchBlocks: 5 },
    });
    const results = await indexUntilCaughtUp(indexer);
    expect(results.filter((result) => result === "indexed").length).to.be.greaterThan(3);
    // The first step's, and the last one's, which found nothing past the head the first one read.
    expect(methods.filter((method) => method === "eth_blockNumber")).to.have.length(2);
    expect((await store.cursor())!.height).to.equal(await ethers.provider.getBlockNumber());

    methods.length = 0;
    await ethers.provider.send("evm_mine", []);
    expect(await indexer.step()).to.equal("indexed");
    expect(await indexer.step()).to.equal("caught-up");
    expect(methods.filter((method) => method === "eth_blockNumber")).to.have.length(2);
  });

  it("asks the head again at once when a block below the head it read has gone", async function () {
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store, { batchBlocks: 5 });
    await indexUntilCaughtUp(indexer);
    const snapshot = await takeSnapshot();
    const top = await ethers.provider.getBlockNumber();
    for (let i = 0; i < 20; i++) await ethers.provider.send("evm_mine", []);
    expect(await indexer.step()).to.equal("indexed");
    expect((await store.cursor())!.height).to.equal(top + 5);
    // The chain loses the blocks above `top`: the next batch's blocks, below the head read before, are not there.
    await snapshot.restore();
    expect(await indexer.step()).to.equal("reorg");
    expect((await store.cursor())!.height, "nothing written").to.equal(top + 5);
    // The new branch (its blocks a minute later than the lost ones, so other blocks) grows past the cursor: the parent
    // check finds the fork and the indexer rewinds to it.
    await time.increase(60);
    for (let i = 0; i < 7; i++) await ethers.provider.send("evm_mine", []);
    const results = await indexUntilCaughtUp(indexer);
    expect(results).to.include("reorg");
    const cursor = (await store.cursor())!;
    expect(cursor.height).to.equal(top + 8);
    expect(cursor.hash).to.equal((await ethers.provider.getBlock(top + 8))!.hash!.toLowerCase());
  });

  it("halts on a reorg deeper than its window, and says so", async function () {
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store, { batchBlocks: 1, reorgWindow: 2 });
    const { alice } = await users();
    await indexUntilCaughtUp(indexer);
    const snapshot = await takeSnapshot();
    for (let i = 0; i < 4; i++) await deposit(deployment, "conservative", alice, 1_000_000n);
    await indexUntilCaughtUp(indexer);
    const height = (await store.cursor())!.height;
    await snapshot.restore();
    for (let i = 0; i < 6; i++) await deposit(deployment, "moderate", alice, 2_000_000n);
    const results = await indexUntilCaughtUp(indexer);
    expect(results.at(-1)).to.equal("halted");
    const halt = await store.halt();
    expect(halt?.reason).to.match(new RegExp(`reorg deeper than the window: block ${height} `));
    expect((await store.cursor())!.height).to.equal(height, "nothing rewound or written after the halt");
    const status = await indexer.status();
    expect(status.role).to.equal("halted");
  });

  it("lets one instance write at a time and another take over when the holder's lease expires", async function () {
    const store = new MemoryReadModelStore();
    let now = Date.UTC(2026, 10, 22);
    const clock = () => new Date(now);
    const make = (holder: string) =>
      new Indexer({ chain, store, logger, holder, clock, settings: { batchBlocks: 50, leaseTtlMs: 10_000 } });
    const first = make("first");
    const second = make("second");
    expect(await first.step()).to.equal("indexed");
    expect(await second.step()).to.equal("standby");
    expect((await second.status()).role).to.equal("reader");
    now += 9_000;
    expect(await second.step()).to.equal("standby");
    // The first instance dies (no more renewals): its lease runs out and the second takes over.
    now += 10_001;
    expect(await second.step()).to.equal("indexed");
    expect((await store.lease())!.holder).to.equal("second");
    expect(await first.step()).to.equal("standby");
    await indexUntilCaughtUp(second);
    expect((await store.cursor())!.height).to.equal(await ethers.provider.getBlockNumber());
  });
});

describe("indexer log pieces (logPieces)", function () {
  it("covers a batch's blocks in order without gap or overlap, in two pieces of at least 64 blocks from 128 on", function () {
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.integer({ min: 1, max: 5_000 }), (from, blocks) => {
        const to = from + blocks - 1;
        const pieces = logPieces(from, to);
        expect(pieces).to.have.length(blocks >= 128 ? 2 : 1);
        expect(pieces[0][0]).to.equal(from);
        expect(pieces[pieces.length - 1][1]).to.equal(to);
        for (let i = 1; i < pieces.length; i++) expect(pieces[i][0]).to.equal(pieces[i - 1][1] + 1);
        for (const [low, high] of pieces) expect(high - low + 1).to.be.at.least(Math.min(blocks, 64));
      }),
    );
    expect(logPieces(7, 7)).to.deep.equal([[7, 7]]);
    expect(logPieces(1, 350)).to.deep.equal([
      [1, 175],
      [176, 350],
    ]);
  });
});
