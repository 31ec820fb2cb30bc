import { expect } from "chai";
import fc from "fast-check";
import { AbiCoder, getAddress, hexlify } from "ethers";
import { encodeStringAddressUint, encodeSubmit } from "../../../api/src/chain/calldata";
import { StrategyRegistryV3__factory } from "../../../typechain-types";

/** The cached encodings of api/src/chain/calldata.ts decode back to their inputs with the contract's ABI. */
describe("Calldata encodings (api/src/chain/calldata.ts)", function () {
  const text = fc.string({ unit: "grapheme", maxLength: 300 });
  const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(hexlify(bytes)));
  const uint = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

  it("abi.encode(string, address, uint256) decodes to its inputs (property)", function () {
    fc.assert(
      fc.property(text, address, uint, (value, account, amount) => {
        const decoded = AbiCoder.defaultAbiCoder().decode(
          ["string", "address", "uint256"],
          encodeStringAddressUint(value, account, amount),
        );
        expect([...decoded]).to.deep.equal([value, account, amount]);
      }),
      { numRuns: 200 },
    );
  });

  it("StrategyRegistryV3.submit(name, description, dna, params) decodes to its inputs (property)", function () {
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
        const data = encodeSubmit(name, description, dnaValue, risk);
        expect(data.slice(0, 10)).to.equal(registry.getFunction("submit").selector);
        const [decodedName, decodedDescription, decodedDna, decodedParams] = registry.decodeFunctionData(
          "submit",
          data,
        );
        expect([decodedName, decodedDescription, decodedDna]).to.deep.equal([name, description, dnaValue]);
        expect(decodedParams.toObject()).to.deep.equal({
          ...risk,
          flashLoansEnabled: risk.flashLoansEnabled,
        });
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a number that does not fit in a word", function () {
    expect(() => encodeStringAddressUint("x", getAddress("0x" + "11".repeat(20)), 2n ** 256n)).to.throw(
      "value out-of-bounds",
    );
  });
});
