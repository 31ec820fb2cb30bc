import { expect } from "chai";
import { ethers } from "hardhat";
import { HDNodeWallet, Wallet } from "ethers";
import type { Deployment } from "../../../api/src/chain/deployment";
import { DEV_MNEMONIC, OPERATOR_KEY, client } from "../../e2e/helpers";
import { signerSetup, type SignerSetup } from "../../helpers/signerModes";
import { registerAgent, request, startTestApp, type TestApp } from "../helpers/app";
import { deployTestSystem } from "../helpers/system";

/**
 * The live API with the server wallets held outside its environment: a remote signer (the service holds no key) and
 * an encrypted keystore (no mnemonic in the environment). A faucet drip (relayer) and a deposit (agent) go through
 * the engine to the chain; the wallets are the same as the mnemonic mode's.
 */

describe("Signer boundary: the live API with a remote signer and with a keystore (no mnemonic in the service)", function () {
  this.timeout(300_000);

  let deployment: Deployment;

  before(async function () {
    deployment = await deployTestSystem();
  });

  for (const mode of ["remote", "keystore"] as const) {
    describe(`${mode} mode`, () => {
      let setup: SignerSetup;
      let api: TestApp;

      before(async function () {
        setup = await signerSetup(mode, DEV_MNEMONIC);
        api = await startTestApp({
          deployment,
          env: { ...setup.env, AGENT_API_KEYS: OPERATOR_KEY },
          extra: { engineOptions: { pollIntervalMs: 20 } },
        });
        await api.app.useCases.start();
      });

      after(async function () {
        await api?.app.useCases.settled();
        await api?.close();
        await setup?.close();
      });

      it("holds no mnemonic, drips from the relayer and deposits from the agent's wallet through the signer", async function () {
        expect(api.config.serverWalletMnemonic).to.equal(undefined);
        const { apiKey, agentId } = await registerAgent(api.url, Wallet.createRandom() as unknown as Wallet);
        const record = await api.store.agents.findById(agentId);
        const expected = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`);
        const call = client(api.url, apiKey);

        const wallet = await call("GET", "/api/v1/agent/wallet");
        expect(wallet.status, JSON.stringify(wallet.body)).to.equal(200);
        expect(wallet.body.agent_address).to.equal(expected.address);

        const drip = await call("POST", "/api/v1/agent/faucet");
        expect(drip.status, JSON.stringify(drip.body)).to.equal(200);
        const dripTx = await ethers.provider.getTransaction(drip.body.tx_hash as string);
        const relayer = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, "m/44'/60'/0'/0/0").address;
        expect(dripTx?.from).to.equal(relayer);

        const deposit = await call(
          "POST",
          "/api/v1/agent/vault/deposit",
          { vault_id: "moderate", amount_usdc: 2.5 },
          { "Idempotency-Key": `signer-${mode}-deposit` },
        );
        expect(deposit.status, JSON.stringify(deposit.body)).to.equal(200);
        expect(deposit.body.status).to.equal("confirmed");
        for (const hash of [deposit.body.approve_tx, deposit.body.deposit_tx]) {
          const tx = await ethers.provider.getTransaction(hash as string);
          expect(tx?.from).to.equal(expected.address);
          expect((await ethers.provider.getTransactionReceipt(hash as string))?.status).to.equal(1);
        }
        if (setup.signer) {
          // Every transaction was signed by the remote signer: the drip by accounts[0], approve and deposit by the agent.
          const froms = setup.signer.signRequests.map((r) => r.from);
          expect(froms).to.include(relayer);
          expect(froms.filter((f) => f === expected.address)).to.have.length(2);
        }
        const positions = await call("GET", "/api/v1/agent/vault/positions");
        expect(positions.status, JSON.stringify(positions.body)).to.equal(200);
      });
    });
  }

  it("a new agent beyond the remote signer's accounts gets a clear 503 at registration", async function () {
    const setup = await signerSetup("remote", DEV_MNEMONIC, 0);
    const api = await startTestApp({ deployment, env: setup.env });
    try {
      await api.app.useCases.start();
      const wallet = Wallet.createRandom();
      const nonce = await request<{ nonce: string; message: string }>(
        api.url,
        "GET",
        `/api/v1/agent/auth/nonce?wallet=${wallet.address}`,
      );
      const response = await request(api.url, "POST", "/api/v1/agent/auth/register", {
        body: {
          wallet_address: wallet.address,
          signature: await wallet.signMessage(nonce.body.message),
          nonce: nonce.body.nonce,
          agent_name: "one too many",
          operator_address: wallet.address,
        },
      });
      expect(response.status, JSON.stringify(response.body)).to.equal(503);
      expect(response.body.error).to.match(
        /^agent wallet #\d+ has no key at the service's remote signer, which lists 1 account\(s\): the first signs for the relayer, then one per agent in order; add keys there and restart the service$/,
      );
    } finally {
      await api.close();
      await setup.close();
    }
  });
});
