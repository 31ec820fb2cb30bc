import { createRequire } from "node:module";

/**
 * The secp256k1 operations of the service's hot paths (signing transactions, recovering registration signers), by
 * libsecp256k1: natively through the N-API binding of the `secp256k1` package where it loads (it ships prebuilt
 * binaries for linux-x64, darwin-arm64 and win32-x64), else its WebAssembly build from `tiny-secp256k1`, about three
 * times slower. Both sign with RFC 6979 nonces and low s, byte for byte what ethers gives
 * (test/api/chain/wallets.test.ts, which runs both), and recover the same keys (test/api/chain/recoveryPool.test.ts).
 */
export interface Curve {
  readonly kind: "native" | "webassembly";
  /** A 64-byte compact signature (r, s with low s) of a 32-byte hash, and its recovery id. */
  signRecoverable(hash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number };
  /** The uncompressed public key (65 bytes) that made a compact signature of `hash`, or null. */
  recover(hash: Uint8Array, signature: Uint8Array, recoveryId: number): Uint8Array | null;
}

/** The parts of the `secp256k1` package's API used here. */
interface NativeSecp256k1 {
  ecdsaSign(hash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(signature: Uint8Array, recid: number, hash: Uint8Array, compressed: boolean): Uint8Array;
}

/**
 * The curve, from the modules `load` finds (a `require`). It names nothing from outside its parameter: the signature
 * recovery workers run its source text (chain/recoveryPool.ts). `prefer` "webassembly" skips the native binding.
 */
export function loadCurve(load: (id: string) => unknown, prefer: "native" | "webassembly" = "native"): Curve {
  if (prefer === "native") {
    try {
      // The binding itself: the package's main module silently falls back to a JavaScript implementation.
      const native = load("secp256k1/bindings") as NativeSecp256k1;
      return {
        kind: "native",
        signRecoverable(hash, privateKey) {
          const { signature, recid } = native.ecdsaSign(hash, privateKey);
          return { signature, recoveryId: recid };
        },
        recover(hash, signature, recoveryId) {
          try {
            return native.ecdsaRecover(signature, recoveryId, hash, false);
          } catch {
            return null;
          }
        },
      };
    } catch {
      // No binary for this platform: the WebAssembly build below.
    }
  }
  const wasm = load("tiny-secp256k1") as typeof import("tiny-secp256k1");
  return {
    kind: "webassembly",
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
