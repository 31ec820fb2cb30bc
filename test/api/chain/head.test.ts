import { expect } from "chai";
import { ethers } from "hardhat";
import type { Provider } from "ethers";
import { jsonRpcProvider } from "../../../api/src/chain";
import { ChainHead } from "../../../api/src/chain/head";
import { serveChain } from "../tx/chainServer";

/** The chain head (api/src/chain/head.ts): the block every read is made at, under the read rule. */
describe("ChainHead and the service's provider", function () {
  it("never reads below a block it saw, also while its latest block number is reused", async function () {
    let now = 0;
    const head = new ChainHead(ethers.provider as unknown as Provider, { latestTtlMs: 250, now: () => now });
    const first = await head.readBlock();
    await ethers.provider.send("evm_mine", []);
    expect(await head.readBlock()).to.equal(first, "within the TTL the latest block number is reused");
    head.saw(first + 1);
    expect(await head.readBlock()).to.equal(first + 1);
    head.saw(first - 5);
    expect(head.newestSeen).to.equal(first + 1, "an older block never lowers it");
    now += 250;
    expect(await head.readBlock()).to.equal(await ethers.provider.getBlockNumber());
  });

  it("checks before a write at the node's block of now, not the reused one: a transfer mined elsewhere is seen", async function () {
    const now = 0;
    const head = new ChainHead(ethers.provider as unknown as Provider, { latestTtlMs: 60_000, now: () => now });
    const first = await head.readBlock();
    // Someone else's transfer, mined after the kept latest block number (the rehearsal's operator funding an agent).
    await ethers.provider.send("evm_mine", []);
    expect(await head.readBlock()).to.equal(first, "reads reuse the kept block number");
    expect(await head.checkBlock()).to.equal(first + 1, "a check before a write asks the node");
    expect(await head.readBlock()).to.equal(first + 1, "and later reads never go below it");
  });

  it("shares one block number request among concurrent reads, and one fee request", async function () {
    let blockRequests = 0;
    let feeRequests = 0;
    const counting = new Proxy(ethers.provider, {
      get(target, property, receiver) {
        if (property === "getBlockNumber") return () => (blockRequests++, target.getBlockNumber());
        if (property === "getFeeData") return () => (feeRequests++, target.getFeeData());
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const head = new ChainHead(counting as unknown as Provider, { latestTtlMs: 1_000 });
    const blocks = await Promise.all(Array.from({ length: 10 }, () => head.readBlock()));
    const fees = await Promise.all(Array.from({ length: 10 }, () => head.fees()));
    expect(new Set(blocks).size).to.equal(1);
    expect(blockRequests).to.equal(1);
    expect(feeRequests).to.equal(1);
    expect(fees[0].maxFeePerGas).to.be.greaterThan(0n);
  });

  it("builds a JSON-RPC provider without a hidden answer cache: a nonce read right after a transaction is current", async function () {
    const served = await serveChain();
    const provider = jsonRpcProvider(served.url, 31337);
    try {
      const [sender] = await ethers.getSigners();
      const before = await provider.getTransactionCount(sender.address);
      const blockBefore = await provider.getBlockNumber();
      await (await sender.sendTransaction({ to: sender.address, value: 0n })).wait();
      // Right after: ethers' default provider would answer both from its 250 ms cache.
      expect(await provider.getTransactionCount(sender.address)).to.equal(before + 1);
      expect(await provider.getBlockNumber()).to.equal(blockBefore + 1);
    } finally {
      provider.destroy();
      await served.close();
    }
  });
});
