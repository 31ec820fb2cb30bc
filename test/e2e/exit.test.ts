import { expect } from "chai";
import { ethers } from "hardhat";
import { HDNodeWallet, type Wallet } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { operatorChangeStatement } from "../../api/src/domain/custodyStatements";
import { randomUUID } from "node:crypto";
import { registerAgent, request } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { NapVault__factory, TestUSDC__factory } from "../../typechain-types";
import { client, DEV_MNEMONIC, randomWallet, startE2eApp, type E2eSystem } from "./helpers";

type Body = Record<string, unknown>;

/**
 * The way out of a server wallet through HTTP against the in-process chain: USDC, ETH and vault shares go to the
 * agent's operator address and nowhere else, whatever key asks; the operator address changes only with the current
 * operator's signature.
 */
describe("E2E: the way out of the server wallet, to the operator only", function () {
  this.timeout(240_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let alice: ReturnType<typeof client>;
  let mallory: ReturnType<typeof client>;
  let aliceId: string;
  let aliceAddress: string;
  let malloryAddress: string;
  let operator: Wallet;
  let malloryOperator: Wallet;

  const moderate = () => NapVault__factory.connect(deployment.vaults.moderate!.address, ethers.provider);
  const usdc = () => TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, ethers.provider);
  const walletOf = async (agentId: string) => {
    const record = await system.store.agents.findById(agentId);
    return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).address;
  };
  const txCount = (address: string) => ethers.provider.getTransactionCount(address);

  /** The current operator's signed change of alice's operator, as a client does it: nonce, sign, send. */
  async function changeOperator(signer: Wallet, to: string, agentId = aliceId) {
    const nonce = await request<{ nonce: string; message: string }>(
      system.app.url,
      "POST",
      `/api/v1/agents/${agentId}/operator/nonce`,
      { body: { operator_address: signer.address, new_operator_address: to } },
    );
    expect(nonce.status, JSON.stringify(nonce.body)).to.equal(200);
    const signature = await signer.signMessage(nonce.body.message);
    const body = { new_operator_address: to, nonce: nonce.body.nonce, signature };
    return {
      nonce: nonce.body,
      body,
      response: await request(system.app.url, "POST", `/api/v1/agents/${agentId}/operator`, { body }),
    };
  }

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("exit", deployment, { STRATEGY_SCREENING: "off" });
    operator = randomWallet();
    malloryOperator = randomWallet();
    const a = await registerAgent(system.app.url, undefined, {
      agent_name: "alice",
      operator_address: operator.address,
    });
    const m = await registerAgent(system.app.url, undefined, {
      agent_name: "mallory",
      operator_address: malloryOperator.address,
    });
    alice = client(system.app.url, a.apiKey);
    mallory = client(system.app.url, m.apiKey);
    aliceId = a.agentId;
    aliceAddress = await walletOf(a.agentId);
    malloryAddress = await walletOf(m.agentId);
    for (const call of [alice, mallory]) expect((await call("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    const deposit = await alice("POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 40 });
    expect(deposit.status, JSON.stringify(deposit.body)).to.equal(200);
  });

  after(async function () {
    await system?.close();
  });

  it("attack: a stolen full key sends funds to its own address (refused: no request can name a recipient)", async function () {
    const thief = randomWallet().address;
    const nonce = await txCount(aliceAddress);
    const usdcBefore = await usdc().balanceOf(aliceAddress);
    const cases: [Body, string][] = [
      [{ asset: "usdc", amount: "all", to: thief }, "unknown field to"],
      [{ asset: "usdc", amount: "all", operator_address: thief }, "unknown field operator_address"],
      [{ asset: "eth", amount: "1000", recipient: thief }, "unknown field recipient"],
      [{ asset: "shares", vault_id: "moderate", amount: "all", receiver: thief }, "unknown field receiver"],
    ];
    for (const [body, message] of cases) {
      const response = await alice("POST", "/api/v1/agent/exit", body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body).to.deep.equal({ error: message });
    }
    // Nor can the key move the exit: the operator change wants the operator's signature, and the thief's is not it.
    const { response } = await changeOperator(randomWallet(), thief);
    expect(response.status).to.equal(403);
    expect(response.body).to.deep.equal({
      error: "signature: only the agent's current operator address can change its operator",
    });
    expect((await system.store.agents.findById(aliceId))!.operatorAddress).to.equal(operator.address);
    expect(await txCount(aliceAddress)).to.equal(nonce);
    expect(await usdc().balanceOf(aliceAddress)).to.equal(usdcBefore);
    expect(await usdc().balanceOf(thief)).to.equal(0n);
  });

  it("refuses exits beyond the wallet's balance, naming the amount, before any transaction", async function () {
    const nonce = await txCount(aliceAddress);
    const usdcHeld = await usdc().balanceOf(aliceAddress);
    const sharesHeld = await moderate().balanceOf(aliceAddress);
    const ethHeld = await ethers.provider.getBalance(aliceAddress);
    const cases: [Body, string][] = [
      [
        { asset: "usdc", amount: (usdcHeld + 1n).toString() },
        `amount: the agent wallet ${aliceAddress} holds ${usdcHeld} raw USDC (6 decimals), less than ${usdcHeld + 1n}`,
      ],
      [
        { asset: "shares", vault_id: "moderate", amount: (sharesHeld + 1n).toString() },
        `amount: the agent wallet ${aliceAddress} holds ${sharesHeld} raw shares of the moderate vault, less than ${sharesHeld + 1n}`,
      ],
      [
        { asset: "shares", vault_id: "conservative", amount: "all" },
        `amount: the agent wallet ${aliceAddress} holds 0 raw shares of the conservative vault`,
      ],
      [
        { asset: "eth", amount: (ethHeld + 1n).toString() },
        `amount: the agent wallet ${aliceAddress} holds ${ethHeld} wei, less than ${ethHeld + 1n}`,
      ],
      [
        { asset: "shares", amount: "all" },
        "vault_id: must be one of conservative, moderate, aggressive, inverse, hedged, configurable",
      ],
      [
        { asset: "usdc", amount: "0" },
        'amount: must be "all" or a positive whole number in the asset\'s smallest unit (as a string)',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await alice("POST", "/api/v1/agent/exit", body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body).to.deep.equal({ error: message });
    }
    expect(await txCount(aliceAddress)).to.equal(nonce);
  });

  it("attack: another agent's key on this agent's exit moves only its own wallet's funds, to its own operator", async function () {
    const aliceUsdc = await usdc().balanceOf(aliceAddress);
    const aliceNonce = await txCount(aliceAddress);
    const named = await mallory("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "all", agent_id: aliceId });
    expect(named.status).to.equal(400);
    expect(named.body).to.deep.equal({ error: "unknown field agent_id" });
    const held = await usdc().balanceOf(malloryAddress);
    const response = await mallory("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "all" });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body.agent_address).to.equal(malloryAddress);
    expect(response.body.operator_address).to.equal(malloryOperator.address);
    expect(await usdc().balanceOf(malloryOperator.address)).to.equal(held);
    expect(await usdc().balanceOf(operator.address)).to.equal(0n);
    expect(await usdc().balanceOf(aliceAddress)).to.equal(aliceUsdc);
    expect(await txCount(aliceAddress)).to.equal(aliceNonce);
    // Mallory's operator cannot take alice's agent either: its signature is not alice's operator's.
    const { response: change } = await changeOperator(malloryOperator, malloryOperator.address);
    expect(change.status).to.equal(403);
  });

  it("answers a retry with the same Idempotency-Key from the first exit, with no second transaction; another body: 409", async function () {
    const headers = { "Idempotency-Key": "exit-once-1" };
    const first = await alice("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "1000000" }, headers);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const nonce = await txCount(aliceAddress);
    const again = await alice("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "1000000" }, headers);
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(await txCount(aliceAddress)).to.equal(nonce);
    const other = await alice("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "2000000" }, headers);
    expect(other.status).to.equal(409);
    expect(other.body.error).to.equal("Idempotency-Key: this key was already used with a different request");
  });

  it("changes the operator only by the current operator's signature, once per nonce; exits then go to the new one", async function () {
    const next = randomWallet();
    // The operator's signature for one new operator does not carry to another.
    const signed = await changeOperator(operator, next.address);
    expect(signed.nonce.message).to.contain(operatorChangeStatement(aliceId, next.address));
    expect(signed.response.status, JSON.stringify(signed.response.body)).to.equal(200);
    expect(signed.response.body).to.deep.equal({
      success: true,
      agent_id: aliceId,
      operator_address: next.address,
      previous_operator_address: operator.address,
    });
    const replay = await request(system.app.url, "POST", `/api/v1/agents/${aliceId}/operator`, { body: signed.body });
    expect(replay.status).to.equal(400);
    expect(replay.body).to.deep.equal({ error: "nonce: already used; request a new nonce" });
    // The previous operator no longer can.
    const previous = await changeOperator(operator, operator.address);
    expect(previous.response.status).to.equal(403);
    // A signature over another change (the body's new operator swapped after signing) is refused.
    const swapNonce = await request<{ nonce: string; message: string }>(
      system.app.url,
      "POST",
      `/api/v1/agents/${aliceId}/operator/nonce`,
      { body: { operator_address: next.address, new_operator_address: operator.address } },
    );
    const swapped = await request(system.app.url, "POST", `/api/v1/agents/${aliceId}/operator`, {
      body: {
        new_operator_address: randomWallet().address,
        nonce: swapNonce.body.nonce,
        signature: await next.signMessage(swapNonce.body.message),
      },
    });
    expect(swapped.status).to.equal(400);
    expect(swapped.body).to.deep.equal({
      error:
        "signature: not a valid signature by the agent's operator of the message issued with this nonce for new_operator_address",
    });
    const unknown = await request(system.app.url, "POST", `/api/v1/agents/${randomUUID()}/operator`, {
      body: signed.body,
    });
    expect(unknown.status).to.equal(404);

    const exit = await alice("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "1000000" });
    expect(exit.status, JSON.stringify(exit.body)).to.equal(200);
    expect(exit.body.operator_address).to.equal(next.address);
    expect(await usdc().balanceOf(next.address)).to.equal(1_000_000n);
    operator = next;
  });
  it("attack: a stolen full key sends everything to the operator (allowed, the documented exit): shares, USDC, then ETH", async function () {
    const shares = await moderate().balanceOf(aliceAddress);
    const usdcHeld = await usdc().balanceOf(aliceAddress);
    const operatorUsdc = await usdc().balanceOf(operator.address);
    expect(shares > 0n && usdcHeld > 0n).to.equal(true);

    const sharesExit = await alice("POST", "/api/v1/agent/exit", {
      asset: "shares",
      vault_id: "moderate",
      amount: "all",
    });
    expect(sharesExit.status, JSON.stringify(sharesExit.body)).to.equal(200);
    const sharesReceipt = (await ethers.provider.getTransactionReceipt(sharesExit.body.tx_hash as string))!;
    expect(sharesReceipt.from).to.equal(aliceAddress);
    expect(sharesExit.body).to.deep.equal({
      success: true,
      agent_address: aliceAddress,
      operator_address: operator.address,
      asset: "shares",
      vault_id: "moderate",
      token_address: deployment.vaults.moderate!.address,
      amount_raw: shares.toString(),
      tx_hash: sharesReceipt.hash,
      status: "confirmed",
      block_number: sharesReceipt.blockNumber,
    });
    expect(await moderate().balanceOf(operator.address)).to.equal(shares);
    expect(await moderate().balanceOf(aliceAddress)).to.equal(0n);

    const usdcExit = await alice("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "all" });
    expect(usdcExit.status, JSON.stringify(usdcExit.body)).to.equal(200);
    expect(usdcExit.body.amount_raw).to.equal(usdcHeld.toString());
    expect(usdcExit.body.token_address).to.equal(deployment.contracts.TestUSDC.address);
    expect(await usdc().balanceOf(operator.address)).to.equal(operatorUsdc + usdcHeld);
    expect(await usdc().balanceOf(aliceAddress)).to.equal(0n);

    const operatorEth = await ethers.provider.getBalance(operator.address);
    const ethHeld = await ethers.provider.getBalance(aliceAddress);
    const ethExit = await alice("POST", "/api/v1/agent/exit", { asset: "eth", amount: "all" });
    expect(ethExit.status, JSON.stringify(ethExit.body)).to.equal(200);
    const ethReceipt = (await ethers.provider.getTransactionReceipt(ethExit.body.tx_hash as string))!;
    const ethTx = (await ethers.provider.getTransaction(ethReceipt.hash))!;
    const sent = BigInt(ethExit.body.amount_raw as string);
    expect(ethExit.body.asset).to.equal("eth");
    expect(ethExit.body.token_address).to.equal(null);
    expect(ethExit.body.vault_id).to.equal(null);
    expect(ethTx.to).to.equal(operator.address);
    expect(ethTx.value).to.equal(sent);
    expect(await ethers.provider.getBalance(operator.address)).to.equal(operatorEth + sent);
    // What stays is the gas reserve (twice the transfer's gas at the max fee) less what the transfer paid.
    const left = await ethers.provider.getBalance(aliceAddress);
    expect(left).to.equal(ethHeld - sent - ethReceipt.gasUsed * ethReceipt.gasPrice);
    expect(left <= 3n * ethReceipt.gasUsed * ethTx.maxFeePerGas!).to.equal(true);
  });
});
