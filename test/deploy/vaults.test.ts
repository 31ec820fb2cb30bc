import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { ConfigurableNapVault__factory, NapVault__factory, TestUSDC__factory } from "../../typechain-types";
import {
  RiskLevel,
  VAULT_IDS,
  deployVaults,
  vaultConfigs,
  vaultConstructorArgs,
  vaultContractName,
  vaultExpectations,
} from "../../deploy/vaults";
import { deployLocal } from "./helpers";

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
  return { deployer, usdc, roles, vaults };
}

/** The vaults as the system deployment (ignition/modules/vaults.ts) creates them. */
async function systemVaults() {
  return (await deployLocal("vaults")).file;
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

  it("the Ignition module deploys each vault as its configuration says, from its own creation transaction", async () => {
    const file = await loadFixture(systemVaults);
    const timelock = file.contracts.TimelockController!.address;
    for (const id of VAULT_IDS) {
      const { address, block } = file.vaults[id];
      const vault = NapVault__factory.connect(address, ethers.provider);
      for (const [getter, expected] of vaultExpectations(vaultConfigs[id], file.usdc.address, timelock)) {
        expect(await vault[getter](), `${id} ${getter}`).to.equal(expected);
      }
      const [creation] = (await ethers.provider.getBlock(block, false))!.transactions;
      expect((await ethers.provider.getTransactionReceipt(creation))!.contractAddress).to.equal(address);
    }
  });

  it("what the audit expects of a vault is what its constructor is given", () => {
    const roles = { admin: "T", manager: "T", harvester: "R", guardian: "G", fulfiller: "R", feeRecipient: "F" };
    for (const id of VAULT_IDS) {
      const config = vaultConfigs[id];
      const [params] = vaultConstructorArgs(config, "U", roles);
      const expected = Object.fromEntries(vaultExpectations(config, "U", "F"));
      expect(expected.asset).to.equal(params.asset);
      expect(expected.name).to.equal(params.name);
      expect(expected.symbol).to.equal(params.symbol);
      expect(expected.riskLevel).to.equal(BigInt(params.riskLevel));
      expect(expected.isERC7540).to.equal(params.asyncRedeem);
      expect(expected.managementFeeBps).to.equal(BigInt(params.managementFeeBps));
      expect(expected.performanceFeeBps).to.equal(BigInt(params.performanceFeeBps));
      expect(expected.hurdleRateBps).to.equal(BigInt(params.hurdleRateBps));
      expect(expected.depositCap).to.equal(params.depositCap);
      expect(expected.profitUnlockPeriod).to.equal(BigInt(params.profitUnlockPeriod));
      expect(expected.fulfillmentDelay).to.equal(BigInt(params.fulfillmentDelay));
      expect(expected.feeRecipient).to.equal(params.feeRecipient);
      expect(vaultContractName(config)).to.equal(id === "configurable" ? "ConfigurableNapVault" : "NapVault");
    }
  });
});
