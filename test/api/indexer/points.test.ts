import { expect } from "chai";
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { ChainAccess } from "../../../api/src/chain";
import type { Deployment } from "../../../api/src/chain/deployment";
import { VAULT_IDS } from "../../../api/src/domain/model";
import { PRICE_MOVING_EVENTS } from "../../../api/src/indexer/facts";
import { Indexer, type IndexerSettings } from "../../../api/src/indexer/indexer";
import { logPieces } from "../../../api/src/indexer/readBatch";
import { firstPoints, hourEndPoints, VaultSampler } from "../../../api/src/indexer/sampler";
import { createLogger } from "../../../api/src/logger";
import type { SnapshotResolution } from "../../../api/src/readmodel/records";
import type { ReadModelStore } from "../../../api/src/readmodel/store";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";
import { hardhatChain } from "../helpers/app";
import { deployTestSystem } from "../helpers/system";
import { ConfigurableNapVault__factory } from "../../../typechain-types";
import { deposit, fund, impersonate, lensAt, report, users, vaultAt } from "./activity";
import { indexUntilCaughtUp } from "./helpers";

const HOUR = 3600;
const DAY = 24 * HOUR;

/**
 * The snapshot points the indexer reads are the ones served figures are made of (sampler.ts): an hour or day bucket
 * keeps its last sample, a vault's inception its first. The served buckets must therefore be exactly what sampling
 * at every price-moving event (and at every batch's last block) gives: computed here from the chain itself.
 */
