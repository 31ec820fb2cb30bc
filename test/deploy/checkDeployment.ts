import { expect } from "chai";
import type { Provider } from "ethers";
import {
  AgentBadges__factory,
  NapFaucet__factory,
  NapGovernor__factory,
  NapMinter__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
  TimelockController__factory,
  VaultLens__factory,
} from "../../typechain-types";
import type { DeployedAt, DeploymentFile } from "../../deploy/deploymentFile";
import { EXIT_MARGIN_SECONDS, type DeployParameters } from "../../deploy/parameters";
import { VAULT_IDS, vaultConfigs } from "../../deploy/vaults";

const ADMIN = "0x" + "00".repeat(32);
const ZERO = "0x0000000000000000000000000000000000000000";

/** The address holds code at `block` and held none the block before: the recorded block is the creation block. */
async function expectCreatedAt(provider: Provider, entry: DeployedAt, what: string): Promise<void> {
  expect(await provider.getCode(entry.address, entry.block), `${what} code at its block`).to.not.equal("0x");
  expect(await provider.getCode(entry.address, entry.block - 1), `${what} no code before its block`).to.equal("0x");
}

/** What the deployment was made for: the chain, the Hardhat network's name and the deployer. */
export interface DeployedFor {
  chainId: number;
  network: string;
  deployer: string;
}

/**
 * Checks every address, block, role and setting of a deployment file against the chain and the parameters used,
 * independently of the deployment's own audit (deploy/audit.ts), so that neither is checked only by itself.
 */
