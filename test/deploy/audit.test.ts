import { expect } from "chai";
import { ethers } from "hardhat";
import { impersonateAccount, loadFixture, setBalance } from "@nomicfoundation/hardhat-network-helpers";
import { readFileSync } from "node:fs";
import { getAddress, id, parseEther } from "ethers";
import { auditDeployment, formatAudit } from "../../deploy/audit";
import type { DeploymentFile } from "../../deploy/deploymentFile";
import { BASE_SEPOLIA_USDC, type DeployParameters } from "../../deploy/parameters";
import { ROLE_IDS, roleName } from "../../deploy/roleIds";
import { intendedState, renderRoleTableMarkdown, renderSettingsMarkdown } from "../../deploy/roleTable";
import { VAULT_IDS, deployVault, vaultConfigs } from "../../deploy/vaults";
import {
  AgentBadges__factory,
  NapFaucet__factory,
  NapMinter__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
  TimelockController__factory,
} from "../../typechain-types";
import { deployLocal } from "./helpers";

/** Roles, admins, settings and code checked on a local deployment (TestUSDC included). */
const LOCAL_CHECKS = 208;

async function deployed() {
  const { file, parameters } = await deployLocal("audit");
  const timelock = file.contracts.TimelockController!.address;
  await impersonateAccount(timelock);
  await setBalance(timelock, parseEther("1"));
  return { file, parameters, governance: await ethers.getSigner(timelock) };
}

/** An address as the role check prints it: with its label when the deployment knows it. */
const labelled = (address: string, label: string) =>
  label ? `${getAddress(address)} (${label})` : getAddress(address);
const sortedHolders = (holders: [string, string][]) =>
  holders
    .sort(([a], [b]) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0))
    .map(([address, label]) => labelled(address, label))
    .join(", ");

