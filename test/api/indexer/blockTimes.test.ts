import { expect } from "chai";
import fc from "fast-check";
import { ethers } from "hardhat";
import { takeSnapshot, time } from "@nomicfoundation/hardhat-network-helpers";
import type { ChainAccess, RpcProvider } from "../../../api/src/chain";
import type { Deployment } from "../../../api/src/chain/deployment";
import { blockTimes, probes } from "../../../api/src/indexer/blockTimes";
import { Indexer, type IndexerSettings } from "../../../api/src/indexer/indexer";
import type { BlockHeader } from "../../../api/src/chain/rpc/actions";
import { createLogger } from "../../../api/src/logger";
import { DataQueries } from "../../../api/src/readmodel/queries";
import type { ReadModelStore } from "../../../api/src/readmodel/store";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";
import { hardhatChain } from "../helpers/app";
import { deployTestSystem } from "../helpers/system";
import { deposit, fund, users } from "./activity";
import { indexUntilCaughtUp } from "./helpers";

const HOUR = 3600;

/** A chain of `gaps.length + 1` headers from block `start`, each `gaps[i]` seconds after its parent. */
function chainOf(start: number, first: number, gaps: number[]): BlockHeader[] {
  const headers: BlockHeader[] = [{ number: start, hash: `0x${start}`, parentHash: "0x", timestamp: first }];
  gaps.forEach((gap, i) =>
    headers.push({
      number: start + i + 1,
      hash: `0x${start + i + 1}`,
      parentHash: headers[i].hash,
      timestamp: headers[i].timestamp + gap,
    }),
  );
  return headers;
}

describe("block time stamps decided from few headers (blockTimes)", function () {
  it("gives every block the time stamp of its own header, whatever the gaps, reading only blocks of the range", async function () {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 }),
        // Mostly the least gap (stretches the ends decide), sometimes longer ones (missed slots, idle chains).
        fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 5_000 })), {
          minLength: 1,
          maxLength: 300,
        }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.array(fc.nat(), { maxLength: 100 }),
        async (minInterval, extras, first, picks) => {
          const chain = chainOf(
            1_000,
            first,
            extras.map((extra) => minInterval + extra),
          );
          const byNumber = new Map(chain.map((header) => [header.number, header]));
          const from = chain[0].number;
          const to = chain.at(-1)!.number;
          const blocks = picks.map((pick) => from + (pick % chain.length));
          const asked: number[] = [];
          const read = async (numbers: number[]) => {
            asked.push(...numbers);
            return new Map(numbers.map((n) => [n, byNumber.get(n)!]));
          };
          const known = await read(probes(from, to));
          const result = await blockTimes(blocks, known, minInterval, read);
          expect(result).to.not.equal(null);
          for (const block of blocks)
            expect(result!.timestamps.get(block), `block ${block}`).to.equal(byNumber.get(block)!.timestamp);
          for (const number of asked) expect(number).to.be.within(from, to);
          if (extras.every((extra) => extra === 0)) expect(asked).to.have.length(probes(from, to).length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers null when the node lacks a header it needs (the chain is changing under the batch)", async function () {
    const chain = chainOf(10, 1_000, [1, 7, 1, 1, 30, 1, 1, 1]);
    const known = new Map([chain[0], chain.at(-1)!].map((header) => [header.number, header]));
    expect(await blockTimes([12, 15], known, 1, async () => new Map())).to.equal(null);
  });

  it("refuses headers closer in time than the least interval allows (a setting wrong for the chain)", async function () {
    const chain = chainOf(10, 1_000, [1, 0, 1, 1]);
    const known = new Map(chain.map((header) => [header.number, header]));
    known.delete(12);
    const error = await blockTimes([12], known, 2, async () => new Map()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal(
      "blocks 11 and 13 are 1 s apart, less than 2 s per block (INDEXER_MIN_BLOCK_INTERVAL is too high for this chain)",
    );
  });
});

