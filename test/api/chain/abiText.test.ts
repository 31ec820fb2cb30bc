import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, ParamType } from "ethers";
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

  it("refuses data that is not hex as ethers does", function () {
    const types = [ParamType.from("uint256")];
    const data = `0x${"zz".repeat(32)}`;
    expect(outcome(() => decodeLenient(types, data))).to.deep.equal({ error: true });
  });
});
