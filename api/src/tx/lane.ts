import type { TxJournalStore } from "./journal";
import { WalletBusyError } from "./errors";

/**
 * One wallet's lane in the engine: a mutex around "pick a nonce, sign, journal, broadcast" so that requests of
 * one wallet take nonces strictly one after another, the nonce counter itself, and the wallet's lease in the
 * store (one writer per wallet across instances). The lease is held while the lane has work (including
 * transactions waiting for their receipt), renewed in the background, and released when the lane goes idle.
 *
 * The nonce counter is kept while the lane is idle: every nonce below it was signed by this lane, so it is a lower
 * bound that no answer of the node can lower. When the lease is taken again the engine raises it to the chain's
 * count if another writer went further meanwhile (engine #onLeaseTaken), never lowers it.
 */
export class WalletLane {
  /** Next nonce to use; null until first read from the chain (and after a resync). */
  nextNonce: number | null = null;
  /** Wei that signed, not yet mined transactions of this lane may still spend (gas at max fee plus value). */
  readonly pendingCost = new Map<string, bigint>();
  /**
   * A lower bound of what the wallet can still spend on new transactions: its balance when last read, less what the
   * transactions pending then and every one signed since may spend at most. Only this lane spends from the wallet
   * and others can only add to it, so while this covers a new transaction the balance need not be read again.
   * Null: read the balance.
   */
  available: bigint | null = null;

  #tail: Promise<unknown> = Promise.resolve();
  #active = 0;
  #lingerTimer: NodeJS.Timeout | null = null;
  #leaseUntil = 0;
  #renewTimer: NodeJS.Timeout | null = null;
  #releasing: Promise<void> = Promise.resolve();

  constructor(
    readonly address: string,
    private readonly journal: TxJournalStore,
    private readonly holder: string,
    private readonly leaseTtlMs: number,
    private readonly leaseWaitMs: number,
    /** How long the lease is kept after the lane goes idle, for the wallet's next transaction (0: released at once). */
    private readonly lingerMs: number,
    private readonly onLeaseTaken: (lane: WalletLane) => Promise<void>,
    private readonly onLeaseLost: (lane: WalletLane, reason: string) => void,
  ) {}

  /** True while this lane waits for a lease another instance holds. */
  waitingForLease = false;

  /** Sum of pendingCost. */
  get committedWei(): bigint {
    let sum = 0n;
    for (const cost of this.pendingCost.values()) sum += cost;
    return sum;
  }

  get idle(): boolean {
    return this.#active === 0;
  }

  /**
   * Marks the lane busy for the duration of `work` (which may run outside the mutex, e.g. waiting for a receipt),
   * so that the lease stays held; releases the lease `lingerMs` after the last piece of work ends, unless new work
   * comes first (an agent's next transaction then needs neither a new lease nor a nonce read).
   */
  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.#active++;
    if (this.#lingerTimer) clearTimeout(this.#lingerTimer);
    this.#lingerTimer = null;
    try {
      return await work();
    } finally {
      this.#active--;
      if (this.#active === 0) {
        if (this.lingerMs <= 0) await this.#release();
        else {
          this.#lingerTimer = setTimeout(() => {
            this.#lingerTimer = null;
            if (this.#active === 0) void this.#release();
          }, this.lingerMs);
          this.#lingerTimer.unref();
        }
      }
    }
  }

  /**
   * Runs `task` alone on this lane (after every task queued before it), holding a valid lease. A queued task keeps
   * the lane busy even if its caller stopped waiting for it, so the lease is always released after it.
   */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(async () => {
      await this.#ensureLease();
      return task();
    });
    // The chain continues whether the task succeeded or not.
    this.#tail = run.catch(() => undefined);
    return this.busy(() => run);
  }

  /** Forgets the nonce (and the spendable balance) so that the next task reads them from the chain again. */
  resync(): void {
    this.nextNonce = null;
    this.available = null;
  }

  async #ensureLease(): Promise<void> {
    // Renew well before expiry: a lease that might lapse during the next sign-and-broadcast is not good enough.
    if (this.#leaseUntil - Date.now() > this.leaseTtlMs / 2) return;
    // A release of this holder still on its way to the store must land before we take the lease again.
    await this.#releasing;
    const deadline = Date.now() + this.leaseWaitMs;
    const hadLease = this.#leaseUntil > Date.now();
    let delay = 25;
    for (;;) {
      const now = Date.now();
      if (await this.journal.acquireLease(this.address, this.holder, this.leaseTtlMs, new Date(now))) {
        this.waitingForLease = false;
        this.#leaseUntil = now + this.leaseTtlMs;
        this.#startRenewing();
        if (!hadLease || this.nextNonce === null) await this.onLeaseTaken(this);
        return;
      }
      this.waitingForLease = true;
      if (Date.now() >= deadline) {
        this.waitingForLease = false;
        throw new WalletBusyError(
          `wallet ${this.address} is busy in another instance of the service; retry with the same Idempotency-Key`,
        );
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 500);
    }
  }

  #startRenewing(): void {
    if (this.#renewTimer) return;
    this.#renewTimer = setInterval(
      () => {
        const now = Date.now();
        this.journal
          .acquireLease(this.address, this.holder, this.leaseTtlMs, new Date(now))
          .then((ok) => {
            if (this.#renewTimer === null || this.#leaseUntil === 0) {
              // The lane went idle, or lost the lease, while this renewal was in flight: do not keep what it got.
              if (ok) this.#releasing = this.journal.releaseLease(this.address, this.holder).catch(() => undefined);
            } else if (ok) this.#leaseUntil = now + this.leaseTtlMs;
            else this.#lost("another instance took the lease");
          })
          .catch((err: unknown) => this.#lost(`lease renewal failed: ${String(err)}`));
      },
      Math.max(50, Math.floor(this.leaseTtlMs / 3)),
    );
    this.#renewTimer.unref();
  }

  #lost(reason: string): void {
    // Stop renewing: the next task takes the lease anew (waiting for the other holder) and then re-reads the
    // journal and the nonce, since the other holder may have signed in between.
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = null;
    if (this.#leaseUntil === 0) return;
    this.#leaseUntil = 0;
    this.available = null;
    this.onLeaseLost(this, reason);
  }

  async #release(): Promise<void> {
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = null;
    if (this.#leaseUntil === 0) return;
    this.#leaseUntil = 0;
    this.#releasing = this.journal.releaseLease(this.address, this.holder).catch(() => undefined);
    await this.#releasing;
  }

  /** Stops renewing and gives the lease up (engine shutdown). */
  async close(): Promise<void> {
    if (this.#lingerTimer) clearTimeout(this.#lingerTimer);
    this.#lingerTimer = null;
    await this.#release();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
