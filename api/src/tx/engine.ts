import { randomUUID } from "node:crypto";
import { getAddress, hexlify, isHexString } from "ethers";
import type { RpcProvider } from "../chain";
import { ChainHead, type FeeData } from "../chain/head";
import { keccak256Bytes } from "../chain/keccak";
import {
  estimateGas,
  getBalance,
  getTransactionCount,
  getTransactionReceipt,
  knowsTransaction,
  sendRawTransaction,
  type MinedReceipt,
} from "../chain/rpc/actions";
import { providerJsonRpc, type JsonRpc } from "../chain/rpc/jsonRpc";
import { findRevertData, RevertDecoder } from "../chain/reverts";
import { isInsufficientFunds, isNetworkError, isNonceTooLow, isRevert, shortMessage } from "../chain/rpcErrors";
import { SignerAnswerRefusedError } from "../chain/signers/errors";
import { checkSignedTransaction } from "../chain/signers/signedTransaction";
import { ServerWallets, walletLabel, type WalletRef } from "../chain/wallets";
import { AppError, ChainUnavailableError, type JsonValue } from "../errors";
import {
  errorFromJournal,
  IdempotencyConflictError,
  InsufficientGasError,
  PreviousStepFailedError,
  RETRYABLE_BEFORE_SIGNING,
  toJournal,
  TxPendingError,
  TxRejectedError,
  TxRevertedError,
} from "./errors";
import { stepKey } from "./intentKey";
import { FINAL_STATES, type TxExpectation, type TxJournalEntry, type TxJournalStore } from "./journal";
import { WalletLane, sleep } from "./lane";

/**
 * The transaction engine: the only code of the service that signs. Every onchain operation goes through `send`
 * (or `sendSteps` for operations of several transactions), which
 *   1. records the intent in the journal under its intent key (a retry with the same key joins the first one),
 *   2. checks the call and the wallet's gas before any nonce is used (clear 400s instead of spent gas),
 *   3. takes the wallet's next nonce in the wallet's lane, signs, journals the signed transaction and its hash,
 *      and only then broadcasts it,
 *   4. waits for the receipt and journals the result.
 * `reconcile()` at start-up finishes what a previous process left open: signed transactions are broadcast again
 * (same bytes, same hash), intents that were never signed are signed now. An intent is moved out of "intent" by
 * one conditional update, so it is never signed twice; a signed transaction is only replaced by a new one when its
 * nonce was provably taken by another transaction, so an intent can never be mined twice.
 *
 * Nonces: the engine never signs a nonce the chain has used. A wallet's lane keeps its next nonce while idle (a node
 * that answers the count late cannot move it back), takes the chain's count when that is higher, and when a node
 * still refuses a transaction as "nonce too low" the intent is signed again with the next nonce instead of failing.
 * Every receipt's block is recorded in the chain head, so the service's next reads are made at that block or later.
 */

/** Minimal structured logger (pino's signature). */
export interface TxLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Obstacles before signing that pass by themselves; see #drive. */
const TRANSIENT = new Set(["CHAIN_UNAVAILABLE", "WALLET_BUSY"]);

const silentLogger: TxLogger = { debug() {}, info() {}, warn() {}, error() {} };

export interface TxEngineOptions {
  /** ethers provider of the service's chain (JsonRpcProvider in the service, Hardhat's provider in tests). */
  readonly provider: RpcProvider;
  /** Where the engine's JSON-RPC actions go (the chain access's `rpc`). Default: through `provider`. */
  readonly rpc?: JsonRpc;
  /** The service's chain head: receipts are recorded in it, fees come from it. Default: one of this engine's own. */
  readonly head?: ChainHead;
  /** Journal and lease store (Mongo or memory). */
  readonly journal: TxJournalStore;
  /** The server wallets (must be configured to send; otherwise send throws ServerWalletsNotConfiguredError). */
  readonly wallets: ServerWallets;
  /** Decoder of revert data; defaults to one built from artifacts/contracts. */
  readonly decoder?: RevertDecoder;
  /** Lease holder name of this instance; random by default. */
  readonly instanceId?: string;
  /** Lease time to live (default 15 s); renewed every third of it while the wallet has work. */
  readonly leaseTtlMs?: number;
  /** How long a send waits for a wallet leased by another instance (default 30 s), then WalletBusyError. */
  readonly leaseWaitMs?: number;
  /** How long a wallet's lease is kept after its last transaction settled (default 1 s; 0: released at once). */
  readonly leaseLingerMs?: number;
  /** How long a send waits for its receipt (default 120 s), then TxPendingError (the journal keeps it open). */
  readonly receiptTimeoutMs?: number;
  /** Receipt polling interval (default 200 ms). */
  readonly pollIntervalMs?: number;
  /** Gas limit = estimate × this / 100 (default 120). */
  readonly gasLimitPercent?: number;
  readonly logger?: TxLogger;
  /** Told of retries and failures (the service's metrics); queue depth is read from `queueDepth`. */
  readonly observer?: TxObserver;
}

/** What the engine reports as it happens, for metrics. */
export interface TxObserver {
  /** A transaction broadcast again ("rebroadcast") or signed again with a new nonce ("resign"). */
  retried(reason: "rebroadcast" | "resign"): void;
  /** An intent this engine drove ended in an error, by its code. */
  failed(code: string): void;
}