describe("indexer time stamps on the local chain (across hour boundaries, reorgs included)", function () {
  let deployment: Deployment;
  let chain: ChainAccess;

  before(async function () {
    deployment = await deployTestSystem();
    chain = await hardhatChain(deployment);
  });

  /** The chain access with a provider that counts the headers read. */
  function counting(): { chain: ChainAccess; headers: () => number } {
    let headers = 0;
    const provider = new Proxy(chain.provider, {
      get(target, key, receiver) {
        if (key !== "send") return Reflect.get(target, key, receiver) as unknown;
        return (method: string, params: unknown[]) => {
          if (method === "eth_getBlockByNumber") headers++;
          return target.send(method, params);
        };
      },
    }) as RpcProvider;
    return { chain: { ...chain, provider }, headers: () => headers };
  }

  function indexer(access: ChainAccess, store: ReadModelStore, settings: Partial<IndexerSettings>) {
    return new Indexer({ chain: access, store, logger: createLogger("silent"), holder: "test", settings });
  }

  /** Every served time stamp of the store against the chain's headers. */
  async function expectHeaderTimes(store: ReadModelStore, holders: string[]): Promise<void> {
    const stamp = async (block: number) => (await ethers.provider.getBlock(block))!.timestamp;
    const events = await store.events({});
    for (const event of events) expect(event.timestamp, `event ${event.id}`).to.equal(await stamp(event.block));
    const queries = new DataQueries(store, { cursorTtlMs: 0 });
    for (const holder of holders) {
      const served = await queries.transactions(holder.toLowerCase(), { limit: 500, offset: 0 });
      expect(served.items.length).to.be.greaterThan(0);
      for (const tx of served.items) expect(tx.timestamp, `${tx.hash}`).to.equal(await stamp(tx.block));
    }
    for (const vault of await store.vaults()) {
      for (const resolution of ["point", "hour", "day"] as const) {
        for (const snapshot of await store.snapshots(vault.address, resolution, 0)) {
          expect(snapshot.timestamp).to.equal(await stamp(snapshot.block));
          const size = { point: 0, hour: HOUR, day: 24 * HOUR }[resolution];
          if (size) expect(snapshot.key).to.equal(snapshot.timestamp - (snapshot.timestamp % size));
        }
      }
    }
  }

  /** Sets the next block's time stamp `before` seconds ahead of the next UTC hour at least a minute away. */
  async function nearNextHour(before: number): Promise<void> {
    const latest = await time.latest();
    await time.setNextBlockTimestamp((Math.floor((latest + 60) / HOUR) + 1) * HOUR - before);
  }

  it("serves each event's block time stamp while reading few headers, and the same read model as reading them all", async function () {
    const { alice, bob } = await users();
    const holders = [await alice.getAddress(), await bob.getAddress()];
    await fund(deployment, alice, 10_000n * 1_000_000n);
    await fund(deployment, bob, 10_000n * 1_000_000n);
    const derived = new MemoryReadModelStore();
    const everyHeader = new MemoryReadModelStore();
    const counted = counting();
    // One batch per step: most of its blocks hold a log, and their time stamps are derived.
    const fast = indexer(counted.chain, derived, { batchBlocks: 10_000, minBlockInterval: 1 });
    // minBlockInterval 0 decides no block between two headers of different times: every block with a log is read.
    const reference = indexer(chain, everyHeader, { batchBlocks: 10_000, minBlockInterval: 0 });
    const both = async () => [await indexUntilCaughtUp(fast), await indexUntilCaughtUp(reference)].flat();
    await both();

    // Blocks a second apart across an hour boundary, a jump of 40 minutes, then across the next boundary.
    const vaults = ["conservative", "moderate", "aggressive", "hedged", "inverse", "configurable"] as const;
    await nearNextHour(7);
    for (const id of vaults) await deposit(deployment, id, alice, 5_000_000n);
    await time.increase(40 * 60);
    for (const id of vaults) await deposit(deployment, id, bob, 7_000_000n);
    await nearNextHour(5);
    for (const id of vaults) await deposit(deployment, id, alice, 3_000_000n);
    const before = counted.headers();
    const from = (await derived.cursor())!.height + 1;
    await both();
    const read = counted.headers() - before;
    const withLogs = new Set((await derived.events({ aboveBlock: from - 1 })).map((event) => event.block)).size;
    expect(withLogs, "an approval's block and a deposit's, eighteen times").to.equal(36);
    expect(read, "headers read for the batch").to.be.lessThan(withLogs);

    // A reorg: the branch above the snapshot is replaced by one whose blocks cross the next hour at other times.
    const fork = await time.latestBlock();
    const snapshot = await takeSnapshot();
    await nearNextHour(1);
    await deposit(deployment, "inverse", alice, 3_000_000n);
    await deposit(deployment, "conservative", bob, 4_000_000n);
    await both();
    expect(await derived.events({ aboveBlock: fork })).to.have.length.greaterThan(0);
    await snapshot.restore();
    await time.increase(HOUR + 17);
    await deposit(deployment, "inverse", bob, 6_000_000n);
    await nearNextHour(2);
    for (const id of vaults) await deposit(deployment, id, alice, 2_000_000n);
    expect(await both()).to.include("reorg");

    await expectHeaderTimes(derived, holders);
    expect(await derived.events({})).to.deep.equal(await everyHeader.events({}));
    expect(await derived.eventLog(0, 100_000)).to.deep.equal(await everyHeader.eventLog(0, 100_000));
    expect(await derived.vaults()).to.deep.equal(await everyHeader.vaults());
    for (const vault of await everyHeader.vaults()) {
      for (const resolution of ["point", "hour", "day"] as const) {
        expect(await derived.snapshots(vault.address, resolution, 0)).to.deep.equal(
          await everyHeader.snapshots(vault.address, resolution, 0),
        );
      }
    }
  });
});
