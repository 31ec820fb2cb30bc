import { expect } from "chai";
import fc from "fast-check";
import { getAddress, hexlify, type Interface } from "ethers";
import { addressListCall } from "../../../api/src/indexer/sampler";
import { VaultLens__factory } from "../../../typechain-types";

describe("VaultSampler call data (addressListCall)", function () {
  const lens: Interface = VaultLens__factory.createInterface();

  it("writes the same bytes as ethers' encoder for the lens's address-list functions, any list and letter case", function () {
    const address = fc
      .tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean())
      .map(([bytes, checksummed]) => (checksummed ? getAddress(hexlify(bytes)) : hexlify(bytes)));
    fc.assert(
      fc.property(fc.array(address, { maxLength: 12 }), fc.constantFrom("vaults", "samples"), (list, name) => {
        const fragment = lens.getFunction(name)!;
        expect(addressListCall(fragment.selector, list)).to.equal(lens.encodeFunctionData(fragment, [list]));
      }),
      { numRuns: 300 },
    );
  });
});
