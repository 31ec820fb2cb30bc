import { expect } from "chai";
import { network } from "hardhat";
import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { ServiceMetrics } from "../../../api/src/observability/metrics";
import { TxEngine } from "../../../api/src/tx";
import type { TxProbe } from "../../../typechain-types";
import { agent, deployProbe, devWallets, fundAgents, hitData, provider } from "../tx/helpers";

/**
 * The engine's figures in the service's metrics: its queue depth while intents are driven, and each drive that ended
 * in an error, by its code.
 */
describe("Ops: the transaction engine's metrics", function () {
  let probe: TxProbe;
  let probeAddress: string;
  let metrics: ServiceMetrics;
  let engine: TxEngine;

  before(async function () {
    probe = await deployProbe();
    probeAddress = (await probe.getAddress()).toLowerCase();
  });

  beforeEach(function () {
    metrics = new ServiceMetrics();
    engine = new TxEngine({
      provider,
      journal: new MemoryTxJournal(),
      wallets: devWallets,
      pollIntervalMs: 20,
      leaseLingerMs: 0,
      observer: metrics.tx,
    });
    metrics.watchQueueDepth(() => engine.queueDepth);
  });

  afterEach(async function () {
    await engine.close();
  });

  const scrape = async () => (await metrics.exposition()).body;

  it("counts a failed intent by its code, and each retry that runs it again (nothing was signed)", async function () {
    await fundAgents(1, "1", 700);
    const fail = () =>
      engine.send({
        wallet: agent(700),
        to: probeAddress,
        data: probe.interface.encodeFunctionData("fail", [7n]),
        kind: "probe.fail",
        intentKey: "metrics-revert",
      });
    const first = await fail().catch((error: { code: string }) => error.code);
    expect(first).to.equal("TX_REVERTED");
    expect(await scrape()).to.include('nap_tx_failures_total{code="TX_REVERTED"} 1');
    // Refused before signing, so the retry with the same key estimates again: a second attempt, a second failure.
    expect(await fail().catch((error: { code: string }) => error.code)).to.equal("TX_REVERTED");
    expect(await scrape()).to.include('nap_tx_failures_total{code="TX_REVERTED"} 2');
  });

  it("reports the intents being driven as the queue depth, and 0 once they are mined", async function () {
    await fundAgents(2, "1", 710);
    // Held in the mempool until mined by hand, so that both intents are in flight when scraped.
    await network.provider.send("evm_setAutomine", [false]);
    try {
      const sends = [710, 711].map((index) =>
        engine.send({
          wallet: agent(index),
          to: probeAddress,
          data: hitData(probe, `depth-${index}`),
          kind: "probe.hit",
        }),
      );
      const deadline = Date.now() + 10_000;
      while (engine.queueDepth < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await scrape()).to.match(/^nap_tx_queue_depth 2$/m);
      // Mines what is already sent; what is sent after is mined at once.
      await network.provider.send("evm_setAutomine", [true]);
      await network.provider.send("evm_mine", []);
      await Promise.all(sends);
    } finally {
      await network.provider.send("evm_setAutomine", [true]);
    }
    expect(await scrape()).to.match(/^nap_tx_queue_depth 0$/m);
    expect(await scrape()).to.not.match(/^nap_tx_failures_total\{/m);
  });
});