/** One onchain operation. */
export interface SendRequest {
  /** Which server wallet signs: { kind: "agent", index } or { kind: "relayer" }. */
  readonly wallet: WalletRef;
  readonly to: string;
  readonly data: string;
  /** Wei sent along (default 0). */
  readonly value?: bigint;
  /** Operation name recorded in the journal, e.g. "strategy.submit". */
  readonly kind: string;
  /** From intentKeyFor(requestor, operation, idempotencyKey); random when omitted. */
  readonly intentKey?: string;
  /** Agent id or "system"; stored with the entry. */
  readonly requestor?: string | null;
  /** Caller data stored with the entry and returned with it. */
  readonly meta?: Record<string, JsonValue>;
  /**
   * Transactions with one gas key (to the same address) use the same gas and cannot revert: the caller checked every
   * condition the contract checks. The engine then estimates the first of them and signs the next ones with the
   * largest estimate (or gas used) seen for the key, without asking the node each time. A transaction of the key
   * that fails onchain makes the engine forget the key and estimate again. Without a key, every transaction is
   * estimated, which is also how a revert is caught before a nonce is used.
   */
  readonly gasKey?: string;
}

/** One step of a multi-step operation; its key is `${intentKey}:${step}`. */
export type StepRequest = Omit<SendRequest, "intentKey"> & { readonly step: string };

export interface SendResult {
  readonly hash: string;
  readonly receipt: MinedReceipt;
  readonly journalEntry: TxJournalEntry;
  /** True when this call did not create the intent (a retry, or a concurrent call with the same key). */
  readonly replayed: boolean;
}

export interface ReconcileReport {
  /** Open entries found. */
  readonly open: number;
  readonly mined: number;
  readonly failed: number;
  /** Still open (not mined in time, or held by another instance). */
  readonly pending: number;
}

/** The transaction hash of signed bytes (keccak256, chain/keccak.ts); the bytes are the signer's own hex. */
function hashOf(rawTx: string): string {
  return hexlify(keccak256Bytes(Buffer.from(rawTx.slice(2), "hex")));
}

/** How many times one intent is signed again (its nonce taken each time) before it fails. */
const MAX_RESIGNS = 10;

export class TxEngine {
  readonly instanceId: string;
  readonly #provider: RpcProvider;
  readonly #rpc: JsonRpc;
  readonly #journal: TxJournalStore;
  readonly #wallets: ServerWallets;
  readonly #decoder: RevertDecoder;
  readonly #log: TxLogger;
  readonly #observer: TxObserver | undefined;
  readonly #leaseTtlMs: number;
  readonly #leaseWaitMs: number;
  readonly #leaseLingerMs: number;
  readonly #receiptTimeoutMs: number;
  readonly #pollMs: number;
  readonly #gasPercent: bigint;
  readonly #head: ChainHead;
  readonly #lanes = new Map<string, WalletLane>();
  readonly #inflight = new Map<string, Promise<TxJournalEntry>>();
  #chainId: Promise<number> | null = null;
  #closed = false;

  constructor(options: TxEngineOptions) {
    this.#provider = options.provider;
    this.#rpc = options.rpc ?? providerJsonRpc(options.provider);
    this.#journal = options.journal;
    this.#wallets = options.wallets;
    this.#decoder = options.decoder ?? new RevertDecoder();
    this.#log = options.logger ?? silentLogger;
    this.#observer = options.observer;
    this.instanceId = options.instanceId ?? `tx-${randomUUID()}`;
    this.#leaseTtlMs = options.leaseTtlMs ?? 15_000;
    this.#leaseWaitMs = options.leaseWaitMs ?? 30_000;
    this.#leaseLingerMs = options.leaseLingerMs ?? 1_000;
    this.#receiptTimeoutMs = options.receiptTimeoutMs ?? 120_000;
    this.#pollMs = options.pollIntervalMs ?? 200;
    this.#gasPercent = BigInt(options.gasLimitPercent ?? 120);
    this.#head = options.head ?? new ChainHead(options.provider, { latestTtlMs: 0 });
  }

  /** Whether the engine can sign at all (server wallets configured). */
  get configured(): boolean {
    return this.#wallets.configured;
  }

  /** Intents this process is driving now (accepted or reconciled, not yet final). */
  get queueDepth(): number {
    return this.#inflight.size;
  }

  /** The journal entry of an intent key, or null: lets a route answer a retry before building anything. */
  lookup(intentKey: string): Promise<TxJournalEntry | null> {
    return this.#journal.get(intentKey);
  }

  /**
   * Sends one transaction and waits for its receipt. Resolves when it is mined successfully; rejects with a
   * AppError (InsufficientGasError, TxRevertedError, ChainUnavailableError, WalletBusyError, TxPendingError,
   * TxRejectedError, IdempotencyConflictError, ServerWalletsNotConfiguredError). With the key of an earlier call
   * it signs nothing and returns (or throws) what that call got, waiting for it if it is still running.
   */
  async send(request: SendRequest): Promise<SendResult> {
    const entry = await this.#record(request, request.intentKey ?? `rand:${randomUUID()}`, null);
    const intentKey = entry.entry.intentKey;
    if (request.gasKey) this.#gasKeyOf.set(intentKey, `${entry.entry.to}|${request.gasKey}`);
    try {
      return this.#finish(entry.created, await this.#track(intentKey, () => this.#drive(entry.entry, true)));
    } finally {
      this.#gasKeyOf.delete(intentKey);
    }
  }

