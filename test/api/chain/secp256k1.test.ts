import { createRequire } from "node:module";
import { expect } from "chai";
import fc from "fast-check";
import { SigningKey, hexlify } from "ethers";
import { curve, loadCurve } from "../../../api/src/chain/secp256k1";

/** libsecp256k1 (WebAssembly) as the service uses it, against ethers' curve code. */
describe("secp256k1 (chain/secp256k1.ts)", function () {
  const load = createRequire(__filename);
  // The curve of this thread, and one loaded as the recovery workers load it.
  const curves = [curve, loadCurve(load)];
  const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
  // Private keys: 1 .. n-1.
  const privateKey = fc
    .bigInt({ min: 1n, max: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140n })
    .map((k) => Uint8Array.from(Buffer.from(k.toString(16).padStart(64, "0"), "hex")));

  it("signs exactly as ethers does (RFC 6979, low s) and recovers the signer, on either load (property)", function () {
    fc.assert(
      fc.property(hash, privateKey, (digest, key) => {
        const expected = new SigningKey(key).sign(digest);
        for (const c of curves) {
          const { signature, recoveryId } = c.signRecoverable(digest, key);
          expect(hexlify(signature)).to.equal(expected.r + expected.s.slice(2));
          expect(recoveryId).to.equal(expected.yParity);
          expect(hexlify(c.recover(digest, signature, recoveryId) ?? new Uint8Array())).to.equal(
            SigningKey.computePublicKey(key, false),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it("recovers null, not an exception, from a signature that names no key", function () {
    const zero = new Uint8Array(64);
    const overflow = new Uint8Array(64).fill(0xff);
    for (const c of curves) {
      expect(c.recover(new Uint8Array(32).fill(1), zero, 0)).to.equal(null);
      expect(c.recover(new Uint8Array(32).fill(1), overflow, 1)).to.equal(null);
    }
  });
});
