import { expect } from "chai";
import { AbiCoder, id } from "ethers";
import { ethers } from "hardhat";
import { findRevertData, loadErrorFragments, RevertDecoder } from "../../../api/src/chain/reverts";

describe("RevertDecoder", () => {
  const decoder = new RevertDecoder();
  const coder = AbiCoder.defaultAbiCoder();
  const selector = (signature: string) => id(signature).slice(0, 10);

  it("knows the custom errors of every compiled project contract", () => {
    const names = loadErrorFragments().map((f) => f.name);
    expect(names).to.include.members(["TestUSDCZeroRecipient", "TestUSDCZeroAmount", "TxProbeRejected"]);
    // OpenZeppelin errors come in with the contracts that use them.
    expect(names).to.include("AccessControlUnauthorizedAccount");
    expect(decoder.size).to.equal(names.length);
  });

  it("decodes a custom error with named values", async () => {
    const probe = await (await ethers.getContractFactory("TxProbe")).deploy();
    const [caller] = await ethers.getSigners();
    const err = await probe.fail(42n).then(
      () => null,
      (e: unknown) => e,
    );
    const data = findRevertData(err);
    const decoded = decoder.decode(data);
    expect(decoded).to.deep.equal({
      name: "TxProbeRejected",
      signature: "TxProbeRejected(address,uint256,string)",
      selector: selector("TxProbeRejected(address,uint256,string)"),
      args: { sender: caller.address, value: "42", reason: "asked to fail" },
    });
    expect(decoder.describe(decoded!)).to.equal(
      `TxProbeRejected(sender="${caller.address}", value="42", reason="asked to fail")`,
    );
  });

  it("decodes an error without values, Error(string) and Panic(uint256)", () => {
    expect(decoder.decode(selector("TestUSDCZeroAmount()"))).to.deep.include({ name: "TestUSDCZeroAmount", args: {} });
    const message = decoder.decode(selector("Error(string)") + coder.encode(["string"], ["nope"]).slice(2));
    expect(message).to.deep.include({ name: "Error", args: { message: "nope" } });
    expect(decoder.describe(message!)).to.equal("reverted: nope");
    const panic = decoder.decode(selector("Panic(uint256)") + coder.encode(["uint256"], [0x11]).slice(2));
    expect(decoder.describe(panic!)).to.equal("panic 0x11: arithmetic overflow or underflow");
  });

  it("answers null for empty, short, malformed or unknown data", () => {
    for (const data of [null, undefined, "", "0x", "0x1234", "nothex", "0xdeadbeef"])
      expect(decoder.decode(data)).to.equal(null);
  });
});
