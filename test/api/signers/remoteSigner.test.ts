import { expect } from "chai";
import { inspect } from "node:util";
import { ethers, network } from "hardhat";
import { getAddress, toBeHex, Wallet } from "ethers";
import { AgentWalletUnavailableError, RemoteSignerUnavailableError } from "../../../api/src/chain/signers/errors";
import { ServerWallets } from "../../../api/src/chain/wallets";
import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { TxEngine, TxRejectedError, type TxLogger } from "../../../api/src/tx";
import type { TxProbe } from "../../../typechain-types";
import { ATTACKER, startRemoteSigner, type TestRemoteSigner } from "../../helpers/remoteSigner";
import { agent, deployProbe, hitData, provider } from "../tx/helpers";

/**
 * The engine with a remote signer (REMOTE_SIGNER_URL mode) on the in-process Hardhat chain: the service holds no key;
 * what the signer answers is broadcast only when it is exactly the transaction asked for, by the expected account.
 */

/** Awaits a rejection and returns it (null when the promise resolved). */
async function rejectionOf(promise: Promise<unknown>): Promise<Error | null> {
  return promise.then(
    () => null,
    (error: unknown) => error as Error,
  );
}

/** A TxLogger that keeps what was logged at error level. */
function recordingLogger(): TxLogger & { errors: { obj: object; msg?: string }[] } {
  const errors: { obj: object; msg?: string }[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (obj, msg) => errors.push({ obj, msg }) };
}

