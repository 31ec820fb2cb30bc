import { expect } from "chai";
import { Wallet } from "ethers";
import { RecoveryPool, recoverOnThisThread } from "../../../api/src/chain/recoveryPool";

describe("signature recovery pool", function () {
  it("recovers the same signers as ethers on the calling thread, concurrently, and null for malformed input", async function () {
    const pool = new RecoveryPool(2);
    try {
      const wallets = Array.from({ length: 20 }, () => Wallet.createRandom());
      const signed = await Promise.all(
        wallets.map(async (w, i) => ({ message: `m${i}`, sig: await w.signMessage(`m${i}`) })),
      );
      const recovered = await Promise.all(signed.map(({ message, sig }) => pool.recover(message, sig)));
      expect(recovered).to.deep.equal(wallets.map((w) => w.address));
      expect(await recoverOnThisThread(signed[0].message, signed[0].sig)).to.equal(wallets[0].address);
      expect(await pool.recover("m0", "0x1234")).to.equal(null);
      expect(await recoverOnThisThread("m0", "0x1234")).to.equal(null);
      expect(await pool.recover("other", signed[0].sig)).to.not.equal(wallets[0].address);
    } finally {
      await pool.close();
    }
  });
});
