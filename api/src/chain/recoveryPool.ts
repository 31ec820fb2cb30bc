import { Worker } from "node:worker_threads";
import * as ethers from "ethers";
import { keccak256Bytes } from "./keccak";
import { curve, loadCurve, type Curve } from "./secp256k1";

/**
 * EIP-191 signer recovery, the costliest step of a registration.
 *
 * ethers parses the signature; the public key is recovered by libsecp256k1 (chain/secp256k1.ts, its WebAssembly
 * build) instead of ethers' pure JavaScript curve code (`npm run bench:api` prints both),
 * and both hashes (the EIP-191 digest, the address) are computed by the
 * WebAssembly Keccak of chain/keccak.ts. A property test (test/api/chain/recoveryPool.test.ts) checks that the result
 * equals ethers' `verifyMessage` for valid, altered and malformed signatures alike.
 *
 * A pool of worker threads can take the recovery off the thread that serves HTTP; `size` 0 recovers on the calling
 * thread.
 */

/** The libraries recovery uses, passed in so that one function runs on this thread and in the workers. */
interface RecoveryLibraries {
  ethers: typeof ethers;
  curve: Curve;
  /** keccak256 of bytes, as bytes (chain/keccak.ts). */
  keccak(data: Uint8Array): Uint8Array;
}

/**
 * The address whose key signed `message` (EIP-191 personal_sign), lowercase, or null when `signature` is malformed
 * or recovers no key. The digest is keccak256("\x19Ethereum Signed Message:\n" + length + message); the address is
 * the last 20 bytes of the keccak256 of the uncompressed public key without its 0x04 prefix, taken directly (the key
 * libsecp256k1 returns is valid, and the checksum is for display only).
 * It names nothing from outside its parameters: the workers run its source text.
 */
function recoverWith(libs: RecoveryLibraries, message: string, signature: string): string | null {
  try {
    const parsed = libs.ethers.Signature.from(signature);
    const body = libs.ethers.toUtf8Bytes(message);
    const prefix = libs.ethers.toUtf8Bytes(`\x19Ethereum Signed Message:\n${body.length}`);
    const prefixed = new Uint8Array(prefix.length + body.length);
    prefixed.set(prefix);
    prefixed.set(body, prefix.length);
    const compact = libs.ethers.getBytes(libs.ethers.concat([parsed.r, parsed.s]));
    const publicKey = libs.curve.recover(libs.keccak(prefixed), compact, parsed.yParity);
    return publicKey ? libs.ethers.hexlify(libs.keccak(publicKey.subarray(1)).subarray(12)) : null;
  } catch {
    return null;
  }
}

const LIBRARIES: RecoveryLibraries = { ethers, curve, keccak: keccak256Bytes };

// The worker starts answering once its WebAssembly Keccak is ready; messages sent before wait in its port.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { createKeccak } = require("hash-wasm");
const recoverWith = ${recoverWith.toString()};
const loadCurve = ${loadCurve.toString()};
createKeccak(256).then((hasher) => {
  const keccak = (data) => (hasher.init(), hasher.update(data), hasher.digest("binary"));
  const libs = { ethers: require("ethers"), curve: loadCurve(require), keccak };
  parentPort.on("message", ({ id, message, signature }) => {
    parentPort.postMessage({ id, address: recoverWith(libs, message, signature) });
  });
});
`;

interface Pending {
  resolve(address: string | null): void;
  reject(error: Error): void;
}

/** Recovers the signer (lowercase address) of an EIP-191 message; null when the signature is malformed. */
export type Recover = (message: string, signature: string) => Promise<string | null>;

/** The signer (lowercase address) of an EIP-191 message, recovered on this thread; null when malformed. */
export function recoverSigner(message: string, signature: string): string | null {
  return recoverWith(LIBRARIES, message, signature);
}

export function recoverOnThisThread(message: string, signature: string): Promise<string | null> {
  return Promise.resolve(recoverSigner(message, signature));
}

export class RecoveryPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private turn = 0;

  constructor(size: number) {
    for (let i = 0; i < size; i += 1) {
      // eval: the worker must run under plain Node (no TypeScript loader); its modules resolve from the project.
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
