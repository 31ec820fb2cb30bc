import { expect } from "chai";
import fc from "fast-check";
import { Signature, Wallet, getAddress, hexlify, toBeHex, verifyMessage } from "ethers";
import { checksumAddress, keccakReady } from "../../../api/src/chain/keccak";
import { RecoveryPool, recoverOnThisThread, recoverSigner } from "../../../api/src/chain/recoveryPool";

/** Order of the secp256k1 group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** ethers' answer, the reference: the recovered address (lowercase, as the service compares it), or null where ethers throws. */
function ethersSigner(message: string, signature: string): string | null {
  try {
    return verifyMessage(message, signature).toLowerCase();
  } catch {
    return null;
  }
}

const hex32 = (value: bigint) => toBeHex(value, 32).slice(2);
const parts = (sig: string) => ({ r: sig.slice(2, 66), s: sig.slice(66, 130), v: sig.slice(130, 132) });

/** Ways to alter a valid 65-byte signature `0x r s v`, each kept or broken in its own way. */
const alteration: fc.Arbitrary<{ name: string; apply(sig: string): string }> = fc.oneof(
  fc.constant({ name: "untouched", apply: (sig: string) => sig }),
  fc.record({ index: fc.nat(129), digit: fc.integer({ min: 0, max: 15 }) }).map(({ index, digit }) => ({
    name: `digit ${index} set to ${digit.toString(16)}`,
    apply: (sig: string) => sig.slice(0, 2 + index) + digit.toString(16) + sig.slice(3 + index),
  })),
  fc.integer({ min: 0, max: 255 }).map((v) => ({
    name: `v = ${v}`,
    apply: (sig: string) => sig.slice(0, 130) + v.toString(16).padStart(2, "0"),
  })),
  fc.constant({
    name: "high s (n - s), same v",
    apply: (sig: string) => {
      const { r, s, v } = parts(sig);
      return `0x${r}${hex32(N - BigInt("0x" + s))}${v}`;
    },
  }),
  fc.constantFrom(0n, N, N + 1n, 2n ** 256n - 1n).chain((value) =>
    fc.constantFrom("r", "s").map((which) => ({
      name: `${which} = ${value}`,
      apply: (sig: string) => {
        const { r, s, v } = parts(sig);
        return which === "r" ? `0x${hex32(value)}${s}${v}` : `0x${r}${hex32(value)}${v}`;
      },
    })),
  ),
  fc.constant({ name: "EIP-2098 compact", apply: (sig: string) => Signature.from(sig).compactSerialized }),
  fc.nat(140).map((length) => ({ name: `cut to ${length} digits`, apply: (sig: string) => sig.slice(0, 2 + length) })),
  fc.constantFrom("", "0x", "nonsense", "0xzz").map((text) => ({ name: JSON.stringify(text), apply: () => text })),
);

describe("signature recovery", function () {
  before(async function () {
    // The service recovers with the WebAssembly Keccak once it is ready (a moment after start-up).
    await keccakReady;
  });

  it("equals ethers' verifyMessage for valid, altered and malformed signatures (property)", function () {
    const wallets = Array.from({ length: 4 }, () => Wallet.createRandom());
    fc.assert(
      fc.property(
        fc.nat(wallets.length - 1),
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.boolean(),
        alteration,
        (walletIndex, message, checkAnotherMessage, alter) => {
          const signed = wallets[walletIndex].signMessageSync(message);
          const signature = alter.apply(signed);
          const checked = checkAnotherMessage ? message + "!" : message;
          expect(recoverSigner(checked, signature), alter.name).to.equal(ethersSigner(checked, signature));
        },
      ),
      { numRuns: Number(process.env.RECOVERY_PROPERTY_RUNS ?? 400) },
    );
  });

  it("recovers the same signers on worker threads, concurrently, and null for malformed input", async function () {
    const pool = new RecoveryPool(2);
    try {
      const wallets = Array.from({ length: 20 }, () => Wallet.createRandom());
      const signed = await Promise.all(
        wallets.map(async (w, i) => ({ message: `m${i}`, sig: await w.signMessage(`m${i}`) })),
      );
      const recovered = await Promise.all(signed.map(({ message, sig }) => pool.recover(message, sig)));
      expect(recovered).to.deep.equal(wallets.map((w) => w.address.toLowerCase()));
      expect(await recoverOnThisThread(signed[0].message, signed[0].sig)).to.equal(wallets[0].address.toLowerCase());
      expect(await pool.recover("m0", "0x1234")).to.equal(null);
      expect(await recoverOnThisThread("m0", "0x1234")).to.equal(null);
      expect(await pool.recover("other", signed[0].sig)).to.not.equal(wallets[0].address.toLowerCase());
    } finally {
      await pool.close();
    }
  });
});

describe("EIP-55 checksums (api/src/chain/keccak.ts)", function () {
  it("equal ethers' getAddress for any address in any case (property)", async function () {
    await keccakReady;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean(), (bytes, upper) => {
        const address = getAddress(hexlify(bytes));
        const input = upper ? `0x${address.slice(2).toUpperCase()}` : address.toLowerCase();
        expect(checksumAddress(input)).to.equal(address);
      }),
      { numRuns: 500 },
    );
  });
});
