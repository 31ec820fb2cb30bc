import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, getAddress, hexlify } from "ethers";
import { encodeStringAddressUint, encodeSubmit } from "../../../api/src/chain/calldata";
import { keccakReady } from "../../../api/src/chain/keccak";
import { StrategyRegistryV3__factory } from "../../../typechain-types";

/** What an encoder gives: its bytes, or the message it refused with. */
function outcome(encode: () => string): { data: string } | { error: string } {
  try {
    return { data: encode() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * The encodings of api/src/chain/calldata.ts are ethers' byte for byte: the same data for any input ethers takes, the
 * same refusal (ethers' own message) for any input it refuses.
 */
describe("Calldata encodings (api/src/chain/calldata.ts)", function () {
  before(async function () {
    await keccakReady;
  });

  // Each arbitrary mostly gives values the fast path writes out itself, so that whole encodings take it often.

  /** Text: any graphemes (emoji as surrogate pairs), plus lone surrogates that UTF-8 cannot carry. */
  const text = fc.oneof(
    { arbitrary: fc.string({ unit: "grapheme", maxLength: 300 }), weight: 5 },
    fc.string({ unit: "binary", maxLength: 80 }),
    fc
      .tuple(fc.string({ maxLength: 10 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 10 }))
      .map(([before, unit, after]) => before + String.fromCharCode(unit) + after),
  );
  /** Addresses checksummed, lower case, upper case, with a wrong checksum, or not addresses at all. */
  const address = fc.oneof(
    fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(hexlify(bytes))),
    fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => hexlify(bytes)),
    fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `0x${hexlify(bytes).slice(2).toUpperCase()}`),
    fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => {
      const checksummed = getAddress(hexlify(bytes));
      const flipped = checksummed.replace(/[a-f]/, (letter) => letter.toUpperCase());
      return flipped === checksummed ? checksummed.replace(/[A-F]/, (letter) => letter.toLowerCase()) : flipped;
    }),
    fc.constantFrom("0x1234", "", "not an address", "0X" + "ab".repeat(20)),
  );
  /** Integers that fit a word, that do not (negative, 2^256), and numbers ethers refuses (fractions, unsafe). */
  const uint = fc.oneof(
    { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), weight: 10 },
    { arbitrary: fc.nat(), weight: 10 },
    fc.constantFrom(-1n, 2n ** 256n, -1, 0.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN),
  );
  const bool = fc.oneof(
    { arbitrary: fc.boolean(), weight: 10 },
    fc.constantFrom(0, 1, "", "yes") as fc.Arbitrary<never>,
  );
  const dna = fc.oneof(
    { arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => hexlify(bytes)), weight: 5 },
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${hexlify(bytes).slice(2).toUpperCase()}`),
    fc.uint8Array({ minLength: 0, maxLength: 40 }).map((bytes) => hexlify(bytes)),
    fc.constantFrom("0x" + "0".repeat(63), "not hex", "0x" + "g".repeat(64)),
  );

  it("abi.encode(string, address, uint256) is ethers' AbiCoder, bytes and refusals (property)", function () {
    const coder = AbiCoder.defaultAbiCoder();
    fc.assert(
      fc.property(text, address, uint, (value, account, amount) => {
        expect(outcome(() => encodeStringAddressUint(value, account, amount as bigint))).to.deep.equal(
          outcome(() => coder.encode(["string", "address", "uint256"], [value, account, amount])),
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it("StrategyRegistryV3.submit(name, description, dna, params) is ethers' Interface, bytes and refusals (property)", function () {
    const registry = StrategyRegistryV3__factory.createInterface();
    const params = fc.record({
      maxPositionSizePercent: uint,
      maxLeverage: uint,
      stopLossPercent: uint,
      slippageToleranceBps: uint,
      correlationThreshold: uint,
      velocityLimit: uint,
      flashLoansEnabled: bool,
    });
    fc.assert(
      fc.property(text, text, dna, params, (name, description, dnaValue, risk) => {
        const ours = outcome(() => encodeSubmit(name, description, dnaValue, risk as never));
        expect(ours).to.deep.equal(
          outcome(() => registry.encodeFunctionData("submit", [name, description, dnaValue, risk])),
        );
      }),
      { numRuns: 1_000 },
    );
  });

  it("decodes back to the submission it was given, with the registry's ABI", function () {
    const registry = StrategyRegistryV3__factory.createInterface();
    const risk = {
      maxPositionSizePercent: 10n,
      maxLeverage: 200n,
      stopLossPercent: 500n,
      slippageToleranceBps: 100n,
      correlationThreshold: 70n,
      velocityLimit: 1_000_000n,
      flashLoansEnabled: true,
    };
    const dnaValue = "0x" + "ab".repeat(32);
    const data = encodeSubmit("momentum 🚀", "buys what rose, sells what fell", dnaValue, risk);
    const [name, description, decodedDna, params] = registry.decodeFunctionData("submit", data);
    expect([name, description, decodedDna]).to.deep.equal(["momentum 🚀", "buys what rose, sells what fell", dnaValue]);
    expect(params.toObject()).to.deep.equal(risk);
  });

  it("refuses a number that does not fit in a word with ethers' error", function () {
    expect(() => encodeStringAddressUint("x", getAddress("0x" + "11".repeat(20)), 2n ** 256n)).to.throw(
      "value out-of-bounds",
    );
  });
});