describe("Signer boundary: a remote signer over JSON-RPC (engine, in-process Hardhat chain)", () => {
  let probe: TxProbe;
  let probeAddress: string;
  let keys: Wallet[];
  let signer: TestRemoteSigner;
  let wallets: ServerWallets;
  let journal: MemoryTxJournal;
  let logger: ReturnType<typeof recordingLogger>;
  let engine: TxEngine;

  before(async () => {
    probe = await deployProbe();
    probeAddress = (await probe.getAddress()).toLowerCase();
  });

  beforeEach(async () => {
    // Fresh keys for every test: the relayer, then agents 0 and 1.
    keys = [0, 1, 2].map(() => Wallet.createRandom() as unknown as Wallet);
    signer = await startRemoteSigner(keys);
    wallets = new ServerWallets({ mode: "remote", url: signer.url });
    await wallets.open(31337);
    for (const key of keys) {
      await network.provider.send("hardhat_setBalance", [key.address, toBeHex(ethers.parseEther("1"))]);
    }
    journal = new MemoryTxJournal();
    logger = recordingLogger();
    engine = new TxEngine({ provider, journal, wallets, logger, pollIntervalMs: 20, leaseLingerMs: 0 });
  });

  afterEach(async () => {
    await engine.close();
    await signer.close();
  });

  const hit = (tag: string, intentKey: string) =>
    engine.send({ wallet: agent(0), to: probeAddress, data: hitData(probe, tag), kind: "probe.hit", intentKey });

  it("maps the signer's accounts in order (relayer, then agents) and holds no key in the service", async () => {
    expect(wallets.mode).to.equal("remote");
    expect(wallets.relayerAddress()).to.equal(keys[0].address);
    expect(wallets.agentAddress(0)).to.equal(keys[1].address);
    expect(wallets.agentAddress(1)).to.equal(keys[2].address);
    expect(() => wallets.signer(agent(0))).to.throw("internal: a remote signer's keys are not in this process");
    // The signer's URL may carry a token: the wallets never print it.
    for (const printed of [JSON.stringify(wallets), inspect(wallets, { showHidden: true, depth: 10 }), `${wallets}`]) {
      expect(printed).to.not.contain(signer.url);
    }
    expect(() => wallets.agentAddress(2))
      .to.throw(AgentWalletUnavailableError)
      .with.property(
        "message",
        "agent wallet #2 has no key at the service's remote signer, which lists 3 account(s): the first signs for " +
          "the relayer, then one per agent in order; add keys there and restart the service",
      );
    const error = (() => {
      try {
        wallets.agentAddress(2);
      } catch (e) {
        return e as AgentWalletUnavailableError;
      }
    })();
    expect(error?.code).to.equal("NOT_CONFIGURED");
    expect(error?.details).to.deep.equal({ agent_index: 2, signer_accounts: 3 });
  });

  it("signs through the remote signer and mines: exactly the fields asked, from the agent's account", async () => {
    const result = await hit("remote-ok", "remote-ok");
    expect(result.receipt.status).to.equal(1);
    expect(await probe.hits(ethers.id("remote-ok"))).to.equal(1n);
    const tx = await ethers.provider.getTransaction(result.hash);
    expect(tx?.from).to.equal(keys[1].address);
    expect(signer.signRequests).to.have.length(1);
    expect(signer.signRequests[0]).to.deep.include({
      from: keys[1].address,
      to: probeAddress,
      data: hitData(probe, "remote-ok"),
      value: "0x0",
      nonce: "0x0",
      chainId: "0x7a69",
      type: "0x2",
    });
  });

  for (const [behaviour, title, message] of [
    [
      "other-transaction",
      "a remote signer that signs another transaction is refused before broadcast",
      "the signer answered with a signature of another transaction (to differ): not broadcast",
    ],
    [
      "other-chain",
      "a remote signer that signs for another chain is refused before broadcast",
      "the signer answered with a signature of another transaction (chainId differ): not broadcast",
    ],
    ["wrong-key", "a remote signer that signs with another key is refused before broadcast", "not by the wallet"],
    [
      "refuse",
      "a remote signer that declines fails the intent without broadcast",
      "the service's signer refused eth_signTransaction: request denied",
    ],
  ] as const) {
    it(title, async () => {
      signer.behaviour = behaviour;
      const blockBefore = await ethers.provider.getBlockNumber();
      const error = await rejectionOf(hit(`refused-${behaviour}`, `refused-${behaviour}`));
      expect(error).to.be.instanceOf(TxRejectedError);
      expect(error?.message).to.contain(message);
      // Journaled as failed, never signed into the journal, nothing on the chain, the nonce left unused.
      const entry = await journal.get(`refused-${behaviour}`);
      expect(entry).to.deep.include({ state: "failed", hash: null, rawTx: null, nonce: null });
      expect(entry?.error?.code).to.equal("TX_REJECTED");
      expect(entry?.error?.message).to.contain(message);
      expect(await ethers.provider.getBlockNumber()).to.equal(blockBefore);
      expect(await ethers.provider.getTransactionCount(keys[1].address, "pending")).to.equal(0);
      expect(await probe.hits(ethers.id(`refused-${behaviour}`))).to.equal(0n);
      expect(logger.errors.map((e) => e.msg)).to.deep.equal(["signer's answer refused: not broadcast"]);
      expect(logger.errors[0].obj).to.deep.include({ intentKey: `refused-${behaviour}`, kind: "probe.hit" });
      // A retry with the same key answers the same refusal without asking the signer again.
      const asked = signer.signRequests.length;
      const again = await rejectionOf(hit(`refused-${behaviour}`, `refused-${behaviour}`));
      expect(again?.message).to.equal(error?.message);
      expect(signer.signRequests).to.have.length(asked);
      // The wallet goes on: the next transaction takes the nonce the refused one never used.
      signer.behaviour = "honest";
      const next = await hit(`after-${behaviour}`, `after-${behaviour}`);
      expect(next.receipt.status).to.equal(1);
      expect((await ethers.provider.getTransaction(next.hash))?.nonce).to.equal(0);
    });
  }

  it("names the signer's other account when it signs with it (wrong-key details)", async () => {
    signer.behaviour = "wrong-key";
    const error = await rejectionOf(hit("wrong-key-details", "wrong-key-details"));
    const entry = await journal.get("wrong-key-details");
    expect(entry?.error?.details).to.deep.include({ reason: "other_signer", expected: keys[1].address });
    expect(error?.message).to.match(
      new RegExp(`^the signer answered with a signature by 0x[0-9a-fA-F]{40}, not by the wallet ${keys[1].address}`),
    );
    expect(getAddress((entry?.error?.details as { signer: string }).signer)).to.not.equal(keys[1].address);
  });

  it("never sends the attacker's transfer: the redirected signature is not on the chain", async () => {
    signer.behaviour = "other-transaction";
    await rejectionOf(hit("redirect", "redirect"));
    expect(await ethers.provider.getTransactionCount(keys[1].address, "latest")).to.equal(0);
    const latest = await ethers.provider.getBlock("latest", true);
    expect(latest?.prefetchedTransactions.filter((t) => t.to === ATTACKER)).to.deep.equal([]);
  });

  it("an unreachable remote signer answers 503 and leaves the intent for a retry with the same key", async () => {
    await signer.close();
    const error = await rejectionOf(hit("unreachable", "unreachable"));
    expect(error).to.be.instanceOf(RemoteSignerUnavailableError);
    expect(error?.message).to.equal(
      "the service's signer is unreachable; try again shortly with the same Idempotency-Key",
    );
    expect((error as RemoteSignerUnavailableError).code).to.equal("UNAVAILABLE");
    expect(await journal.get("unreachable")).to.deep.include({ state: "intent", hash: null });
    expect(error?.message).to.not.contain(signer.url);
    // Back again (same keys, same port is not needed: a new engine on a new signer URL reconciles the intent).
    signer = await startRemoteSigner(keys);
    const back = new ServerWallets({ mode: "remote", url: signer.url });
    await back.open(31337);
    const resumed = new TxEngine({ provider, journal, wallets: back, pollIntervalMs: 20, leaseLingerMs: 0 });
    try {
      expect(await resumed.reconcile()).to.deep.equal({ open: 1, mined: 1, failed: 0, pending: 0 });
      expect(await probe.hits(ethers.id("unreachable"))).to.equal(1n);
    } finally {
      await resumed.close();
    }
  });
});
