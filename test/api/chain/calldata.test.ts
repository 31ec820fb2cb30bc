import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, getAddress, hexlify } from "ethers";
import { encodeStringAddressUint, encodeSubmit } from "../../../api/src/chain/calldata";
import { StrategyRegistryV3__factory } from "../../../typechain-types";

/** The hand-written encodings of api/src/chain/calldata.ts against ethers' ABI coder, byte for byte. */
describe("Calldata encodings (against ethers' ABI coder)", function () {
  const text = fc.string({ unit: "grapheme", maxLength: 300 });
  const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(hexlify(bytes)));
  const uint = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

  it("abi.encode(string, address, uint256) (property)", function () {
    fc.assert(
      fc.property(text, address, uint, (value, account, amount) => {
        expect(encodeStringAddressUint(value, account, amount)).to.equal(
          AbiCoder.defaultAbiCoder().encode(["string", "address", "uint256"], [value, account, amount]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("StrategyRegistryV3.submit(name, description, dna, params) (property)", function () {
    const registry = StrategyRegistryV3__factory.createInterface();
    const params = fc.record({
      maxPositionSizePercent: uint,
      maxLeverage: uint,
      stopLossPercent: uint,
      slippageToleranceBps: uint,
      correlationThreshold: uint,
      velocityLimit: uint,
      flashLoansEnabled: fc.boolean(),
    });
    const dna = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => hexlify(bytes));
    fc.assert(
      fc.property(text, text, dna, params, (name, description, dnaValue, risk) => {
        expect(encodeSubmit(name, description, dnaValue, risk)).to.equal(
          registry.encodeFunctionData("submit", [name, description, dnaValue, risk]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a number that does not fit in a word", function () {
    expect(() => encodeStringAddressUint("x", getAddress("0x" + "11".repeat(20)), 2n ** 256n)).to.throw(RangeError);
  });
});