describe("indexer snapshot points (the served figures of a point at every price-moving event)", function () {
  let deployment: Deployment;
  let chain: ChainAccess;

  before(async function () {
    deployment = await deployTestSystem();
    chain = await hardhatChain(deployment);
  });

  function newIndexer(store: ReadModelStore, settings: Partial<IndexerSettings>, on = chain): Indexer {
    return new Indexer({ chain: on, store, logger: createLogger("silent"), holder: "test", settings });
  }

  /** Moves the next block to `before` seconds ahead of the next UTC hour (or day) at least a minute away. */
  async function nearNext(period: number, before: number): Promise<void> {
    const latest = await time.latest();
    await time.setNextBlockTimestamp((Math.floor((latest + 60) / period) + 1) * period - before);
  }

  /** What the store must serve per vault: the buckets and first sample of sampling at every event and batch end. */
  async function expectServedAsEveryEvent(store: ReadModelStore): Promise<void> {
    const lens = lensAt(deployment);
    const lensBlock = deployment.contracts.VaultLens!.block;
    const events = await store.events({});
    const batchEnds = (await store.checkpoints(Infinity)).map((checkpoint) => checkpoint.height);
    const stamp = new Map<number, number>();
    const timestampOf = async (block: number) => {
      if (!stamp.has(block)) stamp.set(block, (await ethers.provider.getBlock(block))!.timestamp);
      return stamp.get(block)!;
    };
    for (const id of VAULT_IDS) {
      const { address, block: vaultBlock } = deployment.vaults[id]!;
      const vault = address.toLowerCase();
      const since = Math.max(lensBlock, vaultBlock);
      const moving = events
        .filter((e) => e.address === vault && PRICE_MOVING_EVENTS.has(e.name) && e.block >= since)
        .map((e) => e.block);
      const samples = [...new Set([...moving, ...batchEnds.filter((end) => end >= since)])].sort((a, b) => a - b);
      expect(samples.length, `${id} samples`).to.be.at.least(2);
      const bucketBlocks: number[] = [];
      for (const [resolution, size] of [
        ["hour", HOUR],
        ["day", DAY],
      ] as [SnapshotResolution, number][]) {
        const lastOfBucket = new Map<number, number>();
        for (const block of samples) {
          const timestamp = await timestampOf(block);
          lastOfBucket.set(timestamp - (timestamp % size), block);
        }
        const expected = [];
        for (const [key, block] of lastOfBucket) {
          const [[totalAssets, totalSupply, pricePerShare]] = await lens.samples([address], { blockTag: block });
          expected.push({
            vault,
            resolution,
            key,
            block,
            timestamp: await timestampOf(block),
            totalAssets: totalAssets.toString(),
            totalSupply: totalSupply.toString(),
            pricePerShare: pricePerShare.toString(),
          });
        }
        expect(await store.snapshots(vault, resolution, 0), `${id} ${resolution} buckets`).to.deep.equal(expected);
        bucketBlocks.push(...lastOfBucket.values());
      }
      // With a point at every event, the oldest snapshot is the first event's point or the oldest bucket.
      expect((await store.firstSnapshot(vault))?.block, `${id} inception`).to.equal(
        Math.min(...moving.slice(0, 1), ...bucketBlocks),
      );
    }
  }

  it("serves every hour and day bucket and each inception as a point at every event would, whatever the batch size", async function () {
    const { alice, bob } = await users();
    await fund(deployment, alice, 100_000n * 1_000_000n);
    await fund(deployment, bob, 100_000n * 1_000_000n);
    // Three hours with events on both sides of each boundary, a report whose profit unlocks over time, a quiet hour,
    // and a day boundary.
    await nearNext(HOUR, 6);
    for (const id of ["conservative", "moderate", "aggressive"] as const)
      await deposit(deployment, id, alice, 900_000n);
    await report(deployment, "moderate", 50_000n);
    await deposit(deployment, "moderate", bob, 1_700_000n);
    await time.increase(HOUR + 120);
    await deposit(deployment, "moderate", alice, 300_000n);
    await deposit(deployment, "hedged", bob, 2_000_000n);
    // A stretch without events, so that a batch of everything asks for its logs in two pieces (logPieces) with vaults
    // first seen in each: checked below. Mined one by one: blocks of hardhat_mine report a zero parent hash.
    for (let i = 0; i < 150; i++) await ethers.provider.send("evm_mine", []);
    await nearNext(DAY, 4);
    await deposit(deployment, "moderate", bob, 400_000n);
    await deposit(deployment, "inverse", alice, 5_000_000n);
    await deposit(deployment, "configurable", alice, 6_000_000n);
    await deposit(deployment, "moderate", alice, 700_000n);
    await report(deployment, "moderate", 20_000n);

    let wholeBatch = new MemoryReadModelStore();
    for (const batchBlocks of [3, 7, 10_000]) {
      const store = new MemoryReadModelStore();
      await indexUntilCaughtUp(newIndexer(store, { reorgWindow: 100_000, batchBlocks }));
      await expectServedAsEveryEvent(store);
      wholeBatch = store;
    }
    const start = Math.min(
      ...Object.values(deployment.contracts).map((contract) => contract.block),
      ...VAULT_IDS.map((id) => deployment.vaults[id]!.block),
    );
    const pieces = logPieces(start, await time.latestBlock());
    const inceptions = await Promise.all(
      VAULT_IDS.map(
        async (id) => (await wholeBatch.firstSnapshot(deployment.vaults[id]!.address.toLowerCase()))!.block,
      ),
    );
    expect(pieces, "the one batch's pieces").to.have.length(2);
    expect(
      inceptions.filter((block) => block <= pieces[0][1]),
      "inceptions in the first piece",
    ).to.not.be.empty;
    expect(
      inceptions.filter((block) => block >= pieces[1][0]),
      "inceptions in the second piece",
    ).to.not.be.empty;
  });

  it("keeps each vault's record the lens's whole view at every batch end, through pause, fee and recipient changes", async function () {
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store, { batchBlocks: 2 });
    const admin = await impersonate(deployment.contracts.TimelockController!.address);
    const guardian = await impersonate(deployment.roles.guardians[0]);
    const { alice } = await users();
    await fund(deployment, alice, 100n * 1_000_000n);
    await deposit(deployment, "moderate", alice, 1_000_000n);
    await (await vaultAt(deployment, "moderate", guardian).pause()).wait();
    await deposit(deployment, "conservative", alice, 2_000_000n);
    await (await vaultAt(deployment, "moderate", guardian).unpause()).wait();
    const configurable = ConfigurableNapVault__factory.connect(deployment.vaults.configurable!.address, admin);
    await (await configurable.setFees(300, 1_000, 300)).wait();
    await deposit(deployment, "configurable", alice, 3_000_000n);
    await (await vaultAt(deployment, "inverse", admin).setFeeRecipient(await alice.getAddress())).wait();
    await deposit(deployment, "inverse", alice, 4_000_000n);

    const sampler = new VaultSampler(chain.contracts, chain.provider);
    // Compared from the block where the lens and every vault are deployed (the lens reads nothing before).
    const everything = Math.max(
      deployment.contracts.VaultLens!.block,
      ...VAULT_IDS.map((id) => deployment.vaults[id]!.block),
    );
    const byAddress = (a: { address: string }, b: { address: string }) => a.address.localeCompare(b.address);
    let steps = 0;
    for (let result = await indexer.step(); ; result = await indexer.step()) {
      const { height } = (await store.cursor())!;
      if (height >= everything) {
        const timestamp = (await ethers.provider.getBlock(height))!.timestamp;
        const views = await sampler.read(chain.contracts.vaultList(), height);
        expect((await store.vaults()).sort(byAddress), `vault records at block ${height}`).to.deep.equal(
          views.map((view) => ({ ...view, timestamp })).sort(byAddress),
        );
        steps++;
      }
      if (result !== "indexed") break;
    }
    expect(steps).to.be.greaterThan(20);
    const records = await store.vaults();
    expect(records.find((r) => r.id === "configurable")!.managementFeeBps).to.equal(300);
    expect(records.find((r) => r.id === "moderate")!.paused).to.equal(false);
  });

  it("takes a vault's inception again on the new branch after a reorg below it, and no second first point", async function () {
    // A deployment of its own: its vaults have no deposit yet, so the first deposit below is each one's inception.
    const own = await deployTestSystem();
    const ownChain = await hardhatChain(own);
    const store = new MemoryReadModelStore();
    const indexer = newIndexer(store, { batchBlocks: 2, reorgWindow: 100_000 }, ownChain);
    const vault = own.vaults.aggressive!.address.toLowerCase();
    const pointsOf = async () => (await store.snapshots(vault, "point", 0)).map((point) => point.block);
    const { alice } = await users();
    await fund(own, alice, 100n * 1_000_000n);
    await ethers.provider.send("hardhat_mine", ["0x4"]);
    const beforeDeposits = await ethers.provider.send("evm_snapshot", []);
    await deposit(own, "aggressive", alice, 900_000n);
    const firstDeposit = await ethers.provider.getBlockNumber();
    await indexUntilCaughtUp(indexer);
    await deposit(own, "aggressive", alice, 800_000n);
    await indexUntilCaughtUp(indexer);
    // The second deposit's batch is in the hour of its last block: no point of its own once the inception is written.
    expect(await pointsOf()).to.deep.equal([firstDeposit]);

    await ethers.provider.send("evm_revert", [beforeDeposits]);
    await deposit(own, "aggressive", alice, 1_300_000n);
    const newFirstDeposit = await ethers.provider.getBlockNumber();
    await ethers.provider.send("hardhat_mine", ["0x6"]);
    expect(await indexUntilCaughtUp(indexer)).to.include("reorg");

    const [[totalAssets, totalSupply, pricePerShare]] = await lensAt(own).samples([vault], {
      blockTag: newFirstDeposit,
    });
    const inception = await store.firstSnapshot(vault);
    expect(inception && { block: inception.block, totalAssets: inception.totalAssets }).to.deep.equal({
      block: newFirstDeposit,
      totalAssets: totalAssets.toString(),
    });
    expect([inception!.totalSupply, inception!.pricePerShare]).to.deep.equal([
      totalSupply.toString(),
      pricePerShare.toString(),
    ]);
    expect(await pointsOf()).to.deep.equal([newFirstDeposit]);
  });

  it("picks each vault's first block of a batch, and each hour's last block before the batch's last hour", function () {
    const log = (address: string, blockNumber: number) => ({ address, blockNumber });
    const moving = [log("0xA", 10), log("0xb", 11), log("0xA", 12), log("0xA", 20), log("0xb", 21), log("0xA", 30)];
    expect(firstPoints(moving)).to.deep.equal([
      { address: "0xa", block: 10 },
      { address: "0xb", block: 11 },
    ]);
    expect(firstPoints([])).to.deep.equal([]);
    // Blocks 10-12 in one hour, 20-21 in the next, 30 in the batch's last hour.
    const timestamps = new Map([
      [10, 7_200],
      [11, 7_300],
      [12, 10_799],
      [20, 10_800],
      [21, 10_900],
      [30, 14_400],
    ]);
    expect(hourEndPoints(moving, timestamps, 14_401, [])).to.deep.equal([
      { address: "0xa", block: 12 },
      { address: "0xb", block: 11 },
      { address: "0xa", block: 20 },
      { address: "0xb", block: 21 },
    ]);
    expect(hourEndPoints(moving, timestamps, 14_401, [{ address: "0xa", block: 12 }])).to.deep.equal([
      { address: "0xb", block: 11 },
      { address: "0xa", block: 20 },
      { address: "0xb", block: 21 },
    ]);
    expect(hourEndPoints(moving, timestamps, 10_799, [])).to.deep.equal([]);
  });
});
