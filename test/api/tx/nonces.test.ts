import { expect } from "chai";
import { ethers } from "hardhat";
import { JsonRpcProvider, Network } from "ethers";
import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { TxEngine } from "../../../api/src/tx";
import type { TxProbe } from "../../../typechain-types";
import { serveChain } from "./chainServer";
import { agent, DEV_MNEMONIC, deployProbe, devWallets, fundAgents, hitData } from "./helpers";

/**
 * Nonces against a node reached over JSON-RPC whose answers may lag behind the chain: here ethers' JsonRpcProvider
 * with its default 250 ms answer cache, which returns the transaction count (and block number) from before the last
 * block to anyone asking again within that window. The engine must never sign a nonce the chain has used, keep a
 * wallet's nonce while the wallet is idle, and sign again on "nonce too low" instead of failing the request.
 */
describe("TxEngine nonces over JSON-RPC (a provider whose answers lag)", function () {
  this.timeout(120_000);

  let served: { url: string; close(): Promise<void> };
  let lagging: JsonRpcProvider;
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
    // ethers' defaults: identical requests within 250 ms are answered from the provider's cache.
    lagging = new JsonRpcProvider(served.url, Network.from(31337), { staticNetwork: true });
  });

  after(async function () {
    lagging?.destroy();
    await served?.close();
  });

  beforeEach(function () {
    journal = new MemoryTxJournal();
    engine = new TxEngine({ provider: lagging, journal, wallets: devWallets, pollIntervalMs: 10 });
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
    // The provider has just answered both counts ...
    expect(await lagging.getTransactionCount(address, "pending")).to.equal(start);
    expect(await lagging.getTransactionCount(address, "latest")).to.equal(start);
    // ... when a script holding the mnemonic sends from the same wallet, outside the engine.
    const outside = ethers.HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${a}`).connect(
      ethers.provider,
    );
    await (await outside.sendTransaction({ to: address, value: 0n })).wait();

    const result = await hit(a, "after-outside");
    expect(result.journalEntry.nonce).to.equal(start + 1);
    expect(result.journalEntry.replacedHashes).to.have.length(1);
    expect(await probe.hits(ethers.id("after-outside"))).to.equal(1n);
    expect(await ethers.provider.getTransactionCount(address)).to.equal(start + 2);
    // The next one continues from there, never back onto a used nonce.
    expect((await hit(a, "after-outside-2")).journalEntry.nonce).to.equal(start + 2);
  });
});