export async function checkDeployment(
  provider: Provider,
  file: DeploymentFile,
  p: DeployParameters,
  { chainId, network, deployer }: DeployedFor,
): Promise<void> {
  const usdcGiven = p.Tokens.usdc;
  expect(file.chainId).to.equal(chainId);
  expect(file.network).to.equal(network);
  expect(file.deployer).to.equal(deployer);
  expect(Number.isNaN(Date.parse(file.updatedAt))).to.equal(false);

  const c = file.contracts;
  const names = Object.keys(c).sort();
  const expectedNames = [
    "AgentBadges",
    "NapFaucet",
    "NapGovernor",
    "NapMinter",
    "NapRouter",
    "NapToken",
    "StrategyRegistryV3",
    "TimelockController",
    "VaultLens",
    ...(usdcGiven ? [] : ["TestUSDC"]),
  ].sort();
  expect(names).to.deep.equal(expectedNames);
  for (const [name, entry] of Object.entries(c)) await expectCreatedAt(provider, entry!, name);
  expect(Object.keys(file.vaults)).to.deep.equal([...VAULT_IDS]);
  for (const id of VAULT_IDS) await expectCreatedAt(provider, file.vaults[id], `vault ${id}`);

  // USDC
  if (usdcGiven) {
    expect(file.usdc).to.deep.equal({
      address: usdcGiven,
      deployedByUs: false,
    });
  } else {
    expect(file.usdc).to.deep.equal({
      address: c.TestUSDC!.address,
      deployedByUs: true,
    });
    const usdc = TestUSDC__factory.connect(c.TestUSDC!.address, provider);
    expect(await usdc.hasRole(await usdc.MINTER_ROLE(), c.NapFaucet!.address)).to.equal(true);
  }
  const usdcAddress = file.usdc.address;
  const timelockAddress = c.TimelockController!.address;
  const { relayer, guardians, oracles } = p.Roles;
  const g = p.Governance;
  expect(file.roles).to.deep.equal({
    admin: timelockAddress,
    relayer,
    guardians,
    oracles,
    proposalGuardian: g.proposalGuardian,
  });

  // Governance
  const timelock = TimelockController__factory.connect(timelockAddress, provider);
  const governorAddress = c.NapGovernor!.address;
  expect(await timelock.getMinDelay()).to.equal(BigInt(g.timelockMinDelay));
  expect(await timelock.hasRole(await timelock.PROPOSER_ROLE(), governorAddress)).to.equal(true);
  expect(await timelock.hasRole(await timelock.CANCELLER_ROLE(), governorAddress)).to.equal(true);
  expect(await timelock.hasRole(await timelock.EXECUTOR_ROLE(), ZERO)).to.equal(true);
  expect(await timelock.hasRole(ADMIN, timelockAddress)).to.equal(true);
  expect(await timelock.hasRole(ADMIN, deployer)).to.equal(false);
  expect(await timelock.hasRole(await timelock.PROPOSER_ROLE(), deployer)).to.equal(false);

  const governor = NapGovernor__factory.connect(governorAddress, provider);
  expect(await governor.token()).to.equal(c.NapToken!.address);
  expect(await governor.timelock()).to.equal(timelockAddress);
  expect(await governor.votingDelay()).to.equal(BigInt(g.votingDelay));
  expect(await governor.votingPeriod()).to.equal(BigInt(g.votingPeriod));
  expect(await governor.proposalThreshold()).to.equal(g.proposalThreshold);
  expect(await governor["quorumNumerator()"]()).to.equal(BigInt(g.quorumPercent));
  expect(await governor.CLOCK_MODE()).to.equal("mode=timestamp");
  expect(await governor.proposalGuardian()).to.equal(g.proposalGuardian);
  expect(g.proposalGuardian).to.not.equal(relayer);

  const token = NapToken__factory.connect(c.NapToken!.address, provider);
  expect(await token.hasRole(ADMIN, timelockAddress)).to.equal(true);
  expect(await token.hasRole(ADMIN, deployer)).to.equal(false);
  // No hot key mints NAP: only the minter holds the token's MINTER_ROLE; the relayer holds the minter's.
  const minter = NapMinter__factory.connect(c.NapMinter!.address, provider);
  expect(await token.hasRole(await token.MINTER_ROLE(), c.NapMinter!.address)).to.equal(true);
  expect(await token.hasRole(await token.MINTER_ROLE(), relayer)).to.equal(false);
  expect(await token.hasRole(await token.MINTER_ROLE(), deployer)).to.equal(false);
  expect(await minter.token()).to.equal(c.NapToken!.address);
  expect(await minter.hasRole(await minter.MINTER_ROLE(), relayer)).to.equal(true);
  expect(await minter.hasRole(ADMIN, timelockAddress)).to.equal(true);
  expect(await minter.hasRole(ADMIN, deployer)).to.equal(false);
  expect(await minter.budget()).to.equal(p.Tokens.minterBudget);
  expect(await minter.period()).to.equal(BigInt(p.Tokens.minterPeriod));
  expect(await token.cap()).to.equal(p.Tokens.napCap);
  expect(await token.balanceOf(deployer)).to.be.gte(0n);

  // Registry
  const registry = StrategyRegistryV3__factory.connect(c.StrategyRegistryV3!.address, provider);
  expect(await registry.hasRole(ADMIN, timelockAddress)).to.equal(true);
  expect(await registry.hasRole(ADMIN, deployer)).to.equal(false);
  expect(await registry.hasRole(await registry.SCREENER_ROLE(), relayer)).to.equal(true);
  expect(await registry.hasRole(await registry.MANAGER_ROLE(), relayer)).to.equal(true);
  for (const g of guardians) expect(await registry.hasRole(await registry.GUARDIAN_ROLE(), g)).to.equal(true);
  for (const o of oracles) expect(await registry.hasRole(await registry.ORACLE_ROLE(), o)).to.equal(true);
  expect(await registry.guardianThreshold()).to.equal(BigInt(p.Registry.guardianThreshold));
  expect(await registry.oracleThreshold()).to.equal(BigInt(p.Registry.oracleThreshold));
  expect(await registry.minPaperTradingPeriod()).to.equal(BigInt(p.Registry.minPaperTradingPeriod));

  // Faucet
  const faucet = NapFaucet__factory.connect(c.NapFaucet!.address, provider);
  expect(await faucet.hasRole(ADMIN, timelockAddress)).to.equal(true);
  expect(await faucet.hasRole(ADMIN, deployer)).to.equal(false);
  expect(await faucet.hasRole(await faucet.DRIPPER_ROLE(), relayer)).to.equal(true);
  expect(await faucet.usdc()).to.equal(usdcAddress);
  expect(await faucet.usdcMintable()).to.equal(!usdcGiven);
  expect(await faucet.ethAmount()).to.equal(p.Faucet.ethAmount);
  expect(await faucet.usdcAmount()).to.equal(p.Faucet.usdcAmount);
  expect(await faucet.cooldown()).to.equal(BigInt(p.Faucet.cooldown));
  expect(await provider.getBalance(c.NapFaucet!.address)).to.be.gte(p.Funding?.faucet ?? 0n);
  expect(await provider.getBalance(relayer)).to.be.gte(p.Funding?.relayer ?? 0n);

  // Badges
  const badges = AgentBadges__factory.connect(c.AgentBadges!.address, provider);
  expect(await badges.hasRole(ADMIN, timelockAddress)).to.equal(true);
  expect(await badges.hasRole(ADMIN, deployer)).to.equal(false);
  expect(await badges.hasRole(await badges.MINTER_ROLE(), relayer)).to.equal(true);

  // Vaults and lens
  for (const id of VAULT_IDS) {
    const vault = NapVault__factory.connect(file.vaults[id].address, provider);
    expect(await vault.asset(), `${id} asset`).to.equal(usdcAddress);
    expect(await vault.name()).to.equal(vaultConfigs[id].name);
    expect(await vault.hasRole(ADMIN, timelockAddress), `${id} admin`).to.equal(true);
    expect(await vault.hasRole(ADMIN, deployer)).to.equal(false);
    expect(await vault.hasRole(await vault.MANAGER_ROLE(), timelockAddress)).to.equal(true);
    expect(await vault.hasRole(await vault.HARVESTER_ROLE(), relayer)).to.equal(true);
    expect(await vault.hasRole(await vault.FULFILLER_ROLE(), relayer)).to.equal(true);
    expect(await vault.hasRole(await vault.GUARDIAN_ROLE(), guardians[0])).to.equal(true);
  }
  // Holders can leave the slowest vault within the timelock delay.
  let longest = 0n;
  for (const id of VAULT_IDS) {
    const delay = await NapVault__factory.connect(file.vaults[id].address, provider).fulfillmentDelay();
    if (delay > longest) longest = delay;
  }
  expect(await timelock.getMinDelay()).to.be.at.least(longest + BigInt(EXIT_MARGIN_SECONDS));
  const lens = VaultLens__factory.connect(c.VaultLens!.address, provider);
  const views = await lens.vaults(VAULT_IDS.map((id) => file.vaults[id].address));
  expect(views.length).to.equal(VAULT_IDS.length);
}
