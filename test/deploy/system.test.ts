import { expect } from "chai";
import hre, { ethers, network } from "hardhat";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HDNodeWallet, JsonRpcProvider, parseEther } from "ethers";
import { deploySystem, deploymentPath, type DeploymentFile } from "../../deploy/system";
import {
  BASE_SEPOLIA_CHAIN_ID,
  BASE_SEPOLIA_USDC,
  DEV_SERVER_WALLET_MNEMONIC,
  RELAYER_PATH,
  settingsFor,
} from "../../deploy/settings";
import { NapToken__factory, TestUSDC__factory } from "../../typechain-types";
import { checkDeployment } from "./checkDeployment";

/** solidity-coverage marks the runtime environment while it runs the tests on instrumented contracts. */
const coverageRunning = Boolean(
  (hre as unknown as { __SOLIDITY_COVERAGE_RUNNING?: boolean }).__SOLIDITY_COVERAGE_RUNNING,
);

describe("deploySystem", () => {
  let outDir: string;
  beforeEach(() => {
    outDir = mkdtempSync(join(tmpdir(), "nap-deploy-"));
  });
  afterEach(() => rmSync(outDir, { recursive: true, force: true }));

  describe("on the local chain (31337)", () => {
    it("deploys and wires everything, writes the file, and a re-run changes nothing", async () => {
      const signers = await ethers.getSigners();
      const deployer = signers[0];
      const settings = settingsFor(
        31337,
        network.name,
        {},
        deployer.address,
        signers.map((s) => s.address),
      );
      expect(settings.relayer).to.equal(
        HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, RELAYER_PATH).address,
      );
      expect(settings.guardians).to.deep.equal(signers.slice(1, 4).map((s) => s.address));
      expect(settings.oracles).to.deep.equal(signers.slice(4, 7).map((s) => s.address));
      expect(settings.registry).to.deep.equal({
        guardianThreshold: 2,
        oracleThreshold: 2,
        minPaperTradingPeriod: 60,
      });
      expect(settings.usdc).to.equal(undefined);

      // Other suites share this chain: the relayer is topped up to 100 ETH, or left alone if it holds more.
      const relayerBefore = await ethers.provider.getBalance(settings.relayer);
      const file = await deploySystem({ deployer, settings, outDir });
      const written = JSON.parse(readFileSync(deploymentPath(outDir, 31337), "utf8")) as DeploymentFile;
      expect(written).to.deep.equal(file);
      await checkDeployment(ethers.provider, written, settings, deployer.address);
      expect(await ethers.provider.getBalance(file.contracts.NapFaucet!.address)).to.equal(parseEther("100"));
      const hundred = parseEther("100");
      expect(await ethers.provider.getBalance(settings.relayer)).to.equal(
        relayerBefore > hundred ? relayerBefore : hundred,
      );

      // Re-run: no transaction, same file (even updatedAt).
      const nonce = await ethers.provider.getTransactionCount(deployer.address);
      const again = await deploySystem({ deployer, settings, outDir });
      expect(await ethers.provider.getTransactionCount(deployer.address)).to.equal(nonce);
      expect(again).to.deep.equal(file);
      expect(JSON.parse(readFileSync(deploymentPath(outDir, 31337), "utf8"))).to.deep.equal(file);
    });

    it("redeploys only a recorded contract whose code is gone, and refuses wiring once the deployer is not admin", async () => {
      const signers = await ethers.getSigners();
      const deployer = signers[0];
      const settings = settingsFor(
        31337,
        network.name,
        {},
        deployer.address,
        signers.map((s) => s.address),
      );
      const file = await deploySystem({ deployer, settings, outDir });

      await network.provider.send("hardhat_setCode", [file.contracts.VaultLens!.address, "0x"]);
      const lines: string[] = [];
      const again = await deploySystem({
        deployer,
        settings,
        outDir,
        log: (l) => lines.push(l),
      });
      expect(again.contracts.VaultLens!.address).to.not.equal(file.contracts.VaultLens!.address);
      expect({ ...again.contracts, VaultLens: undefined }).to.deep.equal({
        ...file.contracts,
        VaultLens: undefined,
      });
      expect(again.vaults).to.deep.equal(file.vaults);
      expect(lines.filter((l) => l.startsWith("deploy "))).to.deep.equal([
        `deploy  VaultLens at ${again.contracts.VaultLens!.address} (block ${again.contracts.VaultLens!.block})`,
      ]);

      // A new guardian cannot be added by a re-run: the timelock is the admin now.
      const withNewGuardian = {
        ...settings,
        guardians: [...settings.guardians, signers[9].address],
      };
      let message = "";
      await deploySystem({ deployer, settings: withNewGuardian, outDir }).catch((e: Error) => (message = e.message));
      expect(message).to.match(/lacks role .* deployer is no longer its admin; grant it through a governance proposal/);
    });

    it("timelock on chain shorter than the slowest vault exit: the run stops naming TIMELOCK_MIN_DELAY", async () => {
      const signers = await ethers.getSigners();
      const deployer = signers[0];
      const settings = settingsFor(
        31337,
        network.name,
        {},
        deployer.address,
        signers.map((s) => s.address),
      );
      // Settings that slipped past settingsFor (or a timelock reused from an older deployment).
      const short = { ...settings, governor: { ...settings.governor, timelockDelay: 60 } };
      let message = "";
      await deploySystem({ deployer, settings: short, outDir }).catch((e: Error) => (message = e.message));
      expect(message).to.match(
        /^TIMELOCK_MIN_DELAY: the timelock at 0x[0-9a-fA-F]{40} waits 60 s, less than the longest vault fulfilment delay on chain \(86400 s\) plus the exit margin \(86400 s\)/,
      );
    });

    it("relayer still holding the token's MINTER_ROLE from an earlier deployment: the re-run stops and says so", async () => {
      const signers = await ethers.getSigners();
      const deployer = signers[0];
      const settings = settingsFor(
        31337,
        network.name,
        {},
        deployer.address,
        signers.map((s) => s.address),
      );
      const file = await deploySystem({ deployer, settings, outDir });
      const timelock = file.contracts.TimelockController!.address;
      await network.provider.send("hardhat_impersonateAccount", [timelock]);
      await network.provider.send("hardhat_setBalance", [timelock, "0xde0b6b3a7640000"]);
      const token = NapToken__factory.connect(file.contracts.NapToken!.address, await ethers.getSigner(timelock));
      await token.grantRole(await token.MINTER_ROLE(), settings.relayer);
      await network.provider.send("hardhat_stopImpersonatingAccount", [timelock]);
      let message = "";
      await deploySystem({ deployer, settings, outDir }).catch((e: Error) => (message = e.message));
      expect(message).to.equal(
        `the relayer ${settings.relayer} holds MINTER_ROLE on NapToken ${file.contracts.NapToken!.address} (an ` +
          "earlier deployment): revoke it through a governance proposal; the relayer mints through NapMinter",
      );
    });

    it("refuses settings for another chain", async () => {
      const [deployer, guardian, oracle] = await ethers.getSigners();
      const settings = settingsFor(
        BASE_SEPOLIA_CHAIN_ID,
        "baseSepolia",
        {
          SERVICE_RELAYER_ADDRESS: deployer.address,
          GUARDIAN_ADDRESSES: guardian.address,
          ORACLE_ADDRESSES: oracle.address,
        },
        deployer.address,
        [],
      );
      let message = "";
      await deploySystem({ deployer, settings, outDir }).catch((e: Error) => (message = e.message));
      expect(message).to.equal("Connected to chain 31337, settings are for 84532");
    });
  });

  describe("with the Base Sepolia settings on a local chain with chain id 84532", () => {
    let node: ChildProcess | undefined;
    let provider: JsonRpcProvider;
    const port = 18545 + Math.floor(Math.random() * 1000);

    before(async function () {
      this.timeout(120_000);
      // Run Hardhat's CLI with this Node binary directly, so that the pid we kill is the node itself (not npx).
      node = spawn(process.execPath, [require.resolve("hardhat/internal/cli/cli.js"), "node", "--port", String(port)], {
        env: {
          ...process.env,
          HARDHAT_CHAIN_ID: String(BASE_SEPOLIA_CHAIN_ID),
          // Under `npm run coverage` the deployed bytecode is instrumented and larger than EIP-170 allows.
          ...(coverageRunning ? { HARDHAT_ALLOW_UNLIMITED_CONTRACT_SIZE: "true" } : {}),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      await new Promise<void>((resolve, reject) => {
        let output = "";
        node!.stdout!.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("Started HTTP and WebSocket JSON-RPC server")) resolve();
        });
        node!.on("exit", (code) => reject(new Error(`hardhat node exited with ${code}: ${output}`)));
      });
      provider = new JsonRpcProvider(`http://127.0.0.1:${port}`, undefined, {
        staticNetwork: true,
        polling: true,
      });
      // Circle's USDC does not exist on this chain: put a 6-decimal ERC-20's code at its address.
      await provider.send("hardhat_setCode", [BASE_SEPOLIA_USDC, await runtimeCodeOfTestUsdc()]);
    });

    after(() => {
      provider?.destroy();
      if (node?.pid) node.kill("SIGTERM");
    });

    it("uses Circle's USDC, no funding, testnet governance delays, env-given roles, and writes 84532.json", async () => {
      expect(Number((await provider.getNetwork()).chainId)).to.equal(BASE_SEPOLIA_CHAIN_ID);
      const deployer = await provider.getSigner(0);
      const deployerAddress = await deployer.getAddress();
      const accounts = (await provider.send("eth_accounts", [])) as string[];
      const guardianAddresses = accounts.slice(10, 13).map((a) => ethers.getAddress(a));
      const oracleAddresses = accounts.slice(13, 15).map((a) => ethers.getAddress(a));
      const env = {
        SERVER_WALLET_MNEMONIC: DEV_SERVER_WALLET_MNEMONIC,
        GUARDIAN_ADDRESSES: guardianAddresses.join(","),
        ORACLE_ADDRESSES: oracleAddresses.join(" , "),
      };
      const settings = settingsFor(BASE_SEPOLIA_CHAIN_ID, "baseSepolia", env, deployerAddress, []);
      expect(settings.local).to.equal(false);
      expect(settings.usdc).to.equal(BASE_SEPOLIA_USDC);
      expect(settings.relayer).to.equal(
        HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, RELAYER_PATH).address,
      );
      expect(settings.governor).to.deep.equal({
        votingDelay: 300,
        votingPeriod: 86_400,
        proposalThreshold: parseEther("1"),
        quorumPercent: 4,
        timelockDelay: 172_800,
        guardian: guardianAddresses[0],
      });
      expect(settings.minter).to.deep.equal({ budget: parseEther("10000"), period: 86_400 });
      expect(settings.warnings).to.deep.equal([]);
      expect(settings.registry).to.deep.equal({
        guardianThreshold: 2,
        oracleThreshold: 2,
        minPaperTradingPeriod: 86_400,
      });
      expect(settings.faucet).to.deep.equal({
        ethAmount: parseEther("0.001"),
        usdcAmount: 0n,
        cooldown: 86_400,
      });
      expect(settings.funding).to.deep.equal({ faucetWei: 0n, relayerWei: 0n });

      const relayerBalanceBefore = await provider.getBalance(settings.relayer);
      const file = await deploySystem({ deployer, settings, outDir });
      expect(file.chainId).to.equal(BASE_SEPOLIA_CHAIN_ID);
      expect(file.contracts.TestUSDC).to.equal(undefined);
      const written = JSON.parse(readFileSync(join(outDir, "84532.json"), "utf8")) as DeploymentFile;
      expect(written).to.deep.equal(file);
      await checkDeployment(provider, written, settings, deployerAddress);
      expect(await provider.getBalance(file.contracts.NapFaucet!.address)).to.equal(0n);
      expect(await provider.getBalance(settings.relayer)).to.equal(relayerBalanceBefore);
    });
  });
});

async function runtimeCodeOfTestUsdc(): Promise<string> {
  const [deployer] = await ethers.getSigners();
  const usdc = await new TestUSDC__factory(deployer).deploy(deployer.address);
  return ethers.provider.getCode(await usdc.getAddress());
}