  /**
   * Sends several transactions in order, each after the previous one is mined (e.g. approve then deposit). All
   * intents are journaled first, with `${intentKey}:${step}` keys, so a crash between steps is finished by
   * reconcile and a retry with the same key resumes where it stopped. Rejects with the first step's error.
   */
  async sendSteps(intentKey: string | undefined, steps: readonly StepRequest[]): Promise<SendResult[]> {
    const base = intentKey ?? `rand:${randomUUID()}`;
    const recorded: { created: boolean; entry: TxJournalEntry }[] = [];
    let previous: string | null = null;
    for (const step of steps) {
      const key = stepKey(base, step.step);
      recorded.push(await this.#record(step, key, previous));
      previous = key;
    }
    // Every step is driven (each waits for its predecessor), so that all of them reach a final state: a step after
    // a failed one is failed too rather than left open for a later reconcile.
    const outcomes = await Promise.allSettled(
      recorded.map(({ entry }) => this.#track(entry.intentKey, () => this.#drive(entry, true))),
    );
    const firstFailure = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (firstFailure) throw firstFailure.reason;
    return outcomes.map((o, i) =>
      this.#finish(recorded[i].created, (o as PromiseFulfilledResult<TxJournalEntry>).value),
    );
  }

  /**
   * Finishes every open journal entry (start-up, or any time): re-broadcasts signed transactions, signs intents
   * that were never signed, and waits for their receipts. Entries of wallets leased by a live instance are left
   * to it and counted as pending.
   */
  async reconcile(): Promise<ReconcileReport> {
    const open = await this.#journal.listOpen();
    if (!this.#wallets.configured) {
      // Nothing can be signed or re-derived without the mnemonic; the entries wait for a configured start.
      this.#log.warn({ open: open.length }, "tx journal not reconciled: server wallets are not configured");
      return { open: open.length, mined: 0, failed: 0, pending: open.length };
    }
    const outcomes = await Promise.allSettled(
      open.map((entry) => this.#track(entry.intentKey, () => this.#drive(entry))),
    );
    let mined = 0;
    let failed = 0;
    let pending = 0;
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") {
        if (outcome.value.state === "mined" && outcome.value.status === 1) mined++;
        else failed++;
      } else if (
        outcome.reason instanceof AppError &&
        ["TX_PENDING", "WALLET_BUSY", "CHAIN_UNAVAILABLE"].includes(outcome.reason.code)
      ) {
        pending++;
      } else failed++;
    }
    const report = { open: open.length, mined, failed, pending };
    this.#log.info(report, "tx journal reconciled");
    return report;
  }

  /** Stops renewing leases and gives them up. In-flight sends keep their journal entries for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#lanes.values()].map((lane) => lane.close()));
  }

  // ---------------------------------------------------------------------------------------------------------------

  async #record(
    request: SendRequest,
    intentKey: string,
    after: string | null,
  ): Promise<{ created: boolean; entry: TxJournalEntry }> {
    const from = this.#wallets.address(request.wallet).toLowerCase();
    if (!isHexString(request.to, 20)) throw new Error(`internal: ${request.kind} to ${request.to}: not an address`);
    const to = request.to.toLowerCase();
    const value = (request.value ?? 0n).toString();
    const meta = request.meta ?? {};
    const chainId = await this.#getChainId();
    const recorded = await this.#journal.createIntent({
      intentKey,
      wallet: request.wallet,
      from,
      chainId,
      to,
      data: request.data,
      value,
      kind: request.kind,
      requestor: request.requestor ?? null,
      meta,
      after,
    });
    if (recorded.created) return recorded;
    const entry = recorded.entry;
    if (entry.kind !== request.kind || entry.from !== from || entry.chainId !== chainId) {
      throw new IdempotencyConflictError(
        "this Idempotency-Key was already used for a different operation; use a new key for a new operation",
      );
    }
    // Nothing was signed for a failed intent without a hash: a retry may run it again (the agent fixed its gas,
    // or the chain is back). Its latest parameters replace the old ones.
    if (
      entry.state === "failed" &&
      entry.hash === null &&
      entry.error &&
      RETRYABLE_BEFORE_SIGNING.has(entry.error.code)
    ) {
      const reopened = await this.#journal.transition(
        intentKey,
        { states: ["failed"], hash: null },
        { state: "intent", error: null, to, data: request.data, value, meta },
      );
      if (reopened) {
        this.#log.info({ intentKey, kind: entry.kind }, "failed intent reopened by a retry");
        return { created: false, entry: reopened };
      }
      return { created: false, entry: (await this.#journal.get(intentKey)) ?? entry };
    }
    return recorded;
  }

  /** One promise per intent key in this process: concurrent calls with one key share it. */
  #track(intentKey: string, run: () => Promise<TxJournalEntry>): Promise<TxJournalEntry> {
    const existing = this.#inflight.get(intentKey);
    if (existing) return existing;
    const promise = run().finally(() => this.#inflight.delete(intentKey));
    this.#inflight.set(intentKey, promise);
    return promise;
  }

  #finish(created: boolean, entry: TxJournalEntry): SendResult {
    // #drive only resolves with a successfully mined entry; the receipt is attached by #drive.
    const receipt = this.#receipts.get(entry.hash ?? "");
    if (!receipt || entry.hash === null) throw new Error(`internal: no receipt for mined intent ${entry.intentKey}`);
    return { hash: entry.hash, receipt, journalEntry: entry, replayed: !created };
  }

