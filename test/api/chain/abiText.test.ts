import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, ParamType, getBytes, hexlify } from "ethers";
import { decodeLenient } from "../../../api/src/chain/abiText";
import { keccakReady } from "../../../api/src/chain/keccak";

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

  it("decodes strings, bytes and tuples of words as ethers does, in any layout, and refuses what it refuses (property)", function () {
    const coder = AbiCoder.defaultAbiCoder();
    const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
    /** Type text and a value for it: elementary words, strings, bytes, and tuples of words. */
    const wordValue = (type: string): fc.Arbitrary<{ type: string; value: unknown }> => {
      const number = /^(u?)int(\d*)$/.exec(type);
      const fixed = /^bytes(\d+)$/.exec(type);
      let value: fc.Arbitrary<unknown>;
      if (type === "address") value = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => hexlify(b));
      else if (type === "bool") value = fc.boolean();
      else if (fixed) value = fc.uint8Array({ minLength: +fixed[1], maxLength: +fixed[1] }).map((b) => hexlify(b));
      else {
        const bits = BigInt(number![2] || 256);
        value = number![1]
          ? fc.bigInt({ min: 0n, max: 2n ** bits - 1n })
          : fc.bigInt({ min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n });
      }
      return value.map((v) => ({ type, value: v }));
    };
    const param: fc.Arbitrary<{ type: string; value: unknown }> = fc.oneof(
      elementary.chain(wordValue),
      fc.string({ unit: "grapheme", maxLength: 80 }).map((value) => ({ type: "string", value })),
      fc.uint8Array({ maxLength: 80 }).map((bytes) => ({ type: "bytes", value: hexlify(bytes) })),
      fc.array(elementary.chain(wordValue), { minLength: 1, maxLength: 4 }).map((items) => ({
        type: `tuple(${items.map((item, i) => `${item.type} f${i}`).join(",")})`,
        value: items.map((item) => item.value),
      })),
    );
    /** What ethers reads, with text read leniently from its bytes and tuples as plain objects. */
    const reference = (types: ParamType[], data: string) => {
      const asBytes = types.map((type) => ParamType.from(type.format("full").replace(/^string\b/, "bytes")));
      return coder.decode(asBytes, data).map((value, i) => {
        const type = types[i];
        if (type.type === "string") return utf8.decode(getBytes(value as string));
        if (type.isTuple()) {
          return Object.fromEntries(type.components.map((component, j) => [component.name, (value as unknown[])[j]]));
        }
        return value;
      });
    };
    fc.assert(
      fc.property(
        fc.array(param, { minLength: 1, maxLength: 5 }),
        // How the data is spoilt: not at all, a few bytes cut off, trailing words, a word overwritten, upper case.
        fc.record({
          cut: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 70 })),
          extraWords: fc.nat(2),
          overwrite: fc.option(fc.tuple(fc.nat(40), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }))),
          upperCase: fc.boolean(),
        }),
        (params, spoil) => {
          const types = params.map((p) => ParamType.from(p.type));
          let body =
            coder
              .encode(
                types,
                params.map((p) => p.value),
              )
              .slice(2) + "00".repeat(32 * spoil.extraWords);
          if (spoil.overwrite) {
            const [index, value] = spoil.overwrite;
            const at = 64 * (index % (body.length / 64));
            body = body.slice(0, at) + value.toString(16).padStart(64, "0") + body.slice(at + 64);
          }
          body = body.slice(0, body.length - 2 * spoil.cut);
          const data = `0x${spoil.upperCase ? body.toUpperCase() : body}`;
          expect(outcome(() => decodeLenient(types, data))).to.deep.equal(outcome(() => reference(types, data)));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("refuses data that is not hex as ethers does", function () {
    const types = [ParamType.from("uint256")];
    const data = `0x${"zz".repeat(32)}`;
    expect(outcome(() => decodeLenient(types, data))).to.deep.equal({ error: true });
  });
});
