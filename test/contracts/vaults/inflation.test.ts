import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { NapVault__factory } from "../../../typechain-types";
import { MAX_UINT, USDC, VIRTUAL_SHARES, deployWorld, params, roles } from "./fixtures";

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
    it(`never pays the attacker and bounds the victim's loss: ${label}`, async () => {
      const { a, usdc, vault } = await loadFixture(uncapped);
      const attacker = a.alice;
      const victim = a.bob;
      const address = await vault.getAddress();
      const attackerStart = await usdc.balanceOf(attacker.address);
      const victimStart = await usdc.balanceOf(victim.address);

      await vault.connect(attacker).deposit(first, attacker.address);
      await usdc.connect(attacker).transfer(address, donation);
      // The bound of the NatSpec: the victim loses less than one share unit's value at deposit, plus one unit of
      // rounding at redeem; with the attacker's first deposit of 1 unit that is below donation / 1e6 + 2 units.
      const unitValueCeil = (await vault.totalAssets()) / ((await vault.totalSupply()) + VIRTUAL_SHARES) + 1n;
      await vault.connect(victim).deposit(victimDeposit, victim.address);

      await vault.connect(attacker).redeem(await vault.balanceOf(attacker.address), attacker.address, attacker.address);
      await vault.connect(victim).redeem(await vault.balanceOf(victim.address), victim.address, victim.address);

      const attackerProfit = (await usdc.balanceOf(attacker.address)) - attackerStart;
      const victimLoss = victimStart - (await usdc.balanceOf(victim.address));
      expect(attackerProfit).to.be.lte(0n);
      expect(victimLoss).to.be.gte(0n);
      expect(victimLoss).to.be.lte(unitValueCeil + 1n);
      if (first === 1n) expect(victimLoss).to.be.lte(donation / VIRTUAL_SHARES + 2n);
      // The attacker loses far more than the victim: the virtual shares keep their part of the donation.
      expect(-attackerProfit).to.be.gte(victimLoss);
    });
  }
});
