import { expect } from "chai";
import hre, { ethers, network } from "hardhat";
import { impersonateAccount, setBalance } from "@nomicfoundation/hardhat-network-helpers";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HDNodeWallet, getAddress, parseEther } from "ethers";
import type { HardhatRuntimeEnvironment, RequestArguments } from "hardhat/types";
import { deploymentPath, type DeploymentFile } from "../../deploy/deploymentFile";
import { PARAMETERS_RECORD, ParameterDriftError } from "../../deploy/journal";
import { BASE_SEPOLIA_USDC, parametersToJson, type DeployParameters } from "../../deploy/parameters";
import { DeploymentError, deploySystem } from "../../deploy/system";
import { vaultConfigs, type VaultConfig } from "../../deploy/vaults";
import { ConfigurableNapVault__factory, NapToken__factory, TimelockController__factory } from "../../typechain-types";
import { checkDeployment } from "./checkDeployment";
import { localParameters, workspace, type Workspace } from "./helpers";

/** Transactions of a full local deployment: 16 contracts, 26 role grants and renouncements, 2 fundings. */
const LOCAL_DEPLOYMENT_TRANSACTIONS = 44;

/** Hardhat's default dev mnemonic (the in-process network's accounts). */
const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";

/** The in-process chain as a public endpoint shows it: no accounts to sign with. */
function accountless(): HardhatRuntimeEnvironment {
  const provider = {
    request: (args: RequestArguments) =>
      args.method === "eth_accounts" ? Promise.resolve([]) : hre.network.provider.request(args),
  };
  return Object.assign(Object.create(hre) as HardhatRuntimeEnvironment, {
    network: { ...hre.network, name: "accountless", provider },
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the run to fail");
}

async function deployerNonce(): Promise<number> {
  const [deployer] = await ethers.getSigners();
  return ethers.provider.getTransactionCount(deployer.address);
}

describe("deploySystem (Hardhat Ignition, local chain 31337)", () => {
  let work: Workspace;
  let parameters: DeployParameters;
  const run = (p: DeployParameters = parameters, log?: (line: string) => void) =>
    deploySystem({ hre, parameters: p, journalDir: work.journalDir, outDir: work.outDir, log });

  beforeEach(async () => {
    work = workspace("deploy");
    parameters = await localParameters();
  });
  afterEach(() => work.remove());

  it("deploys and wires everything in 44 transactions, writes the file, and a re-run sends nothing", async () => {
    const [deployer] = await ethers.getSigners();
    // Other suites share this chain: the relayer receives its 100 ETH once per deployment.
    const relayerBefore = await ethers.provider.getBalance(parameters.Roles.relayer);
    const nonce = await deployerNonce();
    const file = await run();
    expect(await deployerNonce()).to.equal(nonce + LOCAL_DEPLOYMENT_TRANSACTIONS);
    const written = JSON.parse(readFileSync(deploymentPath(work.outDir, 31337), "utf8")) as DeploymentFile;
    expect(written).to.deep.equal(file);
    await checkDeployment(ethers.provider, written, parameters, {
      chainId: 31337,
      network: network.name,
      deployer: deployer.address,
    });
    expect(await ethers.provider.getBalance(file.contracts.NapFaucet!.address)).to.equal(parseEther("100"));
    expect(await ethers.provider.getBalance(parameters.Roles.relayer)).to.equal(relayerBefore + parseEther("100"));
    // The parameters the deployment was started with are recorded beside Ignition's journal.
    expect(readFileSync(join(work.journalDir, PARAMETERS_RECORD), "utf8")).to.equal(parametersToJson(parameters));

    const lines: string[] = [];
    const again = await run(parameters, (line) => lines.push(line));
    expect(await deployerNonce()).to.equal(nonce + LOCAL_DEPLOYMENT_TRANSACTIONS);
    expect(again).to.deep.equal(file);
    expect(JSON.parse(readFileSync(deploymentPath(work.outDir, 31337), "utf8"))).to.deep.equal(file);
    expect(lines.filter((line) => /^(send|deploy|done) /.test(line))).to.deep.equal([]);
    expect(lines).to.include(`resume  ${work.journalDir} (steps already done are not sent again)`);
    expect(lines).to.include(`unchanged ${deploymentPath(work.outDir, 31337)}`);
  });

  it("timelock delay and two other parameters changed after the deployment: the run stops naming each, sends nothing", async () => {
    const file = await run();
    const nonce = await deployerNonce();
    const drifted: DeployParameters = {
      ...parameters,
      Governance: { ...parameters.Governance, timelockMinDelay: 259_200 },
      Registry: { ...parameters.Registry, minPaperTradingPeriod: 120 },
      Faucet: { ...parameters.Faucet, cooldown: 3_600 },
    };
    const error = await failure(run(drifted));
    expect(error).to.be.instanceOf(ParameterDriftError);
    expect(error.message).to.equal(
      `parameters changed since the deployment in ${work.journalDir} was started:\n` +
        "  Faucet.cooldown: 86400 -> 3600\n" +
        "  Governance.timelockMinDelay: 172800 -> 259200\n" +
        "  Registry.minPaperTradingPeriod: 60 -> 120\n" +
        "A deployed contract keeps the values it was built with: change them through a governance proposal " +
        "(docs/governance.md), or deploy anew into another folder (DEPLOY_JOURNAL_DIR) if you mean to replace the " +
        "system.",
    );
    expect(await deployerNonce()).to.equal(nonce);
    const timelock = TimelockController__factory.connect(file.contracts.TimelockController!.address, ethers.provider);
    expect(await timelock.getMinDelay()).to.equal(172_800n);
  });

  it("a guardian added to the parameters after the deployment: refused, to be granted by governance", async () => {
    await run();
    const signers = await ethers.getSigners();
    const withNewGuardian = {
      ...parameters,
      Roles: { ...parameters.Roles, guardians: [...parameters.Roles.guardians, signers[9].address] },
    };
    const error = await failure(run(withNewGuardian));
    expect(error).to.be.instanceOf(ParameterDriftError);
    expect((error as ParameterDriftError).changes).to.deep.equal([
      "Roles.guardians.length: 3 -> 4",
      `Roles.guardians[3]: (none) -> ${signers[9].address}`,
    ]);
  });

  it("a vault configuration changed in the code: Ignition's reconciliation refuses it, naming the vault", async () => {
    await run();
    const moderate = vaultConfigs.moderate as VaultConfig;
    const fee = moderate.managementFeeBps;
    moderate.managementFeeBps = fee + 1;
    try {
      const error = await failure(run());
      expect(error).to.be.instanceOf(DeploymentError);
      expect(error.message).to.equal(
        "The deployment wasn't run because of the following reconciliation errors:\n\n" +
          "  * Vaults#moderate: Argument at index 0 has been changed",
      );
    } finally {
      moderate.managementFeeBps = fee;
    }
  });

  it("a journal whose contracts are gone (a restarted local node): wiped, and everything deployed anew", async () => {
    const first = await run();
    await network.provider.send("hardhat_setCode", [first.contracts.VaultLens!.address, "0x"]);
    const lines: string[] = [];
    const second = await run(parameters, (line) => lines.push(line));
    expect(lines[0]).to.equal(
      `journal ${work.journalDir} is from an earlier local chain (no code at ${first.contracts.VaultLens!.address}): ` +
        "starting over",
    );
    for (const [name, entry] of Object.entries(second.contracts)) {
      expect(entry.address, name).to.not.equal(first.contracts[name as keyof typeof first.contracts]!.address);
    }
    expect(lines.filter((line) => line.startsWith("deploy  ")).length).to.equal(16);
  });

  it("governance lowered the timelock delay below the slowest vault exit: the re-run stops naming Governance.timelockMinDelay", async () => {
    const file = await run();
    const timelockAddress = file.contracts.TimelockController!.address;
    await impersonateAccount(timelockAddress);
    await setBalance(timelockAddress, parseEther("1"));
    const asTimelock = TimelockController__factory.connect(timelockAddress, await ethers.getSigner(timelockAddress));
    await asTimelock.updateDelay(60);
    const error = await failure(run());
    expect(error.message).to.equal(
      "the chain differs from the intended roles and settings (docs/deploy.md):\n" +
        "  TimelockController getMinDelay(): intended 172800, on chain 60\n" +
        `  Governance.timelockMinDelay: the timelock at ${timelockAddress} waits 60 s, less than the longest vault ` +
        "fulfilment delay on chain (86400 s) plus the exit margin (86400 s); raise it through a governance proposal " +
        "(updateDelay)",
    );
  });

  it("governance raised the configurable vault's fulfilment delay past the timelock's: the re-run stops and says so", async () => {
    const file = await run();
    const timelockAddress = file.contracts.TimelockController!.address;
    await impersonateAccount(timelockAddress);
    await setBalance(timelockAddress, parseEther("1"));
    const vault = ConfigurableNapVault__factory.connect(
      file.vaults.configurable.address,
      await ethers.getSigner(timelockAddress),
    );
    await vault.setFulfillmentDelay(2 * 86_400);
    const error = await failure(run());
    expect(error.message).to.equal(
      "the chain differs from the intended roles and settings (docs/deploy.md):\n" +
        "  vault configurable fulfillmentDelay(): intended 3600, on chain 172800\n" +
        `  Governance.timelockMinDelay: the timelock at ${timelockAddress} waits 172800 s, less than the longest ` +
        "vault fulfilment delay on chain (172800 s) plus the exit margin (86400 s); raise it through a governance " +
        "proposal (updateDelay)",
    );
  });

  it("relayer given the token's MINTER_ROLE since the deployment: the re-run stops and names it", async () => {
    const file = await run();
    const timelockAddress = file.contracts.TimelockController!.address;
    await impersonateAccount(timelockAddress);
    await setBalance(timelockAddress, parseEther("1"));
    const token = NapToken__factory.connect(file.contracts.NapToken!.address, await ethers.getSigner(timelockAddress));
    await token.grantRole(await token.MINTER_ROLE(), parameters.Roles.relayer);
    const error = await failure(run());
    const holders = [
      [file.contracts.NapMinter!.address, "NapMinter"],
      [parameters.Roles.relayer, "relayer"],
    ]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([address, label]) => `${getAddress(address)} (${label})`)
      .join(", ");
    expect(error.message).to.equal(
      "the chain differs from the intended roles and settings (docs/deploy.md):\n" +
        `  NapToken MINTER_ROLE: intended ${file.contracts.NapMinter!.address} (NapMinter), on chain ${holders}`,
    );
  });

  it("parameters naming an existing USDC where there is none (Base Sepolia's on the local chain): refused", async () => {
    const nonce = await deployerNonce();
    const error = await failure(
      run({
        ...parameters,
        Tokens: { ...parameters.Tokens, usdc: BASE_SEPOLIA_USDC },
        Faucet: { ...parameters.Faucet, usdcAmount: 0n },
      }),
    );
    expect(error.message).to.equal(`Tokens.usdc: no contract at ${BASE_SEPOLIA_USDC} on chain 31337`);
    expect(await deployerNonce()).to.equal(nonce);
  });

  it("an endpoint without accounts and no DEPLOYER_PRIVATE_KEY configuration variable: refused, naming it", async () => {
    const nonce = await deployerNonce();
    const error = await failure(
      deploySystem({ hre: accountless(), parameters, ...work, deployerKey: () => undefined }),
    );
    expect(error.message).to.equal(
      "network accountless has no deployer account: store its key with `npx hardhat vars set DEPLOYER_PRIVATE_KEY` " +
        "(docs/deploy.md)",
    );
    expect(await deployerNonce()).to.equal(nonce);
  });

  it("an endpoint without accounts: the deployer key of the configuration variable signs every transaction", async () => {
    const deployer = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, "m/44'/60'/0'/0/12");
    const nonce = await ethers.provider.getTransactionCount(deployer.address);
    const file = await deploySystem({
      hre: accountless(),
      parameters,
      ...work,
      deployerKey: () => deployer.privateKey,
    });
    expect(file.deployer).to.equal(deployer.address);
    expect(await ethers.provider.getTransactionCount(deployer.address)).to.equal(nonce + LOCAL_DEPLOYMENT_TRANSACTIONS);
    await checkDeployment(ethers.provider, file, parameters, {
      chainId: 31337,
      network: "accountless",
      deployer: deployer.address,
    });
  });

  it("parameters that hand a decision to the relayer: refused before any transaction", async () => {
    const nonce = await deployerNonce();
    const error = await failure(
      run({
        ...parameters,
        Roles: { ...parameters.Roles, oracles: [parameters.Roles.relayer] },
        Registry: { ...parameters.Registry, oracleThreshold: 1 },
      }),
    );
    expect(error.message).to.equal("Roles.oracles must not include the relayer (a hot key)");
    expect(await deployerNonce()).to.equal(nonce);
  });
});