  /** Receipts of recently finished intents, kept briefly so #finish can return them without another round trip. */
  readonly #receipts = new Map<string, MinedReceipt>();
  /** Gas key (`to|key`) of intents sent by this process, by intent key; and the gas known per gas key. */
  readonly #gasKeyOf = new Map<string, string>();
  readonly #gasOf = new Map<string, bigint>();
  /** The estimate under way for a gas key, shared by the transactions of that key that wait for it. */
  readonly #gasEstimating = new Map<string, Promise<bigint>>();

  #rememberReceipt(receipt: MinedReceipt): void {
    this.#receipts.set(receipt.hash, receipt);
    if (this.#receipts.size > 10_000) {
      const oldest = this.#receipts.keys().next().value;
      if (oldest !== undefined) this.#receipts.delete(oldest);
    }
  }

  /**
   * Brings an entry to a final state; resolves with it when mined with status 1, rejects with its error otherwise.
   * `forRequest`: a client is waiting. Then a temporary obstacle before signing (chain unreachable, wallet leased
   * elsewhere) fails the intent, retryable with the same key, since the client was told to retry. Without a client
   * (reconcile, lease take-over) such an intent stays open for the next attempt.
   */
  async #drive(start: TxJournalEntry, forRequest = false): Promise<TxJournalEntry> {
    let entry = start;
    if (entry.after && entry.state === "intent") {
      entry = await this.#awaitPrevious(entry, forRequest);
    }
    const lane = this.#lane(entry.from);
    const driven = lane.busy(async () => {
      for (let round = 0; round < 20; round++) {
        if (FINAL_STATES.includes(entry.state)) return this.#settled(entry);
        if (entry.state === "intent") {
          const current = entry;
          entry = await this.#inLane(lane, current, () =>
            this.#signAndBroadcast(lane, current.intentKey, forRequest),
          ).catch((err: unknown) => this.#failUnsigned(current, err, forRequest));
          continue;
        }
        entry = await this.#awaitReceipt(lane, entry);
      }
      throw new TxRejectedError(`transaction ${entry.intentKey} did not settle after 20 attempts`);
    });
    // An entry final before this drive (a replay) was counted when it failed.
    if (!this.#observer || FINAL_STATES.includes(start.state)) return driven;
    return driven.catch((err: unknown) => {
      this.#observer?.failed(err instanceof AppError ? err.code : "INTERNAL");
      throw err;
    });
  }

  /**
   * Runs `task` in the wallet's lane, but stops waiting for its turn as soon as the journal shows that the entry
   * moved on without us (another instance, holding the wallet's lease, drove it). The queued task still runs when
   * its turn comes, re-reads the journal and finds nothing to do.
   */
  async #inLane(lane: WalletLane, start: TxJournalEntry, task: () => Promise<TxJournalEntry>): Promise<TxJournalEntry> {
    let started = false;
    let done = false;
    const work = lane
      .exclusive(() => {
        started = true;
        return task();
      })
      .finally(() => {
        done = true;
      });
    work.catch(() => undefined);
    const watch = async (): Promise<TxJournalEntry> => {
      // Only tasks of a lane waiting for a lease held elsewhere look at the journal; the rest never poll.
      while (!done) {
        await sleep(2_000);
        if (started || done) return work;
        if (!lane.waitingForLease) continue;
        const fresh = await this.#journal.get(start.intentKey).catch(() => null);
        if (!started && fresh && (fresh.state !== start.state || fresh.hash !== start.hash)) return fresh;
      }
      return work;
    };
    return Promise.race([work, watch()]);
  }

  /**
   * The lane could not start (chain unreachable while reading the nonce, wallet leased elsewhere): nothing was
   * signed, so the intent fails with a retryable error rather than running much later behind the client's back.
   */
  async #failUnsigned(entry: TxJournalEntry, err: unknown, forRequest: boolean): Promise<TxJournalEntry> {
    if (!(err instanceof AppError) || !RETRYABLE_BEFORE_SIGNING.has(err.code)) throw err;
    if (!forRequest && TRANSIENT.has(err.code)) throw err;
    const failed = await this.#journal.transition(
      entry.intentKey,
      { states: ["intent"], hash: null },
      { state: "failed", error: toJournal(err) },
    );
    return failed ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
  }

  async #awaitPrevious(entry: TxJournalEntry, forRequest: boolean): Promise<TxJournalEntry> {
    const previousKey = entry.after as string;
    const previous = await this.#journal.get(previousKey);
    let failure: AppError | null = null;
    if (!previous) failure = new PreviousStepFailedError(`previous step ${previousKey} was never recorded`);
    else {
      try {
        await this.#track(previousKey, () => this.#drive(previous, forRequest));
      } catch (err) {
        failure =
          err instanceof AppError && (err.code === "TX_PENDING" || (!forRequest && TRANSIENT.has(err.code)))
            ? null
            : new PreviousStepFailedError(`not sent because the previous step failed: ${shortMessage(err)}`);
        if (!failure) throw err;
      }
    }
    if (failure) {
      const failed = await this.#journal.transition(
        entry.intentKey,
        { states: ["intent"], hash: null },
        { state: "failed", error: toJournal(failure) },
      );
      return failed ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
    }
    return (await this.#journal.get(entry.intentKey)) as TxJournalEntry;
  }

  /** Final entry → result or its error. */
  async #settled(entry: TxJournalEntry): Promise<TxJournalEntry> {
    if (entry.state === "mined" && entry.status === 1 && entry.hash) {
      if (!this.#receipts.has(entry.hash)) {
        const receipt = await this.#call(() => getTransactionReceipt(this.#rpc, entry.hash as string));
        if (!receipt)
          throw new TxPendingError(`transaction ${entry.hash} is journaled as mined but the node has no receipt`);
        this.#rememberReceipt(receipt);
      }
      return entry;
    }
    if (entry.error) throw errorFromJournal(entry.error);
    throw new TxRejectedError(`transaction ${entry.hash ?? entry.intentKey} failed`);
  }

  #lane(address: string): WalletLane {
    let lane = this.#lanes.get(address);
    if (!lane) {
      lane = new WalletLane(
        address,
        this.#journal,
        this.instanceId,
        this.#leaseTtlMs,
        this.#leaseWaitMs,
        this.#leaseLingerMs,
        (taken) => this.#onLeaseTaken(taken),
        (lost, reason) => this.#log.error({ wallet: lost.address, reason }, "wallet lease lost"),
      );
      this.#lanes.set(address, lane);
    }
    return lane;
  }

  /**
   * With a fresh lease, first put back on the chain what the journal holds as signed for this wallet (a previous
   * holder may have crashed before or after broadcasting), then read the nonce. Open entries nobody in this
   * process is driving are picked up in the background, so that one writer finishes them.
   */
  async #onLeaseTaken(lane: WalletLane): Promise<void> {
    const open = await this.#journal.listOpen(lane.address);
    const signed = open.filter((e) => e.rawTx !== null).sort((a, b) => (a.nonce ?? 0) - (b.nonce ?? 0));
    for (const entry of signed) {
      // Also entries already tracked here (reconcile tracks every open entry before the lease is taken): the same
      // bytes twice are harmless, and a signed transaction missing from the mempool must be back before the
      // nonce is read, or new intents would be signed with its nonce.
      try {
        await sendRawTransaction(this.#rpc, entry.rawTx as string);
      } catch {
        // Already known, already mined, or dead: #awaitReceipt sorts it out when the entry is driven.
      }
    }
    const pendingCount = await this.#call(() => getTransactionCount(this.#rpc, lane.address, "pending"));
    // Never below a nonce the journal holds as signed (a re-broadcast refused for now must not be overtaken), nor
    // below the lane's own count (a node answering from before this lane's last transaction must not move it back).
    const journaled = signed.reduce((max, e) => Math.max(max, (e.nonce ?? -1) + 1), 0);
    lane.nextNonce = Math.max(lane.nextNonce ?? 0, pendingCount, journaled);
    lane.available = null;
    this.#log.debug({ wallet: lane.address, nonce: lane.nextNonce, open: open.length }, "wallet lease taken");
    for (const entry of open) {
      if (this.#inflight.has(entry.intentKey) || this.#closed) continue;
      this.#track(entry.intentKey, () => this.#drive(entry)).catch(() => undefined);
    }
  }

  /** Inside the lane: checks, takes a nonce, signs, journals, broadcasts. Returns the entry as it now stands. */
  async #signAndBroadcast(lane: WalletLane, intentKey: string, forRequest: boolean): Promise<TxJournalEntry> {
    const entry = await this.#journal.get(intentKey);
    if (!entry) throw new Error(`internal: intent ${intentKey} vanished from the journal`);
    if (entry.state !== "intent") return entry;

    let prepared: { gasLimit: bigint; fees: FeeData; cost: bigint };
    try {
      prepared = await this.#preflight(lane, entry);
    } catch (err) {
      if (!(err instanceof AppError) || (!forRequest && TRANSIENT.has(err.code))) throw err;
      const failure = err;
      const failed = await this.#journal.transition(
        intentKey,
        { states: ["intent"], hash: null },
        { state: "failed", error: toJournal(failure) },
      );
      if (failed) this.#log.info({ intentKey, kind: entry.kind, code: failure.code }, "intent refused before signing");
      return failed ?? ((await this.#journal.get(intentKey)) as TxJournalEntry);
    }

    if (lane.nextNonce === null) {
      lane.nextNonce = await this.#call(() => getTransactionCount(this.#rpc, lane.address, "pending"));
    }
    const nonce = lane.nextNonce;
    let rawTx: string;
    try {
      rawTx = await this.#sign(entry, nonce, prepared.gasLimit, prepared.fees);
    } catch (err) {
      if (!(err instanceof SignerAnswerRefusedError)) throw err;
      return this.#refuseSignature(entry, { states: ["intent"], hash: null }, err);
    }
    const hash = hashOf(rawTx);
    // The conditional update is what makes "never sign one intent twice" hold: only the writer that moves the
    // entry out of "intent" may broadcast; a loser drops its signature unsent.
    const signed = await this.#journal.transition(
      intentKey,
      { states: ["intent"], hash: null },
      { state: "signed", nonce, hash, rawTx },
    );
    if (!signed) return (await this.#journal.get(intentKey)) as TxJournalEntry;
    lane.nextNonce = nonce + 1;
    lane.pendingCost.set(hash, prepared.cost);
    if (lane.available !== null) lane.available -= prepared.cost;
    this.#log.debug({ intentKey, kind: entry.kind, wallet: entry.from, nonce, hash }, "transaction signed");
    return this.#broadcast(lane, signed);
  }

  /** Estimates gas (reverts surface here, before any nonce is used) and checks the wallet can pay. */
  async #preflight(
    lane: WalletLane,
    entry: TxJournalEntry,
  ): Promise<{ gasLimit: bigint; fees: FeeData; cost: bigint }> {
    const value = BigInt(entry.value);
    const gasKey = this.#gasKeyOf.get(entry.intentKey);
    let estimate = gasKey === undefined ? undefined : this.#gasOf.get(gasKey);
    if (estimate === undefined && gasKey !== undefined) {
      // Many wallets start with the same shape at once: one estimate serves them all. If it fails (it is another
      // wallet's transaction), each estimates its own.
      estimate = await this.#gasEstimating.get(gasKey)?.catch(() => undefined);
    }
    if (estimate === undefined) {
      // The key's gas is known before the shared estimate is let go, so that no transaction of the key starts
      // another estimate in between.
      const estimating = estimateGas(this.#rpc, { from: entry.from, to: entry.to, data: entry.data, value }).then(
        (gas) => (gasKey === undefined ? gas : (this.#gasOf.set(gasKey, gas), gas)),
      );
      if (gasKey !== undefined && !this.#gasEstimating.has(gasKey)) {
        this.#gasEstimating.set(gasKey, estimating);
        void estimating.then(
          () => this.#gasEstimating.delete(gasKey),
          () => this.#gasEstimating.delete(gasKey),
        );
      }
      try {
        estimate = await estimating;
      } catch (err) {
        throw this.#classify(err, entry);
      }
    }
    const gasLimit = (estimate * this.#gasPercent) / 100n;
    const fees = await this.#head.fees();
    const cost = gasLimit * fees.maxFeePerGas + value;
    if (lane.available === null || lane.available < cost) {
      // At the read block: after a drip this instance saw mined, the balance includes it.
      const block = await this.#head.readBlock();
      const balance = await this.#call(() => getBalance(this.#rpc, entry.from, block));
      const committed = lane.committedWei;
      lane.available = balance - committed;
      if (lane.available < cost) throw InsufficientGasError.create(getAddress(entry.from), balance, cost + committed);
    }
    return { gasLimit, fees, cost };
  }

  async #sign(entry: TxJournalEntry, nonce: number, gasLimit: bigint, fees: FeeData): Promise<string> {
    const address = this.#wallets.address(entry.wallet);
    if (address.toLowerCase() !== entry.from) {
      throw new Error(`internal: ${walletLabel(entry.wallet)} is ${address}, journal says ${entry.from}`);
    }
    const fields = {
      chainId: BigInt(entry.chainId),
      nonce,
      to: entry.to,
      data: entry.data,
      value: BigInt(entry.value),
      gasLimit,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
    const rawTx = await this.#wallets.signTransaction(entry.wallet, fields);
    // A signer in another process is trusted with nothing: its bytes must be this very transaction, by this wallet.
    if (this.#wallets.signsRemotely) checkSignedTransaction(rawTx, fields, entry.from);
    return rawTx;
  }

  /** Fails an entry whose signature was refused (never broadcast): journaled, logged, its nonce left unused. */
  async #refuseSignature(
    entry: TxJournalEntry,
    expected: TxExpectation,
    failure: SignerAnswerRefusedError,
  ): Promise<TxJournalEntry> {
    this.#log.error(
      { intentKey: entry.intentKey, kind: entry.kind, wallet: entry.from, reason: failure.message },
      "signer's answer refused: not broadcast",
    );
    const failed = await this.#journal.transition(entry.intentKey, expected, {
      state: "failed",
      error: toJournal(failure),
    });
    return failed ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
  }

  /**
   * Inside the lane: puts a journaled signed transaction on the chain. When the node refuses it, finds out why:
   * already mined or already pending is fine; a nonce taken by another transaction means this one can never be
   * mined, so it is signed again with a fresh nonce; anything else fails the entry and closes the nonce gap.
   */
  async #broadcast(lane: WalletLane, entry: TxJournalEntry): Promise<TxJournalEntry> {
    const hash = entry.hash as string;
    try {
      await sendRawTransaction(this.#rpc, entry.rawTx as string);
      const moved = await this.#journal.transition(
        entry.intentKey,
        { states: ["signed"], hash },
        { state: "broadcast" },
      );
      return moved ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
    } catch (err) {
      if (isNetworkError(err)) {
        // Unknown whether it reached the node: keep it signed; waiting for the receipt re-broadcasts it.
        this.#log.warn({ intentKey: entry.intentKey, hash }, "broadcast unanswered; will retry");
        return entry;
      }
      return this.#afterRefusal(lane, entry, err);
    }
  }

  async #afterRefusal(lane: WalletLane, entry: TxJournalEntry, err: unknown): Promise<TxJournalEntry> {
    const hash = entry.hash as string;
    const nonce = entry.nonce as number;
    // Order matters: first learn that the nonce is used up by a mined transaction, then that ours has no receipt;
    // the other order could miss ours being mined in between.
    const minedNonce = await this.#call(() => getTransactionCount(this.#rpc, entry.from, "latest"));
    const receipt = await this.#call(() => getTransactionReceipt(this.#rpc, hash));
    if (receipt) return this.#recordReceipt(lane, entry, receipt);
    const pending = await this.#call(() => knowsTransaction(this.#rpc, hash));
    if (pending) {
      const moved = await this.#journal.transition(
        entry.intentKey,
        { states: ["signed"], hash },
        { state: "broadcast" },
      );
      return moved ?? entry;
    }
    if (minedNonce > nonce) return this.#resign(lane, entry, "its nonce was used by another transaction", minedNonce);
    // The node that refused it counts the nonce as used even if the count read above lagged behind it.
    if (isNonceTooLow(err)) return this.#resign(lane, entry, "the node counts its nonce as used", nonce + 1);

    const failure = isInsufficientFunds(err)
      ? InsufficientGasError.create(
          getAddress(entry.from),
          await getBalance(this.#rpc, entry.from, await this.#head.readBlock()),
          lane.pendingCost.get(hash) ?? 0n,
        )
      : new TxRejectedError(`the node refused transaction ${hash}: ${shortMessage(err)}`);
    const failed = await this.#journal.transition(
      entry.intentKey,
      { states: ["signed", "broadcast"], hash },
      { state: "failed", error: toJournal(failure) },
    );
    lane.pendingCost.delete(hash);
    this.#log.warn(
      { intentKey: entry.intentKey, hash, nonce, reason: failure.message },
      "transaction refused by the node",
    );
    await this.#closeGap(lane, entry, nonce);
    return failed ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
  }

  /**
   * Signs an intent again with a new nonce (at least `floor`), replacing a transaction that can no longer be mined.
   */
  async #resign(lane: WalletLane, entry: TxJournalEntry, why: string, floor: number): Promise<TxJournalEntry> {
    const oldHash = entry.hash as string;
    let prepared;
    try {
      if (entry.replacedHashes.length >= MAX_RESIGNS) {
        throw new TxRejectedError(`transaction ${oldHash} could not take a nonce after ${MAX_RESIGNS} signatures`);
      }
      prepared = await this.#preflight(lane, entry);
    } catch (err) {
      const failure = err instanceof AppError ? err : new TxRejectedError(shortMessage(err));
      lane.pendingCost.delete(oldHash);
      const failed = await this.#journal.transition(
        entry.intentKey,
        { states: ["signed", "broadcast"], hash: oldHash },
        { state: "failed", error: toJournal(failure) },
      );
      return failed ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
    }
    if (lane.nextNonce === null) {
      lane.nextNonce = await this.#call(() => getTransactionCount(this.#rpc, lane.address, "pending"));
    }
    const nonce = Math.max(lane.nextNonce, floor);
    let rawTx: string;
    try {
      rawTx = await this.#sign(entry, nonce, prepared.gasLimit, prepared.fees);
    } catch (err) {
      if (!(err instanceof SignerAnswerRefusedError)) throw err;
      lane.pendingCost.delete(oldHash);
      return this.#refuseSignature(entry, { states: ["signed", "broadcast"], hash: oldHash }, err);
    }
    const hash = hashOf(rawTx);
    const resigned = await this.#journal.transition(
      entry.intentKey,
      { states: ["signed", "broadcast"], hash: oldHash },
      { state: "signed", nonce, hash, rawTx, replacedHashes: [...entry.replacedHashes, oldHash] },
    );
    if (!resigned) return (await this.#journal.get(entry.intentKey)) as TxJournalEntry;
    this.#observer?.retried("resign");
    lane.nextNonce = nonce + 1;
    lane.pendingCost.delete(oldHash);
    lane.pendingCost.set(hash, prepared.cost);
    if (lane.available !== null) lane.available -= prepared.cost;
    this.#log.warn({ intentKey: entry.intentKey, oldHash, hash, nonce, why }, "transaction signed again");
    return this.#broadcast(lane, resigned);
  }

  /**
   * A refused transaction leaves its nonce unused. If it was the last one taken, the counter steps back; if later
   * transactions already hold higher nonces, they would wait forever, so a zero-value transfer to self fills it.
   */
  async #closeGap(lane: WalletLane, entry: TxJournalEntry, nonce: number): Promise<void> {
    if (lane.nextNonce === nonce + 1) {
      lane.nextNonce = nonce;
      return;
    }
    const filler = await this.#journal.createIntent({
      intentKey: `filler:${entry.from}:${nonce}:${randomUUID()}`,
      wallet: entry.wallet,
      from: entry.from,
      chainId: entry.chainId,
      to: entry.from,
      data: "0x",
      value: "0",
      kind: "nonce.filler",
      requestor: "system",
      meta: { fills_nonce: nonce, for_intent: entry.intentKey },
      after: null,
    });
    try {
      const fees = await this.#head.fees();
      const rawTx = await this.#sign(filler.entry, nonce, 21_000n, fees);
      if (lane.available !== null) lane.available -= 21_000n * fees.maxFeePerGas;
      const signed = await this.#journal.transition(
        filler.entry.intentKey,
        { states: ["intent"], hash: null },
        { state: "signed", nonce, hash: hashOf(rawTx), rawTx },
      );
      if (signed) {
        await sendRawTransaction(this.#rpc, rawTx);
        this.#log.warn({ wallet: entry.from, nonce }, "nonce gap filled with a transfer to self");
        void this.#track(signed.intentKey, () => this.#drive(signed)).catch(() => undefined);
      }
    } catch (err) {
      lane.resync();
      this.#log.error({ wallet: entry.from, nonce, err: shortMessage(err) }, "could not fill nonce gap");
    }
  }

  /** Outside the lane: polls for the receipt, re-broadcasting when the node has lost the transaction. */
  async #awaitReceipt(lane: WalletLane, start: TxJournalEntry): Promise<TxJournalEntry> {
    let entry = start;
    const deadline = Date.now() + this.#receiptTimeoutMs;
    let lastCheck = 0;
    let unreachable: unknown = null;
    while (Date.now() < deadline) {
      try {
        const receipt = await getTransactionReceipt(this.#rpc, entry.hash as string);
        unreachable = null;
        if (receipt) return this.#recordReceipt(lane, entry, receipt);
        // Not mined yet: every few seconds (and at once for an entry never confirmed as broadcast) make sure the
        // node still has it; if not, broadcast the same bytes again inside the lane.
        if (Date.now() - lastCheck > (entry.state === "signed" ? 1_000 : 3_000)) {
          lastCheck = Date.now();
          const known = entry.state === "broadcast" && (await knowsTransaction(this.#rpc, entry.hash as string));
          if (!known) {
            const current = entry;
            try {
              entry = await this.#inLane(lane, current, async () => {
                const fresh = (await this.#journal.get(current.intentKey)) as TxJournalEntry;
                if (fresh.state !== "signed" && fresh.state !== "broadcast") return fresh;
                this.#observer?.retried("rebroadcast");
                return this.#broadcast(lane, fresh);
              });
            } catch (err) {
              // Another instance holds the wallet: it re-broadcasts; we keep watching the receipt and the journal.
              if (!(err instanceof AppError && err.code === "WALLET_BUSY")) throw err;
              entry = ((await this.#journal.get(current.intentKey)) as TxJournalEntry) ?? current;
            }
            if (FINAL_STATES.includes(entry.state)) return entry;
          }
        }
      } catch (err) {
        if (!isNetworkError(err)) throw err;
        unreachable = err;
      }
      await sleep(this.#pollMs);
    }
    if (unreachable) throw this.#unreachable(unreachable);
    throw new TxPendingError(
      `transaction ${entry.hash} is sent but not mined yet; retry with the same Idempotency-Key to get its result`,
      { hash: entry.hash },
    );
  }

  async #recordReceipt(lane: WalletLane, entry: TxJournalEntry, receipt: MinedReceipt): Promise<TxJournalEntry> {
    const hash = entry.hash as string;
    lane.pendingCost.delete(hash);
    this.#rememberReceipt(receipt);
    this.#head.saw(receipt.blockNumber);
    let error = null;
    const gasKey = this.#gasKeyOf.get(entry.intentKey);
    if (gasKey !== undefined) {
      // A failed transaction of the key may have lacked gas: the next one is estimated again.
      const known = this.#gasOf.get(gasKey);
      if (receipt.status !== 1) this.#gasOf.delete(gasKey);
      else if (known !== undefined && receipt.gasUsed > known) this.#gasOf.set(gasKey, receipt.gasUsed);
    }
    if (receipt.status !== 1) error = toJournal(await this.#explainRevert(entry, receipt.blockNumber));
    const mined = await this.#journal.transition(
      entry.intentKey,
      { states: ["signed", "broadcast"], hash },
      {
        state: "mined",
        blockNumber: receipt.blockNumber,
        gasUsed: receipt.gasUsed.toString(),
        status: receipt.status ?? 0,
        error,
      },
    );
    const final = mined ?? ((await this.#journal.get(entry.intentKey)) as TxJournalEntry);
    if (mined) {
      this.#log.info(
        { intentKey: entry.intentKey, kind: entry.kind, hash, block: receipt.blockNumber, status: receipt.status },
        "transaction mined",
      );
    }
    return final;
  }

  /** Re-runs a transaction that reverted onchain as a call at its block's parent to decode the reason. */
  async #explainRevert(entry: TxJournalEntry, blockNumber: number): Promise<TxRevertedError> {
    try {
      await this.#provider.call({
        from: entry.from,
        to: entry.to,
        data: entry.data,
        value: BigInt(entry.value),
        blockTag: Math.max(0, blockNumber - 1),
      });
    } catch (err) {
      const classified = this.#classify(err, entry);
      if (classified instanceof TxRevertedError) {
        return new TxRevertedError(classified.message, {
          ...classified.details,
          hash: entry.hash,
          block: blockNumber,
        });
      }
    }
    return TxRevertedError.create(null, `transaction ${entry.hash} reverted onchain in block ${blockNumber}`, {
      hash: entry.hash,
      block: blockNumber,
    });
  }

  /** Maps a provider error to the engine's error classes. */
  #classify(err: unknown, entry: TxJournalEntry): AppError {
    if (err instanceof AppError) return err;
    const data = findRevertData(err);
    const decoded = this.#decoder.decode(data);
    if (decoded) return TxRevertedError.create(decoded, this.#decoder.describe(decoded), { to: entry.to });
    if (isNetworkError(err)) return this.#unreachable(err);
    if (isInsufficientFunds(err)) return InsufficientGasError.create(getAddress(entry.from), 0n, BigInt(entry.value));
    if (isRevert(err) || data) {
      const what = data ? `unknown error ${data.slice(0, 10)}` : "reverted without a reason";
      return TxRevertedError.create(null, what, { to: entry.to, ...(data ? { data } : {}) });
    }
    return new TxRejectedError(`the node refused the transaction: ${shortMessage(err)}`);
  }

  /** Runs a provider read, turning transport failures into ChainUnavailableError. */
  async #call<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (isNetworkError(err)) throw this.#unreachable(err);
      throw err;
    }
  }

  #getChainId(): Promise<number> {
    if (!this.#chainId) {
      this.#chainId = this.#call(() => this.#provider.getNetwork()).then((n) => Number(n.chainId));
      this.#chainId.catch(() => (this.#chainId = null));
    }
    return this.#chainId;
  }

  /** A transport failure: logged with its cause (which may name the RPC host), answered without it. */
  #unreachable(cause: unknown): ChainUnavailableError {
    this.#log.warn({ err: shortMessage(cause) }, "chain unreachable");
    return new ChainUnavailableError();
  }
}
