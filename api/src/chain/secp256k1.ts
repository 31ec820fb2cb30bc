import { createRequire } from "node:module";

/**
 * The secp256k1 operations of the service's hot paths (signing transactions, recovering registration signers), by
 * libsecp256k1 compiled to WebAssembly (the `tiny-secp256k1` package): RFC 6979 nonces and low s, byte for byte what
 * ethers gives (test/api/chain/secp256k1.test.ts and test/api/chain/wallets.test.ts), in place of
 * ethers' JavaScript curve code on the hot path of every signature. The native N-API binding of the `secp256k1` package is not used: it aborts the
 * process when the signature recovery workers (chain/recoveryPool.ts) are started and stopped while the main thread
 * signs (it fails with `free(): invalid next size`, and `terminate called after throwing an instance of 'Napi::Error'`).
 */
export interface Curve {
  /** A 64-byte compact signature (r, s with low s) of a 32-byte hash, and its recovery id. */
  signRecoverable(hash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number };
  /** The uncompressed public key (65 bytes) that made a compact signature of `hash`, or null. */
  recover(hash: Uint8Array, signature: Uint8Array, recoveryId: number): Uint8Array | null;
}

/**
 * The curve, from the module `load` finds (a `require`). It names nothing from outside its parameter: the signature
 * recovery workers run its source text (chain/recoveryPool.ts).
 */
export function loadCurve(load: (id: string) => unknown): Curve {
  const wasm = load("tiny-secp256k1") as typeof import("tiny-secp256k1");
  return {
    signRecoverable: (hash, privateKey) => wasm.signRecoverable(hash, privateKey),
    recover(hash, signature, recoveryId) {
      try {
        return wasm.recover(hash, signature, recoveryId as 0 | 1 | 2 | 3, false) ?? null;
      } catch {
        return null;
      }
    },
  };
}

/** The curve of this thread. */
export const curve: Curve = loadCurve(createRequire(__filename));
