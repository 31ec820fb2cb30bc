import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { NapVault__factory } from "../../../typechain-types";
import { BPS, MAX_UINT, USDC, YEAR, deployWorld, params, roles } from "./fixtures";

/** A vault without cap, so that large donations can be tried. */
async function uncapped() {
  const w = await deployWorld();
  const vault = await new NapVault__factory(w.a.deployer).deploy(
    params(await w.usdc.getAddress(), w.a.feeRecipient.address, { depositCap: MAX_UINT }),
    roles(w.a),
    [],
  );
  for (const holder of [w.a.alice, w.a.bob]) await w.usdc.connect(holder).approve(await vault.getAddress(), MAX_UINT);
  return { ...w, vault };
}

describe("NapVault: first-depositor inflation attack", () => {
  const cases: [string, bigint, bigint, bigint][] = [
    // [label, attacker's first deposit, donation, victim's deposit]
    ["1 unit, 1 USDC donated, victim 1 USDC", 1n, 1n * USDC, 1n * USDC],
    ["1 unit, 10,000 USDC donated, victim 1,000 USDC", 1n, 10_000n * USDC, 1_000n * USDC],
    ["1 unit, 1,000,000 USDC donated, victim 1,000 USDC", 1n, 1_000_000n * USDC, 1_000n * USDC],
    ["1 unit, 5,000,000 USDC donated, victim 4,999,999 USDC", 1n, 5_000_000n * USDC, 4_999_999n * USDC],
    ["100 USDC, 1,000,000 USDC donated, victim 10 USDC", 100n * USDC, 1_000_000n * USDC, 10n * USDC],
  ];

  for (const [label, first, donation, victimDeposit] of cases) {
    it(`never moves the price, costs the attacker its donation and the victim only the management fee: ${label}`, async () => {
      const { a, usdc, vault } = await loadFixture(uncapped);
      const attacker = a.alice;
      const victim = a.bob;
      const address = await vault.getAddress();
      const attackerStart = await usdc.balanceOf(attacker.address);
      const victimStart = await usdc.balanceOf(victim.address);

      await vault.connect(attacker).deposit(first, attacker.address);
      const price = await vault.convertToAssets(10n ** 12n);
      await usdc.connect(attacker).transfer(address, donation);
      // The vault's books ignore the donation: the price stays and the fee recipient may claim it.
      expect(await vault.convertToAssets(10n ** 12n)).to.equal(price);
      expect(await vault.feesOwed()).to.be.gte(donation);
      await vault.connect(victim).deposit(victimDeposit, victim.address);
      const enteredAt = BigInt(await time.latest());

      await vault.connect(attacker).redeem(await vault.balanceOf(attacker.address), attacker.address, attacker.address);
      await vault.connect(victim).redeem(await vault.balanceOf(victim.address), victim.address, victim.address);
      const held = BigInt(await time.latest()) - enteredAt;

      const attackerProfit = (await usdc.balanceOf(attacker.address)) - attackerStart;
      const victimLoss = victimStart - (await usdc.balanceOf(victim.address));
      expect(attackerProfit).to.be.lte(-donation);
      expect(victimLoss).to.be.gte(0n);
      // The management fee for the seconds held (2% a year, rounded up) and one unit of rounding each way.
      const fee = (victimDeposit * 200n * held + BPS * YEAR - 1n) / (BPS * YEAR);
      expect(victimLoss).to.be.lte(fee + 2n);
    });
  }
});
