import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getAddress, JsonRpcProvider, Wallet } from "ethers";
import { NapClient } from "@nap/sdk";
import type { Deployment } from "../../api/src/chain/deployment";
import {
  NapGovernor__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
} from "../../typechain-types";
import { request } from "../api/helpers/app";
import { signerSetup, type SignerSetup } from "../helpers/signerModes";
import { transcriptNote } from "../helpers/transcript";
import { DEV_MNEMONIC, OPERATOR_KEY } from "./helpers";
import { deployTo, kill, rpc, spawnApi, spawnHardhatNode, type Spawned } from "./processes";

/**
 * Issue 31's closing run: the API as its own process, started with the server wallets' keys in a remote signer or in
 * an encrypted keystore, and no mnemonic anywhere in its environment (read from /proc, as the OS holds it). An
 * agent's whole journey through the SDK against it: register, faucet, deposit, withdraw, a strategy, a vote, and
 * everything out to its operator.
 */

/** The environment the OS holds for a process: NAME=value entries. */
function environmentOf(pid: number): Map<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

describe("E2E: the API process with no mnemonic (remote signer, keystore): an agent's whole journey and its exit", function () {
  this.timeout(600_000);

  before(function () {
    if (process.platform !== "linux") this.skip();
  });

  for (const mode of ["remote", "keystore"] as const) {
    describe(`${mode} signer`, function () {
      let node: Spawned;
      let outDir: string;
      let deployment: Deployment;
      let provider: JsonRpcProvider;
      let setup: SignerSetup;
      let api: Spawned;

      // A chain of its own per mode: the same seed gives the first agent the same wallet in both, and the faucet's
      // cooldown and the agent's votes are the chain's.
      before(async function () {
        node = await spawnHardhatNode();
        outDir = mkdtempSync(path.join(tmpdir(), "nap-no-mnemonic-"));
        await deployTo(node.url, outDir);
        deployment = JSON.parse(readFileSync(path.join(outDir, "31337.json"), "utf8")) as Deployment;
        provider = new JsonRpcProvider(node.url, 31337, { staticNetwork: true });
        setup = await signerSetup(mode, DEV_MNEMONIC, 4);
        api = await spawnApi({
          ...setup.env,
          RPC_URL: node.url,
          CHAIN_ID: "31337",
          DEPLOYMENT_FILE: path.join(outDir, "31337.json"),
          AGENT_API_KEYS: OPERATOR_KEY,
          SIGNATURE_WORKERS: "0",
          STRATEGY_SCREENING: "off",
        });
      });

      after(async function () {
        if (api) await kill(api.child);
        await setup?.close();
        provider?.destroy();
        if (node) await kill(node.child);
        if (outDir) rmSync(outDir, { recursive: true, force: true });
      });

      it("the process's environment names no mnemonic and holds none", function () {
        const environment = environmentOf(api.child.pid!);
        const named = [...environment.keys()].filter((name) => /MNEMONIC/i.test(name));
        const holding = [...environment].filter(([, value]) => value.includes(DEV_MNEMONIC)).map(([name]) => name);
        expect({ named, holding }).to.deep.equal({ named: [], holding: [] });
        const signerSettings = [...environment.keys()].filter((name) => /^(REMOTE_SIGNER|SERVER_WALLET)/.test(name));
        expect(signerSettings.sort()).to.deep.equal(
          mode === "remote"
            ? ["REMOTE_SIGNER_URL"]
            : ["SERVER_WALLET_KEYSTORE", "SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE"],
        );
        transcriptNote(`the API process ${api.child.pid} (${mode} signer): ${signerSettings.join(", ")}; no MNEMONIC`);
      });

      it("an agent registers, drips, deposits, withdraws, submits a strategy, votes and takes everything to its operator", async function () {
        const owner = Wallet.createRandom();
        const nap = new NapClient({ baseUrl: api.url, maxRetries: 0 });
        const registered = await nap.register({ signer: owner, agentName: `${mode} agent` });
        const wallet = await nap.wallet();
        const agentAddress = wallet.agent_address!;

        const drip = await nap.faucet();
        expect(drip.status).to.equal("confirmed");
        const deposit = await nap.deposit({ vault_id: "moderate", amount_usdc: 100.5 });
        expect((await provider.getTransaction(deposit.deposit_tx))!.from).to.equal(agentAddress);
        const withdrawal = await nap.withdraw({ vault_id: "moderate", amount_usdc: 20.5 });
        expect(withdrawal).to.include({ amount_raw: "20500000", status: "confirmed" });
        const strategy = await nap.submitStrategy({ name: `${mode} strategy`, description: "Buys dips, sells rips" });
        const registry = StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, provider);
        expect((await registry.getStrategy(strategy.strategy_id)).owner).to.equal(agentAddress);

        const grant = await request(api.url, "POST", `/api/v1/operator/agents/${registered.agent_id}/tier`, {
          body: { tier: "established" },
          headers: { "X-API-Key": OPERATOR_KEY },
        });
        expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
        const proposer = await provider.getSigner(0);
        const governor = NapGovernor__factory.connect(deployment.contracts.NapGovernor.address, proposer);
        const calldata = registry.interface.encodeFunctionData("setGuardianThreshold", [2]);
        await (
          await governor.propose([await registry.getAddress()], [0n], [calldata], `Threshold 2 (${mode} signer run)`)
        ).wait();
        const proposalId = await governor.proposalCount();
        await rpc(node.url, "evm_increaseTime", [2]);
        await rpc(node.url, "evm_mine");
        // The proposal was made on the chain, not through this API: the service sees it once it has read that block.
        for (let tries = 0; ; tries += 1) {
          const { proposals } = await nap.proposals();
          if (proposals.some((p) => p.proposal_id === proposalId.toString() && p.state === "active")) break;
          expect(tries, `proposal ${proposalId} never listed active`).to.be.below(100);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const vote = await nap.vote({ proposal_id: String(proposalId), support: 1 });
        expect(vote).to.include({ support_label: "for", weight: "100", status: "confirmed" });

        const vault = NapVault__factory.connect(deployment.vaults.moderate!.address, provider);
        const usdc = TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, provider);
        const shares = await vault.balanceOf(agentAddress);
        const usdcHeld = await usdc.balanceOf(agentAddress);
        for (const body of [
          { asset: "shares", vault_id: "moderate", amount: "all" },
          { asset: "usdc", amount: "all" },
          { asset: "eth", amount: "all" },
        ] as const) {
          const exit = await nap.exitToOperator(body);
          expect(exit).to.include({ operator_address: owner.address, asset: body.asset, status: "confirmed" });
          expect((await provider.getTransaction(exit.tx_hash))!.from).to.equal(agentAddress);
        }
        expect(await vault.balanceOf(owner.address)).to.equal(shares);
        expect(await usdc.balanceOf(owner.address)).to.equal(usdcHeld);
        expect([await vault.balanceOf(agentAddress), await usdc.balanceOf(agentAddress)]).to.deep.equal([0n, 0n]);
        expect((await provider.getBalance(owner.address)) > 0n).to.equal(true);

        const sent = await provider.getTransactionCount(agentAddress);
        if (setup.signer) {
          // Every one of the agent's transactions was signed by the signer process: the service holds no key.
          const signed = setup.signer.signRequests.filter((r) => getAddress(r.from) === agentAddress);
          expect(signed).to.have.length(sent);
          transcriptNote(`the remote signer signed all ${sent} of the agent's transactions (eth_signTransaction)`);
        }
      });
    });
  }
});