describe("role check (auditor's view of a deployment)", () => {
  it("a fresh deployment: every role holder, role admin, setting and contract as intended", async () => {
    const { file, parameters } = await loadFixture(deployed);
    const result = await auditDeployment(ethers.provider, file, parameters);
    expect(result.differences).to.deep.equal([]);
    expect(result.checked).to.equal(LOCAL_CHECKS);
    const report = formatAudit(result).split("\n");
    expect(report).to.have.length(LOCAL_CHECKS);
    expect(report).to.include(
      `ok    TimelockController EXECUTOR_ROLE: ${labelled("0x0000000000000000000000000000000000000000", "anyone (address 0)")}`,
    );
    expect(report).to.include(
      `ok    StrategyRegistryV3 ORACLE_ROLE: ${sortedHolders(
        parameters.Roles.oracles.map((oracle, i) => [oracle, `Roles.oracles[${i}]`]),
      )}`,
    );
    expect(report).to.include("ok    TimelockController exit window: getMinDelay() >= 172800");
    expect(report).to.include("ok    NapRouter code: deployed");
  });

  it("an oracle revoked and a stranger made oracle by governance: both named", async () => {
    const { file, parameters, governance } = await loadFixture(deployed);
    const [, , , , , , , , , stranger] = await ethers.getSigners();
    const registry = StrategyRegistryV3__factory.connect(file.contracts.StrategyRegistryV3!.address, governance);
    await registry.revokeRole(ROLE_IDS.ORACLE_ROLE, parameters.Roles.oracles[2]);
    await registry.grantRole(ROLE_IDS.ORACLE_ROLE, stranger.address);
    const result = await auditDeployment(ethers.provider, file, parameters);
    const intended = parameters.Roles.oracles.map((oracle, i): [string, string] => [oracle, `Roles.oracles[${i}]`]);
    const onChain = sortedHolders([...intended.slice(0, 2), [stranger.address, ""]]);
    expect(result.differences).to.deep.equal([
      `StrategyRegistryV3 ORACLE_ROLE: intended ${sortedHolders(intended)}, on chain ${onChain}`,
    ]);
  });

  it("the deployer made admin again, and a role the table does not know granted: both named", async () => {
    const { file, parameters, governance } = await loadFixture(deployed);
    const signers = await ethers.getSigners();
    const [deployer, stranger] = [signers[0], signers[15]];
    const faucet = NapFaucet__factory.connect(file.contracts.NapFaucet!.address, governance);
    await faucet.grantRole(ROLE_IDS.DEFAULT_ADMIN_ROLE, deployer.address);
    const unknownRole = id("PAUSER_ROLE");
    await faucet.grantRole(unknownRole, stranger.address);
    const result = await auditDeployment(ethers.provider, file, parameters);
    const timelock = file.contracts.TimelockController!.address;
    expect(result.differences).to.deep.equal([
      `NapFaucet DEFAULT_ADMIN_ROLE: intended ${labelled(timelock, "timelock")}, on chain ${sortedHolders([
        [timelock, "timelock"],
        [deployer.address, "deployer"],
      ])}`,
      `NapFaucet ${unknownRole}: intended no one, on chain ${stranger.address}`,
    ]);
  });

  it("settings changed by governance since the deployment: each named with both values", async () => {
    const { file, parameters, governance } = await loadFixture(deployed);
    await NapFaucet__factory.connect(file.contracts.NapFaucet!.address, governance).setCooldown(3_600);
    await NapMinter__factory.connect(file.contracts.NapMinter!.address, governance).setBudget(1n, 3_600);
    const result = await auditDeployment(ethers.provider, file, parameters);
    expect(result.differences).to.deep.equal([
      "NapMinter budget(): intended 10000000000000000000000, on chain 1",
      "NapMinter period(): intended 86400, on chain 3600",
      "NapFaucet cooldown(): intended 86400, on chain 3600",
    ]);
  });

  it("an async vault deployed under another timelock (its exit bound reads that one's delay): named", async () => {
    const { file, parameters } = await loadFixture(deployed);
    const [deployer] = await ethers.getSigners();
    const timelock = file.contracts.TimelockController!.address;
    const other = await new TimelockController__factory(deployer).deploy(
      7 * 86_400,
      [deployer.address],
      [ethers.ZeroAddress],
      ethers.ZeroAddress,
    );
    const roles = { admin: await other.getAddress(), manager: timelock, harvester: deployer.address };
    const { address, block } = await deployVault(deployer, vaultConfigs.hedged, file.usdc.address, {
      ...roles,
      guardian: deployer.address,
      fulfiller: deployer.address,
      feeRecipient: timelock,
    });
    const moved: DeploymentFile = { ...file, vaults: { ...file.vaults, hedged: { address, block } } };
    const result = await auditDeployment(ethers.provider, moved, parameters);
    expect(result.differences).to.include(
      `vault hedged governanceTimelock(): intended ${timelock}, whose delay bounds a redeem request's wait; on chain ` +
        "another address",
    );
  });

  it("a contract of the file without code (wrong chain or RPC endpoint): named", async () => {
    const { file, parameters } = await loadFixture(deployed);
    const moved: DeploymentFile = {
      ...file,
      contracts: { ...file.contracts, VaultLens: { address: getAddress("0x" + "11".repeat(20)), block: 1 } },
    };
    const result = await auditDeployment(ethers.provider, moved, parameters);
    expect(result.differences).to.deep.equal(["VaultLens code: intended deployed, on chain no code"]);
  });

  it("each role identifier of the table is the contract's own constant", async () => {
    const { file } = await loadFixture(deployed);
    const c = file.contracts;
    const runner = ethers.provider;
    const token = NapToken__factory.connect(c.NapToken!.address, runner);
    const timelock = TimelockController__factory.connect(c.TimelockController!.address, runner);
    const registry = StrategyRegistryV3__factory.connect(c.StrategyRegistryV3!.address, runner);
    const vault = NapVault__factory.connect(file.vaults.moderate.address, runner);
    const read: [string, () => Promise<string>][] = [
      ["DEFAULT_ADMIN_ROLE", () => token.DEFAULT_ADMIN_ROLE()],
      ["MINTER_ROLE", () => token.MINTER_ROLE()],
      ["MINTER_ROLE", () => NapMinter__factory.connect(c.NapMinter!.address, runner).MINTER_ROLE()],
      ["MINTER_ROLE", () => AgentBadges__factory.connect(c.AgentBadges!.address, runner).MINTER_ROLE()],
      ["MINTER_ROLE", () => TestUSDC__factory.connect(c.TestUSDC!.address, runner).MINTER_ROLE()],
      ["PROPOSER_ROLE", () => timelock.PROPOSER_ROLE()],
      ["CANCELLER_ROLE", () => timelock.CANCELLER_ROLE()],
      ["EXECUTOR_ROLE", () => timelock.EXECUTOR_ROLE()],
      ["SCREENER_ROLE", () => registry.SCREENER_ROLE()],
      ["MANAGER_ROLE", () => registry.MANAGER_ROLE()],
      ["GUARDIAN_ROLE", () => registry.GUARDIAN_ROLE()],
      ["ORACLE_ROLE", () => registry.ORACLE_ROLE()],
      ["DRIPPER_ROLE", () => NapFaucet__factory.connect(c.NapFaucet!.address, runner).DRIPPER_ROLE()],
      ["MANAGER_ROLE", () => vault.MANAGER_ROLE()],
      ["HARVESTER_ROLE", () => vault.HARVESTER_ROLE()],
      ["GUARDIAN_ROLE", () => vault.GUARDIAN_ROLE()],
      ["FULFILLER_ROLE", () => vault.FULFILLER_ROLE()],
    ];
    for (const [name, constant] of read) {
      expect(await constant(), name).to.equal(ROLE_IDS[name as keyof typeof ROLE_IDS]);
      expect(roleName(await constant())).to.equal(name);
    }
  });

  it("docs/deploy.md shows the intended role table and settings of a Base Sepolia deployment", async () => {
    const { file, parameters } = await loadFixture(deployed);
    // Base Sepolia's shape: Circle's USDC instead of TestUSDC; addresses do not appear in the tables.
    const { TestUSDC: _testUsdc, ...contracts } = file.contracts;
    const baseSepolia: DeployParameters = {
      ...parameters,
      Tokens: { ...parameters.Tokens, usdc: BASE_SEPOLIA_USDC },
    };
    const state = intendedState(
      { ...file, chainId: 84532, usdc: { address: BASE_SEPOLIA_USDC, deployedByUs: false }, contracts },
      baseSepolia,
    );
    const docs = readFileSync("docs/deploy.md", "utf8");
    expect(docs).to.include(renderRoleTableMarkdown(state));
    expect(docs).to.include(renderSettingsMarkdown(state));
    expect(state.roles.filter((row) => row.contract.startsWith("vault ")).length).to.equal(VAULT_IDS.length * 5);
  });
});
