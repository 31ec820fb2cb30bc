import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, ParamType } from "ethers";
import { decodeLenient } from "../../../api/src/chain/abiText";
import { keccakReady } from "../../../api/src/chain/keccak";
import { plainOf, typeText, valueOf } from "./abiArbitraries";

/** A value as ethers' decoder gives it, or the fact that it refused. */
function outcome(decode: () => readonly unknown[]): { values: unknown[] } | { error: true } {
  try {
    return { values: [...decode()] };
  } catch {
    return { error: true };
  }
}

const elementary = fc.oneof(
  fc.constant("address"),
  fc.constant("bool"),
  fc.integer({ min: 1, max: 32 }).map((bytes) => `uint${bytes * 8}`),
  fc.integer({ min: 1, max: 32 }).map((bytes) => `int${bytes * 8}`),
  fc.integer({ min: 1, max: 32 }).map((bytes) => `bytes${bytes}`),
  fc.constant("uint"),
  fc.constant("int"),
);

/** A 32-byte word: clean values of small types as well as dirty high bits, all zeros and all ones. */
const word = fc.oneof(
  fc.uint8Array({ minLength: 32, maxLength: 32 }),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((low) => new Uint8Array([...new Uint8Array(12), ...low])),
  fc.constantFrom(new Uint8Array(32), new Uint8Array(32).fill(0xff)),
);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("decodeLenient (chain/abiText.ts)", function () {
  before(async function () {
    await keccakReady;
  });

  it("decodes one-word elementary values exactly as ethers' AbiCoder, and refuses what it refuses", function () {
    const coder = AbiCoder.defaultAbiCoder();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(elementary, word), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: -1, max: 2 }),
        fc.boolean(),
        (params, extraWords, upperCase) => {
          const types = params.map(([type]) => ParamType.from(type));
          let body = params.map(([, bytes]) => hex(bytes)).join("");
          // Data a word short (refused), exact, or with trailing words (ignored), in either case of hex digits.
          body = extraWords < 0 ? body.slice(0, 64 * extraWords) : body + "00".repeat(32 * extraWords);
          const data = `0x${upperCase ? body.toUpperCase() : body}`;
          expect(outcome(() => decodeLenient(types, data))).to.deep.equal(outcome(() => coder.decode(types, data)));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("decodes addresses inside arrays and tuples to the same checksummed text as ethers", function () {
    const coder = AbiCoder.defaultAbiCoder();
    const types = [ParamType.from("address[]"), ParamType.from("tuple(address who, string note, uint8 n)")];
    const owners = ["0x52908400098527886e0f7030069857d2e4169ee7", "0x00000000000000000000000000000000000000ff"];
    const data = coder.encode(types, [owners, [owners[0], "hé", 7]]);
    const expected = coder.decode(types, data);
    expect(decodeLenient(types, data)).to.deep.equal([
      [...(expected[0] as string[])],
      { who: expected[1][0] as string, note: "hé", n: 7n },
    ]);
    expect(expected[0][0]).to.equal("0x52908400098527886E0F7030069857D2E4169EE7");
  });

  it("refuses data that is not hex, or an odd number of hex digits, as ethers does", function () {
    const types = [ParamType.from("uint256")];
    expect(outcome(() => decodeLenient(types, `0x${"zz".repeat(32)}`))).to.deep.equal({ error: true });
    expect(outcome(() => decodeLenient(types, `0x${"00".repeat(32)}0`))).to.deep.equal({ error: true });
  });

  /** Parameter lists of any types, with values ethers encodes. */
  const encoded = (options: { strings: boolean }) =>
    fc
      .array(typeText(options), { minLength: 1, maxLength: 4 })
      .map((texts) => texts.map((text) => ParamType.from(text)))
      .chain((types) => fc.tuple(fc.constant(types), fc.tuple(...types.map(valueOf))));

  it("decodes values of any type (tuples, arrays, strings, bytes, nested) exactly as ethers' AbiCoder", function () {
    const coder = AbiCoder.defaultAbiCoder();
    fc.assert(
      fc.property(encoded({ strings: true }), ([types, values]) => {
        const data = coder.encode(types, values);
        const expected = coder.decode(types, data);
        expect(decodeLenient(types, data)).to.deep.equal(types.map((type, i) => plainOf(type, expected[i])));
      }),
      { numRuns: 1_000 },
    );
  });

  it("decodes damaged data (offsets, lengths and counts rewritten, cut short or inside the padding, bytes changed) as ethers, or refuses it as ethers does", function () {
    const coder = AbiCoder.defaultAbiCoder();
    const damage = fc.oneof(
      fc.record({
        kind: fc.constant("word" as const),
        at: fc.nat(),
        value: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      }),
      fc.record({ kind: fc.constant("small" as const), at: fc.nat(), value: fc.nat({ max: 600 }) }),
      fc.record({ kind: fc.constant("byte" as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
      fc.record({ kind: fc.constant("cut" as const), at: fc.nat(), value: fc.constant(0) }),
      fc.record({ kind: fc.constant("trim" as const), at: fc.nat({ max: 40 }), value: fc.constant(0) }),
    );
    fc.assert(
      // Without strings: ethers' own decoder refuses text that is not UTF-8, which decodeLenient reads on purpose.
      fc.property(
        encoded({ strings: false }),
        fc.array(damage, { minLength: 1, maxLength: 3 }),
        ([types, values], damages) => {
          const bytes = [...Buffer.from(coder.encode(types, values).slice(2), "hex")];
          for (const { kind, at, value } of damages) {
            if (bytes.length === 0) break;
            const word = 32 * (at % Math.ceil(bytes.length / 32));
            if (kind === "cut") bytes.length = at % bytes.length;
            else if (kind === "trim") bytes.length = Math.max(0, bytes.length - 1 - at);
            else if (kind === "byte") bytes[at % bytes.length] = Number(value);
            else {
              const replacement = Buffer.from(BigInt(value).toString(16).padStart(64, "0"), "hex");
              for (let i = 0; i < 32 && word + i < bytes.length; i++) bytes[word + i] = replacement[i];
            }
          }
          const data = `0x${Buffer.from(bytes).toString("hex")}`;
          const expected = outcome(() => {
            const decoded = coder.decode(types, data);
            return types.map((type, i) => plainOf(type, decoded[i]));
          });
          expect(outcome(() => decodeLenient(types, data))).to.deep.equal(expected);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
