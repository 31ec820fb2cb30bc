import { expect } from "chai";
import { EIP712_VIEWS, ROUTER_FUNCTION, ROUTER_INTERFACE } from "../../../../api/src/usecases/signedWrites/routerAbi";
import { NapRouter__factory, NapVault__factory } from "../../../../typechain-types";

/** The relay's hand-written ABI against the compiled contracts: a renamed field or function fails here, not onchain. */
describe("signed writes: the router and vault calls the relay encodes", function () {
  it("every router function the relay calls has the compiled NapRouter's selector and parameter types", function () {
    const compiled = NapRouter__factory.createInterface();
    const names = [...Object.values(ROUTER_FUNCTION), "nonceUsed"] as const;
    for (const name of names) {
      const ours = ROUTER_INTERFACE.getFunction(name)!;
      const theirs = compiled.getFunction(name)!;
      expect(ours.selector, name).to.equal(theirs.selector);
      expect(ours.format("full"), name).to.equal(theirs.format("full"));
    }
  });

  it("the vault answers the ERC-7741 and ERC-5267 views the checks read", function () {
    const vault = NapVault__factory.createInterface();
    for (const name of ["authorizations", "eip712Domain", "DOMAIN_SEPARATOR"] as const) {
      expect(EIP712_VIEWS.getFunction(name)!.selector, name).to.equal(vault.getFunction(name)!.selector);
    }
  });
});
