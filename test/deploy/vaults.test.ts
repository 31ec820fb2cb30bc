import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { ConfigurableNapVault__factory, TestUSDC__factory } from "../../typechain-types";
import { RiskLevel, VAULT_IDS, deployLens, deployVaults, vaultConfigs } from "../../deploy/vaults";

const ROLES = ["MANAGER_ROLE", "HARVESTER_ROLE", "GUARDIAN_ROLE", "FULFILLER_ROLE"].map((r) => ethers.id(r));

async function deployed() {
  const [deployer, admin, manager, harvester, guardian, fulfiller, feeRecipient] = await ethers.getSigners();
  const usdc = await new TestUSDC__factory(deployer).deploy(deployer.address);
  const roles = {
    admin: admin.address,
    manager: manager.address,
    harvester: harvester.address,
    guardian: guardian.address,
    fulfiller: fulfiller.address,
    feeRecipient: feeRecipient.address,
  };
  const vaults = await deployVaults(deployer, await usdc.getAddress(), roles);
  const lens = await deployLens(deployer);
  return { deployer, usdc, roles, vaults, lens };
}

describe("deploy/vaults", () => {
  it("deploys the six vaults in order with their configuration", async () => {
    const { usdc, roles, vaults } = await loadFixture(deployed);
    expect(Object.keys(vaults)).to.deep.equal([...VAULT_IDS]);
    expect(VAULT_IDS).to.deep.equal(["conservative", "moderate", "aggressive", "inverse", "hedged", "configurable"]);
    for (const id of VAULT_IDS) {
      const { contract, address, block } = vaults[id];
      const config = vaultConfigs[id];
      expect(await contract.getAddress()).to.equal(address);
      expect(block).to.be.gt(0);
      expect(await contract.name()).to.equal(config.name);
      expect(await contract.symbol()).to.equal(config.symbol);
      expect(await contract.asset()).to.equal(await usdc.getAddress());
      expect(await contract.riskLevel()).to.equal(RiskLevel[config.riskLevel]);
      expect(await contract.isERC7540()).to.equal(config.async);
      expect(await contract.fulfillmentDelay()).to.equal(config.fulfillmentDelay);
      expect(await contract.managementFeeBps()).to.equal(config.managementFeeBps);
      expect(await contract.performanceFeeBps()).to.equal(config.performanceFeeBps);
      expect(await contract.hurdleRateBps()).to.equal(config.hurdleRateBps);
      expect(await contract.depositCap()).to.equal(config.depositCap ?? 2n ** 256n - 1n);
      expect(await contract.profitUnlockPeriod()).to.equal(config.profitUnlockPeriod);
      expect(await contract.feeRecipient()).to.equal(roles.feeRecipient);
      const receipt = await ethers.provider.getTransactionReceipt(
        (await ethers.provider.getBlock(block, false))!.transactions[0],
      );
      expect(receipt!.contractAddress).to.equal(address);
    }
    expect(["aggressive", "inverse", "hedged"].every((id) => vaultConfigs[id as "aggressive"].async)).to.equal(true);
  });

  it("gives the roles to their holders and leaves the deployer none", async () => {
    const { deployer, roles, vaults } = await loadFixture(deployed);
    const holders = [roles.manager, roles.harvester, roles.guardian, roles.fulfiller];
    for (const id of VAULT_IDS) {
      const vault = vaults[id].contract;
      expect(await vault.hasRole(ethers.ZeroHash, roles.admin)).to.equal(true);
      expect(await vault.hasRole(ethers.ZeroHash, deployer.address)).to.equal(false);
      for (const [i, role] of ROLES.entries()) {
        expect(await vault.hasRole(role, holders[i])).to.equal(true);
        expect(await vault.hasRole(role, deployer.address)).to.equal(false);
      }
    }
  });

  it("deploys the configurable vault with the governance setters", async () => {
    const { roles, vaults } = await loadFixture(deployed);
    const admin = await ethers.getSigner(roles.admin);
    const configurable = ConfigurableNapVault__factory.connect(vaults.configurable.address, admin);
    await expect(configurable.setDepositCap(10n ** 6n))
      .to.emit(configurable, "DepositCapUpdated")
      .withArgs(10n ** 6n);
  });

  it("reuses recorded addresses instead of deploying again", async () => {
    const { deployer, usdc, roles, vaults, lens } = await loadFixture(deployed);
    const before = await ethers.provider.getTransactionCount(deployer.address);
    const existing = Object.fromEntries(
      VAULT_IDS.map((id) => [id, { address: vaults[id].address, block: vaults[id].block }]),
    );
    const again = await deployVaults(deployer, await usdc.getAddress(), roles, existing);
    const lensAgain = await deployLens(deployer, { address: lens.address, block: lens.block });
    expect(await ethers.provider.getTransactionCount(deployer.address)).to.equal(before);
    for (const id of VAULT_IDS) expect(again[id].address).to.equal(vaults[id].address);
    expect(lensAgain.address).to.equal(lens.address);
    expect(await lensAgain.contract.vaults([vaults.hedged.address])).to.have.length(1);

    const partial = await deployVaults(deployer, await usdc.getAddress(), roles, {
      conservative: existing.conservative,
    });
    expect(partial.conservative.address).to.equal(vaults.conservative.address);
    expect(partial.moderate.address).to.not.equal(vaults.moderate.address);
  });

  it("refuses a recorded address without code", async () => {
    const { deployer, usdc, roles } = await loadFixture(deployed);
    const nowhere = { address: ethers.Wallet.createRandom().address, block: 1 };
    expect(await rejection(deployVaults(deployer, await usdc.getAddress(), roles, { moderate: nowhere }))).to.equal(
      `vault moderate: no contract at the recorded address ${nowhere.address}`,
    );
    expect(await rejection(deployLens(deployer, nowhere))).to.equal(
      `VaultLens: no contract at the recorded address ${nowhere.address}`,
    );
  });
});

/** The message a promise is rejected with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a rejection");
}
