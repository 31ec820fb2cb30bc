import { expect } from "chai";
import { ethers } from "hardhat";
import { JsonRpcProvider, Network } from "ethers";
import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import type { RpcProvider } from "../../../api/src/chain";
import { TxEngine } from "../../../api/src/tx";
import type { TxProbe } from "../../../typechain-types";
import { serveChain } from "./chainServer";
import { agent, DEV_MNEMONIC, deployProbe, devWallets, fundAgents, hitData } from "./helpers";

/**
 * Answers transaction counts from a 250 ms cache, as ethers' JsonRpcProvider does by default (and as a node behind a
 * lagging load balancer would): within that window a count is the answer from before the last block.
 */
function lagging(provider: JsonRpcProvider, windowMs = 250): RpcProvider {
  const kept = new Map<string, { at: number; value: Promise<unknown> }>();
  return new Proxy(provider, {
    get(target, prop, receiver) {
      const count = (address: string, tag: string): Promise<unknown> => {
        const key = `${address.toLowerCase()} ${tag}`;
        const answer = kept.get(key);
        if (answer && Date.now() - answer.at < windowMs) return answer.value;
        const value = target.send("eth_getTransactionCount", [address, tag]).then(Number);
        kept.set(key, { at: Date.now(), value });
        return value;
      };
      // Both ways of asking lag alike: the raw request and ethers' method.
      if (prop === "send") {
        return (method: string, params: unknown[]) =>
          method === "eth_getTransactionCount"
            ? count(params[0] as string, params[1] as string).then((n) => `0x${(n as number).toString(16)}`)
            : target.send(method, params);
      }
      if (prop === "getTransactionCount") return (address: string, tag = "latest") => count(address, String(tag));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as RpcProvider;
}

/**
 * Nonces against a node reached over JSON-RPC whose answers lag behind the chain (above). The engine must never sign
 * a nonce the chain has used, keep a wallet's nonce while the wallet is idle (here the lane gives its lease up at
 * once, so every send takes it again and reads the count), and sign again on "nonce too low" instead of failing.
 */
describe("TxEngine nonces over JSON-RPC (a provider whose answers lag)", function () {
  this.timeout(120_000);

  let served: { url: string; close(): Promise<void> };
  let base: JsonRpcProvider;
  let provider: RpcProvider;
  let probe: TxProbe;
  let probeAddress: string;
  let journal: MemoryTxJournal;
  let engine: TxEngine;
  // Wallets of their own: no other test file signs from these indexes.
  let nextAgent = 9_000;

  before(async function () {
    probe = await deployProbe();
    probeAddress = await probe.getAddress();
    served = await serveChain();
    // Only the lag of `lagging` (nonce counts): ethers' own cache would also make the block of the balance check late.
    base = new JsonRpcProvider(served.url, Network.from(31337), { staticNetwork: true, cacheTimeout: -1 });
    provider = lagging(base);
  });

  after(async function () {
    base?.destroy();
    await served?.close();
  });

  beforeEach(function () {
    journal = new MemoryTxJournal();
    engine = new TxEngine({ provider, journal, wallets: devWallets, pollIntervalMs: 10, leaseLingerMs: 0 });
  });

  afterEach(async function () {
    await engine.close();
  });

  const hit = (index: number, tag: string) =>
    engine.send({ wallet: agent(index), to: probeAddress, data: hitData(probe, tag), kind: "probe.hit" });

  it("keeps an idle wallet's nonce: 20 sends one right after another's receipt each sign the next nonce once", async function () {
    const a = nextAgent++;
    await fundAgents(1, "1", a);
    const start = await ethers.provider.getTransactionCount(devWallets.agentAddress(a));
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const result = await hit(a, `idle-${i}`).then(
        (r) => `nonce ${r.journalEntry.nonce}, signed ${r.journalEntry.replacedHashes.length + 1} time(s)`,
        (e: Error) => `failed: ${e.message}`,
      );
      outcomes.push(result);
    }
    expect(outcomes).to.deep.equal(Array.from({ length: 20 }, (_, i) => `nonce ${start + i}, signed 1 time(s)`));
    expect(await ethers.provider.getTransactionCount(devWallets.agentAddress(a))).to.equal(start + 20);
  });

  it("signs again with a fresh nonce on 'nonce too low' instead of failing, when another sender used the nonce", async function () {
    const a = nextAgent++;
    await fundAgents(1, "1", a);
    const address = devWallets.agentAddress(a);
    const start = await ethers.provider.getTransactionCount(address);
    // A node that keeps answering the counts it gave first, however long the outside transaction below takes.
    const stale = lagging(base, Number.POSITIVE_INFINITY);
    const staleEngine = new TxEngine({ provider: stale, journal, wallets: devWallets, pollIntervalMs: 10 });
    const hitStale = (tag: string) =>
      staleEngine.send({ wallet: agent(a), to: probeAddress, data: hitData(probe, tag), kind: "probe.hit" });
    // The provider has just answered both counts ...
    expect(Number(await stale.send("eth_getTransactionCount", [address, "pending"]))).to.equal(start);
    expect(Number(await stale.send("eth_getTransactionCount", [address, "latest"]))).to.equal(start);
    // ... when a script holding the mnemonic sends from the same wallet, outside the engine.
    const outside = ethers.HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${a}`).connect(
      ethers.provider,
    );
    await (await outside.sendTransaction({ to: address, value: 0n })).wait();

    try {
      const result = await hitStale("after-outside");
      expect(result.journalEntry.nonce).to.equal(start + 1);
      expect(result.journalEntry.replacedHashes).to.have.length(1);
      expect(await probe.hits(ethers.id("after-outside"))).to.equal(1n);
      expect(await ethers.provider.getTransactionCount(address)).to.equal(start + 2);
      // The next one continues from there, never back onto a used nonce.
      expect((await hitStale("after-outside-2")).journalEntry.nonce).to.equal(start + 2);
    } finally {
      await staleEngine.close();
    }
  });
});
