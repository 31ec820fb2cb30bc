/**
 * Verification without internet: the configuration resolves Base Sepolia to Etherscan's API v2 and Sourcify, and
 * every contract's verification input (constructor arguments included) comes from the Ignition deployment. No
 * request is sent to an explorer.
 */
import { expect } from "chai";
import hre, { ethers } from "hardhat";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ZeroAddress } from "ethers";
import type { EthereumProvider } from "hardhat/types";
import type { DeploymentFile } from "../../deploy/deploymentFile";
import { readParameters } from "../../deploy/parameters";
import { deploySystem } from "../../deploy/system";
import { RiskLevel, vaultConfigs } from "../../deploy/vaults";
import { explorerEndpoints, sourcifyFiles, verificationTargets, type VerificationTarget } from "../../deploy/verify";
import { LOCAL_PARAMETERS, workspace, type Workspace } from "./helpers";

/** Just enough of a provider to say which chain it is on. */
function chainOnly(chainId: number): EthereumProvider {
  const answer = async () => `0x${chainId.toString(16)}`;
  return { send: answer, request: answer } as unknown as EthereumProvider;
}

describe("source verification (offline)", () => {
  it("Base Sepolia resolves to Etherscan's v2 endpoint with chainid 84532 and one key, and to Sourcify", async () => {
    // One key for every chain (a string, not a map per network) is what selects API v2; no v1 URL is configured.
    expect(typeof hre.config.etherscan.apiKey).to.equal("string");
    expect(hre.config.etherscan.customChains).to.deep.equal([]);
    expect(await explorerEndpoints(hre.config, "baseSepolia", chainOnly(84532))).to.deep.equal({
      etherscan: {
        apiUrl: "https://api.etherscan.io/v2/api",
        browserUrl: "https://sepolia.basescan.org",
        chainId: 84532,
      },
      sourcify: { enabled: true, apiUrl: "https://sourcify.dev/server", browserUrl: "https://repo.sourcify.dev" },
    });
    expect(hre.config.networks.baseSepolia).to.include({ chainId: 84532, url: "https://sepolia.base.org" });
    // The deployer key is not part of the configuration: the deployment reads it when it signs.
    expect(hre.config.networks.baseSepolia.accounts).to.equal("remote");
  });

  describe("from a deployment's Ignition journal", () => {
    let work: Workspace;
    let targets: VerificationTarget[];
    let deployer: string;
    let file: DeploymentFile;

    before(async () => {
      work = workspace("verify");
      [{ address: deployer }] = await ethers.getSigners();
      file = await deploySystem({ hre, parameters: await readParameters(LOCAL_PARAMETERS), ...work });
      targets = await verificationTargets(hre, work.journalDir);
    });
    after(() => work.remove());

    const target = (futureId: string) => {
      const found = targets.find((entry) => entry.futureId === futureId);
      if (!found) throw new Error(`no verification target ${futureId}`);
      return found;
    };

    it("lists every contract the deployment created, and no other", () => {
      expect(targets.map((entry) => entry.futureId)).to.deep.equal([
        "Badges#AgentBadges",
        "Faucet#NapFaucet",
        "Governance#NapGovernor",
        "Governance#TimelockController",
        "Lens#VaultLens",
        "Registry#StrategyRegistryV3",
        "Router#NapRouter",
        "Tokens#NapMinter",
        "Tokens#NapToken",
        "Tokens#TestUSDC",
        "Vaults#aggressive",
        "Vaults#configurable",
        "Vaults#conservative",
        "Vaults#hedged",
        "Vaults#inverse",
        "Vaults#moderate",
      ]);
      const version = hre.config.solidity.compilers[0].version;
      for (const entry of targets)
        expect(entry.compilerVersion).to.match(new RegExp(`^v${version}\\+commit\\.[0-9a-f]{8}`));
    });

    it("gives each contract's constructor arguments, decoded and exactly as its creation transaction encoded them", async () => {
      const timelock = target("Governance#TimelockController");
      expect(timelock.contract).to.equal(
        "@openzeppelin/contracts/governance/TimelockController.sol:TimelockController",
      );
      expect(timelock.constructorArguments).to.deep.equal(["172800", [], [ZeroAddress], deployer]);
      const token = target("Tokens#NapToken");
      expect(token.constructorArguments).to.deep.equal([
        deployer,
        deployer,
        "1000000000000000000000000",
        "1000000000000000000000000000",
      ]);
      const governor = target("Governance#NapGovernor");
      expect(governor.constructorArguments).to.deep.equal([
        token.address,
        timelock.address,
        "1",
        "300",
        "1000000000000000000",
        "4",
        "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
      ]);
      const moderate = target("Vaults#moderate");
      const config = vaultConfigs.moderate;
      expect(moderate.contract).to.equal("contracts/vaults/NapVault.sol:NapVault");
      expect((moderate.constructorArguments[0] as unknown[]).slice(1, 5)).to.deep.equal([
        config.name,
        config.symbol,
        String(RiskLevel[config.riskLevel]),
        config.async,
      ]);
      expect(target("Lens#VaultLens").constructorArguments).to.deep.equal([]);
      expect(target("Router#NapRouter").constructorArguments).to.deep.equal([]);
      // A creation transaction's data is the bytecode followed by the encoded constructor arguments.
      const blocks = new Map(
        [...Object.values(file.contracts), ...Object.values(file.vaults)].map((entry) => [entry.address, entry.block]),
      );
      for (const entry of targets) {
        const [hash] = (await ethers.provider.getBlock(blocks.get(entry.address)!))!.transactions;
        const creation = await ethers.provider.getTransaction(hash);
        expect(creation!.to, entry.futureId).to.equal(null);
        expect(creation!.data.endsWith(entry.encodedArguments), entry.futureId).to.equal(true);
      }
    });

    it("keeps a compact compiler input per contract in the deployment folder, enough for Sourcify", () => {
      const timelock = target("Governance#TimelockController");
      const files = sourcifyFiles(timelock, work.journalDir, join(hre.config.paths.artifacts, "build-info"));
      const metadata = JSON.parse(files["metadata.json"]) as { sources: Record<string, unknown> };
      expect(Object.keys(files).sort()).to.deep.equal(["metadata.json", ...Object.keys(metadata.sources)].sort());
      expect(Object.keys(JSON.parse(timelock.sourceCode).sources)).to.include(
        "@openzeppelin/contracts/governance/TimelockController.sol",
      );
      const stored = join(work.journalDir, "build-info");
      // The project's whole build info is about 40 MB; each contract keeps only the sources it was compiled from.
      const size = readdirSync(stored).reduce((total, name) => total + statSync(join(stored, name)).size, 0);
      expect(size).to.be.below(5_000_000);
    });
  });
});
