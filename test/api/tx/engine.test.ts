import { expect } from "chai";
import { ethers, network } from "hardhat";
import { JsonRpcProvider, Network, keccak256 } from "ethers";
import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { ChainUnavailableError } from "../../../api/src/errors";
import {
  TxRevertedError,
  IdempotencyConflictError,
  InsufficientGasError,
  PreviousStepFailedError,
  TxEngine,
  TxRejectedError,
  WalletBusyError,
  intentKeyFor,
  type SendResult,
} from "../../../api/src/tx";
import { ServerWallets, ServerWalletsNotConfiguredError } from "../../../api/src/chain/wallets";
import type { TxProbe } from "../../../typechain-types";
import { agent, deployProbe, devWallets, fundAgents, hitData, provider } from "./helpers";

/** Awaits a rejection and checks its class and that its message contains `part`. */
async function expectRejection(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => Error,
  part: string,
) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "expected a rejection").to.be.instanceOf(type);
  expect((err as Error).message).to.contain(part);
  return err as Error;
}

describe("TxEngine (in-process Hardhat chain, memory journal)", () => {
  let probe: TxProbe;
  let probeAddress: string;
  let journal: MemoryTxJournal;
  let engine: TxEngine;
  // Each test uses its own agent wallets so nonces and balances never mix between tests.
  let nextAgent = 100;
  const takeAgents = (n: number) => {
    const first = nextAgent;
    nextAgent += n;
    return first;
  };

  before(async () => {
    probe = await deployProbe();
    probeAddress = (await probe.getAddress()).toLowerCase();
  });

  beforeEach(() => {
    journal = new MemoryTxJournal();
    engine = new TxEngine({ provider, journal, wallets: devWallets, pollIntervalMs: 20, leaseLingerMs: 0 });
  });

  afterEach(async () => {
    await engine.close();
  });

  const hit = (index: number, tag: string, intentKey?: string) =>
    engine.send({
      wallet: agent(index),
      to: probeAddress,
      data: hitData(probe, tag),
      kind: "probe.hit",
      intentKey,
      requestor: `agent-${index}`,
    });
  const hitsOf = (tag: string) => probe.hits(ethers.id(tag));

  it("signs, broadcasts and journals a transaction through to its receipt", async () => {
    const a = takeAgents(1);
    await fundAgents(1, "1", a);
    const result = await engine.send({
      wallet: agent(a),
      to: probeAddress,
      data: hitData(probe, "one"),
      kind: "probe.hit",
      intentKey: "k-one",
      requestor: "agent-x",
      meta: { note: "first" },
    });
    const from = devWallets.agentAddress(a);
    await expect(await provider.getTransactionReceipt(result.hash))
      .to.emit(probe, "Hit")
      .withArgs(from, ethers.id("one"), 1n);
    expect(result.replayed).to.equal(false);
    expect(result.receipt.hash).to.equal(result.hash);
    expect(result.receipt.status).to.equal(1);
    const entry = result.journalEntry;
    expect(entry).to.deep.include({
      intentKey: "k-one",
      wallet: { kind: "agent", index: a },
      from: from.toLowerCase(),
      to: probeAddress,
      value: "0",
      kind: "probe.hit",
      requestor: "agent-x",
      meta: { note: "first" },
      state: "mined",
      nonce: 0,
      hash: result.hash,
      blockNumber: result.receipt.blockNumber,
      gasUsed: result.receipt.gasUsed.toString(),
      status: 1,
      error: null,
    });
    expect(keccak256(entry.rawTx!)).to.equal(result.hash);
    expect(await journal.get("k-one")).to.deep.equal(entry);
    expect(await journal.getLease(from)).to.equal(null, "lease released once the wallet is idle");
  });

  it("keeps an idle wallet's lease a while: the next transaction reads neither the nonce nor the balance", async () => {
    const a = takeAgents(1);
    await fundAgents(1, "1", a);
    const from = devWallets.agentAddress(a);
    const asked = { eth_getTransactionCount: 0, eth_getBalance: 0 };
    const counting = new Proxy(provider, {
      get(target, prop, receiver) {
        if (prop === "send") {
          return (method: string, params: unknown[]) => {
            if (method === "eth_getTransactionCount" || method === "eth_getBalance") asked[method]++;
            return target.send(method, params);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const lingering = new TxEngine({
      provider: counting,
      journal,
      wallets: devWallets,
      pollIntervalMs: 20,
      leaseLingerMs: 60_000,
    });
    try {
      const send = (tag: string) =>
        lingering.send({ wallet: agent(a), to: probeAddress, data: hitData(probe, tag), kind: "probe.hit" });
      const nonces = [];
      for (const tag of ["linger-1", "linger-2", "linger-3"]) nonces.push((await send(tag)).journalEntry.nonce);
      expect(nonces).to.deep.equal([0, 1, 2]);
      expect(asked).to.deep.equal({ eth_getTransactionCount: 1, eth_getBalance: 1 });
      expect((await journal.getLease(from.toLowerCase()))?.holder).to.equal(lingering.instanceId);
    } finally {
      await lingering.close();
    }
    expect(await journal.getLease(from.toLowerCase())).to.equal(null, "released at shutdown");
  });

  it("estimates gas once per gas key, and for every transaction without one", async () => {
    const a = takeAgents(1);
    await fundAgents(1, "1", a);
    let estimates = 0;
    const counting = new Proxy(provider, {
      get(target, prop, receiver) {
        if (prop === "send") {
          return (method: string, params: unknown[]) => {
            if (method === "eth_estimateGas") estimates++;
            return target.send(method, params);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const keyed = new TxEngine({ provider: counting, journal, wallets: devWallets, pollIntervalMs: 20 });
    try {
      const send = (tag: string, gasKey?: string) =>
        keyed.send({ wallet: agent(a), to: probeAddress, data: hitData(probe, tag), kind: "probe.hit", gasKey });
      const keyedResults = [await send("gas-1", "hit"), await send("gas-2", "hit"), await send("gas-3", "hit")];
      expect(estimates).to.equal(1);
      // One limit for all three: the estimate of the first, plus the engine's margin.
      const limits = await Promise.all(
        keyedResults.map(async (r) => (await provider.getTransaction(r.hash))!.gasLimit),
      );
      expect(new Set(limits).size).to.equal(1);
      await send("gas-4");
      await send("gas-5");
      expect(estimates).to.equal(3);
      expect(await hitsOf("gas-3")).to.equal(1n);
    } finally {
      await keyed.close();
    }
  });

  it("asks the node once for a gas key that many wallets start with at once; a failed estimate is not shared", async () => {
    const a = takeAgents(6);
    await fundAgents(6, "1", a);
    let estimates = 0;
    let failNext = false;
    const counting = new Proxy(provider, {
      get(target, prop, receiver) {
        if (prop === "send") {
          return async (method: string, params: unknown[]) => {
            if (method === "eth_estimateGas") {
              estimates++;
              if (failNext) {
                failNext = false;
                // Answered after the other wallets joined it, as a slow node would.
                await new Promise((resolve) => setTimeout(resolve, 50));
                throw new Error("estimate lost on the way");
              }
            }
            return target.send(method, params);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const keyed = new TxEngine({ provider: counting, journal, wallets: devWallets, pollIntervalMs: 20 });
    try {
      const send = (wallet: number, tag: string, gasKey: string) =>
        keyed.send({ wallet: agent(wallet), to: probeAddress, data: hitData(probe, tag), kind: "probe.hit", gasKey });
      await Promise.all([0, 1, 2].map((i) => send(a + i, `shared-${i}`, "shared")));
      expect(estimates).to.equal(1);

      // The first estimate of a new key fails: its own transaction fails, the others estimate for themselves.
      estimates = 0;
      failNext = true;
      const outcomes = await Promise.allSettled([3, 4, 5].map((i) => send(a + i, `unshared-${i}`, "unshared")));
      const failed = outcomes.flatMap((o, i) => (o.status === "rejected" ? [i] : []));
      expect(failed).to.have.length(1);
      expect((outcomes[failed[0]] as PromiseRejectedResult).reason).to.be.instanceOf(TxRejectedError);
      expect(estimates).to.equal(3);
      for (const i of [3, 4, 5]) expect(await hitsOf(`unshared-${i}`)).to.equal(i - 3 === failed[0] ? 0n : 1n);
    } finally {
      await keyed.close();
    }
  });

  describe("idempotency", () => {
    it("returns the first result for the same key and signs nothing more", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const key = intentKeyFor(`agent-${a}`, "probe.hit", "client-key-1");
      const first = await hit(a, "idem-seq", key);
      const second = await hit(a, "idem-seq", key);
      expect(second.hash).to.equal(first.hash);
      expect(second.replayed).to.equal(true);
      expect(second.receipt.blockNumber).to.equal(first.receipt.blockNumber);
      expect(await hitsOf("idem-seq")).to.equal(1n);
      expect(await provider.getTransactionCount(devWallets.agentAddress(a))).to.equal(1);
    });

    it("sends one transaction for 10 concurrent calls with one key", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const key = intentKeyFor(`agent-${a}`, "probe.hit", "same-key");
      const results = await Promise.all(Array.from({ length: 10 }, () => hit(a, "idem-conc", key)));
      expect(new Set(results.map((r) => r.hash)).size).to.equal(1);
      expect(results.filter((r) => !r.replayed)).to.have.length(1);
      expect(await hitsOf("idem-conc")).to.equal(1n);
      expect(await provider.getTransactionCount(devWallets.agentAddress(a))).to.equal(1);
    });

    it("answers from the journal after a restart without signing again", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const first = await hit(a, "idem-restart", "restart-key");
      await engine.close();
      engine = new TxEngine({ provider, journal, wallets: devWallets, pollIntervalMs: 20, leaseLingerMs: 0 });
      const again = await hit(a, "idem-restart", "restart-key");
      expect(again.hash).to.equal(first.hash);
      expect(again.replayed).to.equal(true);
      expect(again.receipt.blockNumber).to.equal(first.receipt.blockNumber);
      expect(await hitsOf("idem-restart")).to.equal(1n);
    });

    it("refuses a key reused for another operation", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      await hit(a, "idem-conflict", "conflict-key");
      const other = engine.send({
        wallet: agent(a),
        to: probeAddress,
        data: hitData(probe, "x"),
        kind: "probe.other",
        intentKey: "conflict-key",
      });
      await expectRejection(other, IdempotencyConflictError, "already used for a different operation");
    });

    it("derives distinct keys per requestor, operation and client key, and random keys without one", () => {
      const k = intentKeyFor("agent-1", "vault.deposit", "abc");
      expect(k).to.equal(intentKeyFor("agent-1", "vault.deposit", "abc"));
      expect(k).to.match(/^idem:[0-9a-f]{64}$/);
      expect(intentKeyFor("agent-2", "vault.deposit", "abc")).to.not.equal(k);
      expect(intentKeyFor("agent-1", "strategy.submit", "abc")).to.not.equal(k);
      expect(intentKeyFor("agent-1", "vault.deposit", "abd")).to.not.equal(k);
      expect(intentKeyFor("agent-1", "vault.deposit")).to.match(/^rand:/);
      expect(intentKeyFor("agent-1", "vault.deposit")).to.not.equal(intentKeyFor("agent-1", "vault.deposit"));
    });
  });

  it("mines 20 wallets × 10 concurrent transactions each exactly once with contiguous nonces", async () => {
    const first = takeAgents(20);
    await fundAgents(20, "1", first);
    const sends: Promise<SendResult>[] = [];
    for (let w = 0; w < 20; w++) {
      for (let t = 0; t < 10; t++) sends.push(hit(first + w, `burst-${w}-${t}`));
    }
    const results = await Promise.all(sends);
    expect(results.every((r) => r.receipt.status === 1)).to.equal(true);
    expect(new Set(results.map((r) => r.hash)).size).to.equal(200);
    for (let w = 0; w < 20; w++) {
      const address = devWallets.agentAddress(first + w);
      expect(await probe.hitsBy(address)).to.equal(10n);
      expect(await provider.getTransactionCount(address)).to.equal(10);
      const nonces = results
        .filter((r) => r.journalEntry.from === address.toLowerCase())
        .map((r) => r.journalEntry.nonce);
      expect([...nonces].sort((x, y) => x! - y!)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (let t = 0; t < 10; t++) expect(await hitsOf(`burst-${w}-${t}`)).to.equal(1n);
    }
  });

  describe("errors", () => {
    it("decodes a custom error with its values and uses no nonce", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const from = devWallets.agentAddress(a);
      const failing = engine.send({
        wallet: agent(a),
        to: probeAddress,
        data: probe.interface.encodeFunctionData("fail", [7n]),
        kind: "probe.fail",
        intentKey: "revert-key",
      });
      const err = await failing.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(TxRevertedError);
      const revert = err as TxRevertedError;
      expect(revert.code).to.equal("TX_REVERTED");
      expect(revert.message).to.equal(
        `the contract rejected the transaction: TxProbeRejected(sender="${from}", value="7", reason="asked to fail")`,
      );
      expect(revert.revert).to.deep.equal({
        name: "TxProbeRejected",
        signature: "TxProbeRejected(address,uint256,string)",
        selector: probe.interface.getError("TxProbeRejected")!.selector,
        args: { sender: from, value: "7", reason: "asked to fail" },
      });
      expect(await journal.get("revert-key")).to.deep.include({ state: "failed", hash: null, nonce: null });
      expect(await provider.getTransactionCount(from)).to.equal(0);
      // The next transaction of the wallet takes nonce 0: no gap.
      expect((await hit(a, "after-revert")).journalEntry.nonce).to.equal(0);
    });

    it("refuses a wallet without gas with a pointer to the faucet, and runs on a retry once funded", async () => {
      const a = takeAgents(1);
      const from = devWallets.agentAddress(a);
      const err = await hit(a, "no-gas", "gas-key").then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(InsufficientGasError);
      const gas = err as InsufficientGasError;
      expect(gas.code).to.equal("INSUFFICIENT_GAS");
      expect(gas.message).to.match(
        new RegExp(`^wallet ${from} has 0\\.0 ETH but this transaction needs up to [0-9.]+ ETH`),
      );
      expect(gas.message).to.contain("POST /api/v1/agent/faucet");
      expect(gas.details).to.include({ address: from, balance_wei: "0" });
      expect(await journal.get("gas-key")).to.deep.include({ state: "failed", hash: null });
      await fundAgents(1, "1", a);
      const retried = await hit(a, "no-gas", "gas-key");
      expect(retried.journalEntry.state).to.equal("mined");
      expect(await hitsOf("no-gas")).to.equal(1n);
    });

    it("answers 503 ChainUnavailable when the RPC endpoint does not answer", async () => {
      const dead = new JsonRpcProvider("http://127.0.0.1:9", Network.from(31337), { staticNetwork: true });
      const offline = new TxEngine({ provider: dead, journal, wallets: devWallets, pollIntervalMs: 20 });
      try {
        const err = await offline
          .send({
            wallet: agent(takeAgents(1)),
            to: probeAddress,
            data: hitData(probe, "offline"),
            kind: "probe.hit",
            intentKey: "off",
          })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(err).to.be.instanceOf(ChainUnavailableError);
        expect((err as ChainUnavailableError).code).to.equal("CHAIN_UNAVAILABLE");
        expect((err as ChainUnavailableError).retryAfterSeconds).to.equal(5);
        // Never the RPC endpoint or the transport error: those may name the RPC host and port.
        expect((err as Error).message).to.equal("the chain is unreachable; try again later");
        expect(await journal.get("off")).to.deep.include({ state: "failed", hash: null });
      } finally {
        await offline.close();
        dead.destroy();
      }
    });

    it("answers 503 when server wallets are not configured", async () => {
      const bare = new TxEngine({ provider, journal, wallets: new ServerWallets(undefined) });
      expect(bare.configured).to.equal(false);
      await expectRejection(
        bare.send({ wallet: agent(0), to: probeAddress, data: "0x", kind: "probe.hit" }),
        ServerWalletsNotConfiguredError,
        "server wallets are not configured: set SERVER_WALLET_MNEMONIC",
      );
    });

    it("leaves the journal untouched at reconcile when server wallets are not configured", async () => {
      await journal.createIntent({
        intentKey: "unconfigured",
        wallet: agent(0),
        from: devWallets.agentAddress(0),
        chainId: 31337,
        to: probeAddress,
        data: "0x",
        value: "0",
        kind: "probe.hit",
        requestor: null,
        meta: {},
        after: null,
      });
      const bare = new TxEngine({ provider, journal, wallets: new ServerWallets(undefined) });
      expect(await bare.reconcile()).to.deep.equal({ open: 1, mined: 0, failed: 0, pending: 1 });
      expect(await journal.get("unconfigured")).to.deep.include({ state: "intent" });
    });

    it("waits for another instance's lease, then answers WalletBusy (503)", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const from = devWallets.agentAddress(a);
      await journal.acquireLease(from, "someone-else", 60_000);
      const impatient = new TxEngine({ provider, journal, wallets: devWallets, leaseWaitMs: 300 });
      try {
        const started = Date.now();
        const err = await impatient
          .send({ wallet: agent(a), to: probeAddress, data: hitData(probe, "busy"), kind: "probe.hit" })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(err).to.be.instanceOf(WalletBusyError);
        expect((err as WalletBusyError).code).to.equal("WALLET_BUSY");
        expect((err as WalletBusyError).retryAfterSeconds).to.equal(5);
        expect(Date.now() - started).to.be.gte(300);
        expect(await hitsOf("busy")).to.equal(0n);
      } finally {
        await impatient.close();
      }
    });
  });

  describe("multi-step operations", () => {
    it("journals every step first and sends them in order with derived keys", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const steps = ["approve", "deposit"].map((step) => ({
        step,
        wallet: agent(a),
        to: probeAddress,
        data: hitData(probe, `steps-${step}`),
        kind: `probe.${step}`,
      }));
      const [approve, deposit] = await engine.sendSteps("op-1", steps);
      expect(approve.journalEntry.intentKey).to.equal("op-1:approve");
      expect(deposit.journalEntry.intentKey).to.equal("op-1:deposit");
      expect(deposit.journalEntry.after).to.equal("op-1:approve");
      expect(deposit.receipt.blockNumber).to.be.greaterThan(approve.receipt.blockNumber);
      expect([approve.journalEntry.nonce, deposit.journalEntry.nonce]).to.deep.equal([0, 1]);
      const replay = await engine.sendSteps("op-1", steps);
      expect(replay.map((r) => r.hash)).to.deep.equal([approve.hash, deposit.hash]);
      expect(await hitsOf("steps-deposit")).to.equal(1n);
    });

    it("fails the later steps without sending them when an earlier one reverts", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const failing = engine.sendSteps("op-2", [
        {
          step: "approve",
          wallet: agent(a),
          to: probeAddress,
          data: probe.interface.encodeFunctionData("fail", [1n]),
          kind: "probe.fail",
        },
        { step: "deposit", wallet: agent(a), to: probeAddress, data: hitData(probe, "never"), kind: "probe.hit" },
      ]);
      await expectRejection(failing, TxRevertedError, "TxProbeRejected");
      expect(await journal.get("op-2:deposit")).to.deep.include({ state: "failed", hash: null });
      expect((await journal.get("op-2:deposit"))!.error).to.deep.include({ code: "PREVIOUS_STEP_FAILED" });
      const deposit = engine.send({
        wallet: agent(a),
        to: probeAddress,
        data: hitData(probe, "never"),
        kind: "probe.hit",
        intentKey: "op-2:deposit",
      });
      await expectRejection(
        deposit,
        PreviousStepFailedError,
        "not sent because the previous step failed: the contract rejected",
      );
      expect(await journal.get("op-2:deposit")).to.deep.include({ state: "failed", hash: null });
      expect(await hitsOf("never")).to.equal(0n);
    });

    it("resumes a multi-step operation on retry after an earlier step was refused for gas", async () => {
      const a = takeAgents(1);
      const steps = ["approve", "deposit"].map((step) => ({
        step,
        wallet: agent(a),
        to: probeAddress,
        data: hitData(probe, `resume-${step}`),
        kind: `probe.${step}`,
      }));
      await expectRejection(engine.sendSteps("op-3", steps), InsufficientGasError, "POST /api/v1/agent/faucet");
      expect(await journal.get("op-3:deposit")).to.deep.include({ state: "failed", hash: null });
      await fundAgents(1, "1", a);
      const [approve, deposit] = await engine.sendSteps("op-3", steps);
      expect([approve.journalEntry.state, deposit.journalEntry.state]).to.deep.equal(["mined", "mined"]);
      expect(await hitsOf("resume-deposit")).to.equal(1n);
    });
  });

  describe("reconcile", () => {
    it("signs intents a crashed process recorded but never signed", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const from = devWallets.agentAddress(a);
      await journal.createIntent({
        intentKey: "orphan-intent",
        wallet: agent(a),
        from,
        chainId: 31337,
        to: probeAddress,
        data: hitData(probe, "orphan-intent"),
        value: "0",
        kind: "probe.hit",
        requestor: null,
        meta: {},
        after: null,
      });
      expect(await engine.reconcile()).to.deep.equal({ open: 1, mined: 1, failed: 0, pending: 0 });
      expect(await hitsOf("orphan-intent")).to.equal(1n);
      expect(await engine.reconcile()).to.deep.equal({ open: 0, mined: 0, failed: 0, pending: 0 });
    });

    it("keeps intents open when the chain is down at reconcile, and mines them at the next one", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      await journal.createIntent({
        intentKey: "down-at-start",
        wallet: agent(a),
        from: devWallets.agentAddress(a),
        chainId: 31337,
        to: probeAddress,
        data: hitData(probe, "down-at-start"),
        value: "0",
        kind: "probe.hit",
        requestor: null,
        meta: {},
        after: null,
      });
      const dead = new JsonRpcProvider("http://127.0.0.1:9", Network.from(31337), { staticNetwork: true });
      const offline = new TxEngine({ provider: dead, journal, wallets: devWallets });
      try {
        expect(await offline.reconcile()).to.deep.equal({ open: 1, mined: 0, failed: 0, pending: 1 });
      } finally {
        await offline.close();
        dead.destroy();
      }
      expect(await journal.get("down-at-start")).to.deep.include({ state: "intent", error: null });
      expect(await engine.reconcile()).to.deep.equal({ open: 1, mined: 1, failed: 0, pending: 0 });
      expect(await hitsOf("down-at-start")).to.equal(1n);
    });

    it("re-broadcasts the journaled bytes of a transaction signed before a crash (same hash)", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const from = devWallets.agentAddress(a);
      await journal.createIntent({
        intentKey: "orphan-signed",
        wallet: agent(a),
        from,
        chainId: 31337,
        to: probeAddress,
        data: hitData(probe, "orphan-signed"),
        value: "0",
        kind: "probe.hit",
        requestor: null,
        meta: {},
        after: null,
      });
      const fee = await provider.getFeeData();
      const rawTx = devWallets.agentSigner(a).signPopulated({
        chainId: 31337n,
        nonce: 0,
        to: probeAddress,
        data: hitData(probe, "orphan-signed"),
        value: 0n,
        gasLimit: 100_000n,
        maxFeePerGas: fee.maxFeePerGas!,
        maxPriorityFeePerGas: fee.maxPriorityFeePerGas!,
      });
      const hash = keccak256(rawTx);
      await journal.transition("orphan-signed", { states: ["intent"] }, { state: "signed", nonce: 0, hash, rawTx });
      expect(await provider.getTransaction(hash)).to.equal(null);
      expect(await engine.reconcile()).to.deep.equal({ open: 1, mined: 1, failed: 0, pending: 0 });
      expect((await provider.getTransactionReceipt(hash))!.status).to.equal(1);
      expect(await journal.get("orphan-signed")).to.deep.include({ state: "mined", hash, status: 1 });
      expect(await hitsOf("orphan-signed")).to.equal(1n);
    });

    it("signs again, once, an intent whose journaled nonce was taken by another transaction", async () => {
      const a = takeAgents(1);
      await fundAgents(1, "1", a);
      const from = devWallets.agentAddress(a);
      const fee = await provider.getFeeData();
      const sign = (tag: string) =>
        devWallets.agentSigner(a).signPopulated({
          chainId: 31337n,
          nonce: 0,
          to: probeAddress,
          data: hitData(probe, tag),
          value: 0n,
          gasLimit: 100_000n,
          maxFeePerGas: fee.maxFeePerGas!,
          maxPriorityFeePerGas: fee.maxPriorityFeePerGas!,
        });
      await journal.createIntent({
        intentKey: "dead-nonce",
        wallet: agent(a),
        from,
        chainId: 31337,
        to: probeAddress,
        data: hitData(probe, "dead-nonce"),
        value: "0",
        kind: "probe.hit",
        requestor: null,
        meta: {},
        after: null,
      });
      const deadRaw = sign("dead-nonce");
      await journal.transition(
        "dead-nonce",
        { states: ["intent"] },
        { state: "signed", nonce: 0, hash: keccak256(deadRaw), rawTx: deadRaw },
      );
      // Something else took nonce 0 (e.g. a transaction sent outside the engine).
      await provider.broadcastTransaction(sign("intruder"));
      expect(await engine.reconcile()).to.deep.equal({ open: 1, mined: 1, failed: 0, pending: 0 });
      const entry = (await journal.get("dead-nonce"))!;
      expect(entry).to.deep.include({ state: "mined", nonce: 1, replacedHashes: [keccak256(deadRaw)] });
      expect(await hitsOf("dead-nonce")).to.equal(1n);
      expect(await provider.getTransactionReceipt(keccak256(deadRaw))).to.equal(null);
    });
  });

  it("fills the nonce gap left by a refused transaction so that later ones still mine", async () => {
    const a = takeAgents(1);
    await fundAgents(1, "1", a);
    const from = devWallets.agentAddress(a);
    // A node that refuses to take back one particular transaction once it has lost it.
    const refused = new Set<string>();
    const picky = new Proxy(provider, {
      get(target, prop, receiver) {
        if (prop === "send") {
          return async (method: string, params: unknown[]) => {
            const raw = params[0] as string;
            if (method === "eth_sendRawTransaction" && refused.has(keccak256(raw))) {
              throw new Error("rejected: the test node refuses this transaction");
            }
            return (target as unknown as { send(m: string, p: unknown[]): Promise<unknown> }).send(method, params);
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    // B's gas is estimated with A pending; without A, B writes fresh storage slots and needs more than 1.2x that.
    const gapEngine = new TxEngine({
      provider: picky,
      journal,
      wallets: devWallets,
      pollIntervalMs: 50,
      gasLimitPercent: 200,
    });
    await network.provider.send("evm_setAutomine", [false]);
    try {
      const first = gapEngine.send({
        wallet: agent(a),
        to: probeAddress,
        data: hitData(probe, "gap-a"),
        kind: "probe.hit",
        intentKey: "gap-a",
      });
      first.catch(() => undefined);
      const second = gapEngine.send({
        wallet: agent(a),
        to: probeAddress,
        data: hitData(probe, "gap-b"),
        kind: "probe.hit",
        intentKey: "gap-b",
      });
      for (;;) {
        const [ea, eb] = [await journal.get("gap-a"), await journal.get("gap-b")];
        if (ea?.state === "broadcast" && eb?.state === "broadcast") break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const lost = (await journal.get("gap-a"))!;
      expect(lost.nonce).to.equal(0);
      refused.add(lost.hash!);
      await network.provider.send("hardhat_dropTransaction", [lost.hash]);
      await expectRejection(first, TxRejectedError, "the node refused transaction");
      await network.provider.send("evm_setAutomine", [true]);
      await network.provider.send("evm_mine", []);
      const b = await second;
      expect(b.journalEntry.nonce).to.equal(1);
      const filler = (await journal.listByRequestor("system", 10)).find((e) => e.kind === "nonce.filler")!;
      expect(filler).to.deep.include({ from: from.toLowerCase(), to: from.toLowerCase(), nonce: 0, value: "0" });
      expect(filler.meta).to.deep.equal({ fills_nonce: 0, for_intent: "gap-a" });
      expect(await provider.getTransactionCount(from)).to.equal(2);
      expect(await hitsOf("gap-a")).to.equal(0n);
      expect(await hitsOf("gap-b")).to.equal(1n);
    } finally {
      await network.provider.send("evm_setAutomine", [true]);
      await gapEngine.close();
    }
  });

  it("keeps mining when automine is off: waits for the receipt of queued transactions", async () => {
    const a = takeAgents(1);
    await fundAgents(1, "1", a);
    await network.provider.send("evm_setAutomine", [false]);
    await network.provider.send("evm_setIntervalMining", [100]);
    try {
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => hit(a, `interval-${i}`)));
      expect(results.map((r) => r.journalEntry.nonce).sort()).to.deep.equal([0, 1, 2, 3, 4]);
    } finally {
      await network.provider.send("evm_setIntervalMining", [0]);
      await network.provider.send("evm_setAutomine", [true]);
    }
  });
});
