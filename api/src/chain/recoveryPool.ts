import { Worker } from "node:worker_threads";
import { verifyMessage } from "ethers";

/**
 * EIP-191 signer recovery on worker threads. Recovering a secp256k1 signer costs a few milliseconds of CPU in
 * JavaScript, the largest cost of a registration; a pool moves it off the thread that serves HTTP, so on a machine
 * with two cores registrations are bounded by the slower of the two instead of by their sum.
 * `size` 0 recovers on the calling thread.
 */

const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { verifyMessage } = require("ethers");
parentPort.on("message", ({ id, message, signature }) => {
  let address = null;
  try { address = verifyMessage(message, signature); } catch { address = null; }
  parentPort.postMessage({ id, address });
});
`;

interface Pending {
  resolve(address: string | null): void;
  reject(error: Error): void;
}

/** Recovers the signer of an EIP-191 message; null when the signature is malformed. */
export type Recover = (message: string, signature: string) => Promise<string | null>;

export function recoverOnThisThread(message: string, signature: string): Promise<string | null> {
  try {
    return Promise.resolve(verifyMessage(message, signature));
  } catch {
    return Promise.resolve(null);
  }
}

export class RecoveryPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private turn = 0;

  constructor(size: number) {
    for (let i = 0; i < size; i += 1) {
      // eval: the worker must run under plain Node (no TypeScript loader), and `ethers` resolves from the project.
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref();
      worker.on("message", ({ id, address }: { id: number; address: string | null }) => {
        const entry = this.pending.get(id);
        this.pending.delete(id);
        entry?.resolve(address);
      });
      worker.on("error", (error) => {
        for (const entry of this.pending.values()) entry.reject(error);
        this.pending.clear();
      });
      this.workers.push(worker);
    }
  }

  readonly recover: Recover = (message, signature) => {
    if (this.workers.length === 0) return recoverOnThisThread(message, signature);
    const id = this.nextId++;
    const worker = this.workers[this.turn++ % this.workers.length];
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, message, signature });
    });
  };

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
    this.workers.length = 0;
  }
}
