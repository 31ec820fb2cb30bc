import { expect } from "chai";
import { ethers } from "hardhat";
import {
  impersonateAccount,
  setBalance,
  stopImpersonatingAccount,
  time,
} from "@nomicfoundation/hardhat-network-helpers";
import { HDNodeWallet, type Log } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { registerAgent } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { NapVault__factory, TestUSDC__factory, type NapVault } from "../../typechain-types";
import { client, DEV_MNEMONIC, startE2eApp, type E2eSystem } from "./helpers";

type Body = Record<string, unknown>;
const DAY = 86_400;
const HOUR = 3_600;

/**
 * Exits through HTTP against the in-process chain: withdraw and redeem from a synchronous vault, request, claim
 * and cancel in an asynchronous one (relayer fulfilment, and the permissionless one after the grace period), the
 * transaction status endpoint, and what another agent can and cannot do to a position that is not its own.
 */
describe("E2E: withdrawals from the vaults through HTTP", function () {
  this.timeout(240_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let alice: ReturnType<typeof client>;
  let mallory: ReturnType<typeof client>;
  let aliceAddress: string;
  let aliceId: string;
  let malloryAddress: string;

  const vault = (id: "moderate" | "aggressive"): NapVault =>
    NapVault__factory.connect(deployment.vaults[id]!.address, ethers.provider);
  const usdc = () => TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, ethers.provider);
  const walletOf = async (agentId: string) => {
    const record = await system.store.agents.findById(agentId);
    return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).address;
  };
  const eventOf = (v: NapVault, logs: readonly Log[], name: string) => {
    for (const log of logs) {
      if (log.address !== v.target) continue;
      const parsed = v.interface.parseLog(log);
      if (parsed?.name === name) return parsed.args;
    }
    throw new Error(`no ${name} event`);
  };

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("withdrawals", deployment, { STRATEGY_SCREENING: "off" });
    const a = await registerAgent(system.app.url, undefined, { agent_name: "alice" });
    const m = await registerAgent(system.app.url, undefined, { agent_name: "mallory" });
    alice = client(system.app.url, a.apiKey);
    mallory = client(system.app.url, m.apiKey);
    aliceAddress = await walletOf(a.agentId);
    aliceId = a.agentId;
    malloryAddress = await walletOf(m.agentId);
    for (const call of [alice, mallory]) expect((await call("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    for (const [vaultId, amount] of [
      ["moderate", 300],
      ["aggressive", 200],
    ] as const) {
      const deposit = await alice("POST", "/api/v1/agent/vault/deposit", { vault_id: vaultId, amount_usdc: amount });
      expect(deposit.status, JSON.stringify(deposit.body)).to.equal(200);
    }
  });

  after(async function () {
    await system?.close();
  });

  it("withdraws 50.25 USDC from the synchronous moderate vault: one transaction, the Withdraw event's figures", async function () {
    const moderate = vault("moderate");
    const usdcBefore = await usdc().balanceOf(aliceAddress);
    const sharesBefore = await moderate.balanceOf(aliceAddress);
    const response = await alice("POST", "/api/v1/agent/vault/withdraw", { vault_id: "moderate", amount_usdc: 50.25 });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const receipt = (await ethers.provider.getTransactionReceipt(response.body.tx_hash as string))!;
    expect(receipt.from).to.equal(aliceAddress);
    const event = eventOf(moderate, receipt.logs, "Withdraw");
    expect(event.owner).to.equal(aliceAddress);
    expect(event.receiver).to.equal(aliceAddress);
    expect(event.assets).to.equal(50_250_000n);
    const decimals = Number(await moderate.decimals());
    const sharesAfter = await moderate.balanceOf(aliceAddress);
    expect(sharesBefore - sharesAfter).to.equal(event.shares);
    expect(await usdc().balanceOf(aliceAddress)).to.equal(usdcBefore + 50_250_000n);
    expect(response.body).to.deep.equal({
      success: true,
      agent_address: aliceAddress,
      vault_id: "moderate",
      vault: await moderate.name(),
      vault_address: deployment.vaults.moderate!.address,
      status: "confirmed",
      block_number: receipt.blockNumber,
      tx_hash: receipt.hash,
      amount_usdc: 50.25,
      amount_raw: "50250000",
      shares: ethers.formatUnits(event.shares as bigint, decimals).replace(/\.0$/, ""),
      shares_raw: (event.shares as bigint).toString(),
      shares_balance: sharesAfter.toString(),
    });
  });

  it("answers a retry with the same Idempotency-Key from the first withdrawal, with no second transaction", async function () {
    const headers = { "Idempotency-Key": "withdraw-once-1" };
    const first = await alice(
      "POST",
      "/api/v1/agent/vault/withdraw",
      { vault_id: "moderate", amount_usdc: 1 },
      headers,
    );
    expect(first.status).to.equal(200);
    const nonce = await ethers.provider.getTransactionCount(aliceAddress);
    const again = await alice(
      "POST",
      "/api/v1/agent/vault/withdraw",
      { vault_id: "moderate", amount_usdc: 1 },
      headers,
    );
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(await ethers.provider.getTransactionCount(aliceAddress)).to.equal(nonce);
    const other = await alice(
      "POST",
      "/api/v1/agent/vault/withdraw",
      { vault_id: "moderate", amount_usdc: 2 },
      headers,
    );
    expect(other.status).to.equal(409);
    expect(other.body.error).to.equal("Idempotency-Key: this key was already used with a different request");
  });

  it("refuses exits that cannot work, naming the field, before any transaction", async function () {
    const moderate = vault("moderate");
    const nonce = await ethers.provider.getTransactionCount(aliceAddress);
    const max = await moderate.maxWithdraw(aliceAddress);
    const shares = await moderate.balanceOf(aliceAddress);
    const cases: [string, Body, number, string][] = [
      [
        "/api/v1/agent/vault/withdraw",
        { vault_id: "moderate", amount_usdc: 1000 },
        400,
        `amount_usdc: the agent wallet ${aliceAddress} can withdraw at most ${ethers.formatUnits(max, 6).replace(/\.0$/, "")} USDC from the moderate vault (its shares' value, rounded down), less than 1000`,
      ],
      [
        "/api/v1/agent/vault/withdraw",
        { vault_id: "moderate", shares: (shares + 1n).toString() },
        400,
        `shares: the agent wallet ${aliceAddress} holds ${shares} shares (raw) of the moderate vault, less than ${shares + 1n}`,
      ],
      ["/api/v1/agent/vault/withdraw", { vault_id: "moderate" }, 400, "amount_usdc: give amount_usdc or shares"],
      [
        "/api/v1/agent/vault/withdraw",
        { vault_id: "moderate", amount_usdc: 1, shares: "all" },
        400,
        "amount_usdc: give amount_usdc or shares, not both",
      ],
      [
        "/api/v1/agent/vault/withdraw",
        { vault_id: "moderate", shares: "-5" },
        400,
        'shares: must be "all" or a positive whole number of raw shares (as a string)',
      ],
      [
        "/api/v1/agent/vault/withdraw",
        { vault_id: "aggressive", amount_usdc: 1 },
        400,
        "vault_id: the aggressive vault redeems asynchronously (ERC-7540): POST /api/v1/agent/vault/redeem-request, then POST /api/v1/agent/vault/claim once it is ready",
      ],
      [
        "/api/v1/agent/vault/redeem-request",
        { vault_id: "moderate", shares: "all" },
        400,
        "vault_id: the moderate vault redeems at once (ERC-4626): use POST /api/v1/agent/vault/withdraw",
      ],
      [
        "/api/v1/agent/vault/claim",
        { vault_id: "aggressive" },
        409,
        `vault_id: the agent wallet ${aliceAddress} has nothing to claim in the aggressive vault; request a redemption first with POST /api/v1/agent/vault/redeem-request`,
      ],
      [
        "/api/v1/agent/vault/redeem-cancel",
        { vault_id: "aggressive" },
        409,
        `vault_id: the agent wallet ${aliceAddress} has no pending redemption request, nor canceled shares to claim back, in the aggressive vault`,
      ],
    ];
    for (const [path, body, status, message] of cases) {
      const response = await alice("POST", path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).to.equal(status);
      expect(response.body).to.deep.equal({ error: message });
    }
    expect(await ethers.provider.getTransactionCount(aliceAddress)).to.equal(nonce);
  });

  it("attack: another agent cannot withdraw, request, claim or cancel shares that are not its own", async function () {
    const moderate = vault("moderate");
    const aggressive = vault("aggressive");
    const aliceModerate = await moderate.balanceOf(aliceAddress);
    const aliceAggressive = await aggressive.balanceOf(aliceAddress);
    const nonce = await ethers.provider.getTransactionCount(malloryAddress);
    const withdraw = await mallory("POST", "/api/v1/agent/vault/withdraw", { vault_id: "moderate", shares: "all" });
    expect(withdraw.status).to.equal(400);
    expect(withdraw.body.error).to.equal(
      `shares: the agent wallet ${malloryAddress} holds 0 shares (raw) of the moderate vault`,
    );
    const request = await mallory("POST", "/api/v1/agent/vault/redeem-request", {
      vault_id: "aggressive",
      shares: aliceAggressive.toString(),
    });
    expect(request.status).to.equal(400);
    // Unknown fields (a way to name another owner or receiver) are refused, not ignored.
    const named = await mallory("POST", "/api/v1/agent/vault/withdraw", {
      vault_id: "moderate",
      shares: "all",
      owner: aliceAddress,
    });
    expect(named.status).to.equal(400);
    expect(named.body.error).to.equal("unknown field owner");
    const claim = await mallory("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
    expect(claim.status).to.equal(409);
    const cancel = await mallory("POST", "/api/v1/agent/vault/redeem-cancel", { vault_id: "aggressive" });
    expect(cancel.status).to.equal(409);
    expect(await ethers.provider.getTransactionCount(malloryAddress)).to.equal(nonce);
    expect(await moderate.balanceOf(aliceAddress)).to.equal(aliceModerate);
    expect(await aggressive.balanceOf(aliceAddress)).to.equal(aliceAggressive);
  });

  let requestTx: string;

  it("requests a redemption of half the aggressive shares: ready after the vault's delay, anyone an hour later", async function () {
    const aggressive = vault("aggressive");
    const shares = (await aggressive.balanceOf(aliceAddress)) / 2n;
    const response = await alice("POST", "/api/v1/agent/vault/redeem-request", {
      vault_id: "aggressive",
      shares: shares.toString(),
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const receipt = (await ethers.provider.getTransactionReceipt(response.body.tx_hash as string))!;
    const block = (await ethers.provider.getBlock(receipt.blockNumber))!;
    const delay = Number(await aggressive.fulfillmentDelay());
    expect(delay).to.equal(DAY);
    expect(await aggressive.pendingRedeemRequest(0, aliceAddress)).to.equal(shares);
    const decimals = Number(await aggressive.decimals());
    expect(response.body).to.deep.equal({
      success: true,
      agent_address: aliceAddress,
      vault_id: "aggressive",
      vault: await aggressive.name(),
      vault_address: deployment.vaults.aggressive!.address,
      status: "confirmed",
      block_number: receipt.blockNumber,
      tx_hash: receipt.hash,
      shares: ethers.formatUnits(shares, decimals).replace(/\.0$/, ""),
      shares_raw: shares.toString(),
      pending_shares_raw: shares.toString(),
      ready_at: block.timestamp + DAY,
      permissionless_at: block.timestamp + DAY + HOUR,
    });
    requestTx = receipt.hash;
  });

  it("shows the request's transaction to its agent only (404 for another agent and for unknown hashes)", async function () {
    const receipt = (await ethers.provider.getTransactionReceipt(requestTx))!;
    const tx = (await ethers.provider.getTransaction(requestTx))!;
    const status = await alice("GET", `/api/v1/agent/transactions/${requestTx}`);
    expect(status.status).to.equal(200);
    expect(status.body).to.include({
      tx_hash: requestTx,
      operation: "vault.redeem_request",
      status: "confirmed",
      from: aliceAddress.toLowerCase(),
      to: deployment.vaults.aggressive!.address.toLowerCase(),
      nonce: tx.nonce,
      block_number: receipt.blockNumber,
      gas_used: receipt.gasUsed.toString(),
      error: null,
    });
    const upper = await alice("GET", `/api/v1/agent/transactions/0x${requestTx.slice(2).toUpperCase()}`);
    expect(upper.body).to.deep.equal(status.body);
    const list = await alice("GET", "/api/v1/agent/transactions");
    expect((list.body.transactions as Body[])[0]).to.deep.equal(status.body);
    for (const [call, hash] of [
      [mallory, requestTx],
      [alice, `0x${"12".repeat(32)}`],
    ] as const) {
      const missing = await call("GET", `/api/v1/agent/transactions/${hash}`);
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.equal({
        error: `tx_hash: no transaction ${hash} was sent by this service for this agent`,
      });
    }
    const bad = await alice("GET", "/api/v1/agent/transactions/0x1234");
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal("tx_hash: must be a 0x-prefixed 32-byte hex transaction hash");
  });

  it("answers a claim before the ready time with 409 and Retry-After, then claims once the relayer can fill", async function () {
    const aggressive = vault("aggressive");
    const readyAt = Number(await aggressive.pendingRedeemReadyAt(aliceAddress));
    const early = await alice("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
    expect(early.status).to.equal(409);
    const latest = (await ethers.provider.getBlock("latest"))!.timestamp;
    const wait = readyAt - (latest + 1);
    expect(early.headers.get("retry-after")).to.equal(String(wait));
    expect(early.body.error).to.equal(
      `vault_id: the redemption request of ${aliceAddress} in the aggressive vault can be filled from ${new Date(readyAt * 1000).toISOString()} (in ${wait} s); claim again then`,
    );

    await time.increaseTo(readyAt);
    const usdcBefore = await usdc().balanceOf(aliceAddress);
    const pending = await aggressive.pendingRedeemRequest(0, aliceAddress);
    const claim = await alice("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
    expect(claim.status, JSON.stringify(claim.body)).to.equal(200);
    const fill = (await ethers.provider.getTransactionReceipt(claim.body.fulfill_tx as string))!;
    const filled = eventOf(aggressive, fill.logs, "RedeemFulfilled");
    expect(filled.controller).to.equal(aliceAddress);
    expect(filled.fulfiller).to.equal(fill.from);
    expect(filled.shares).to.equal(pending);
    const redeem = (await ethers.provider.getTransactionReceipt(claim.body.tx_hash as string))!;
    expect(redeem.from).to.equal(aliceAddress);
    expect(claim.body).to.include({
      fulfilled_by: "relayer",
      amount_raw: (filled.assets as bigint).toString(),
      shares_raw: pending.toString(),
      block_number: redeem.blockNumber,
    });
    expect(await usdc().balanceOf(aliceAddress)).to.equal(usdcBefore + (filled.assets as bigint));
    expect(await aggressive.claimableRedeemRequest(0, aliceAddress)).to.equal(0n);
    const fillStatus = await alice("GET", `/api/v1/agent/transactions/${fill.hash}`);
    expect(fillStatus.body).to.include({ operation: "vault.fulfill", status: "confirmed" });
  });

  it("cancels a pending request (ERC-7887) and gets every share of it back", async function () {
    const aggressive = vault("aggressive");
    const before = await aggressive.balanceOf(aliceAddress);
    const requested = await alice("POST", "/api/v1/agent/vault/redeem-request", {
      vault_id: "aggressive",
      shares: "all",
    });
    expect(requested.status).to.equal(200);
    expect(await aggressive.balanceOf(aliceAddress)).to.equal(0n);
    const cancel = await alice("POST", "/api/v1/agent/vault/redeem-cancel", { vault_id: "aggressive" });
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
    const claimReceipt = (await ethers.provider.getTransactionReceipt(cancel.body.claim_tx as string))!;
    expect(eventOf(aggressive, claimReceipt.logs, "CancelRedeemClaim").shares).to.equal(before);
    expect(cancel.body).to.include({ shares_raw: before.toString(), shares_balance: before.toString() });
    expect(await aggressive.balanceOf(aliceAddress)).to.equal(before);
    expect(await aggressive.pendingRedeemRequest(0, aliceAddress)).to.equal(0n);
  });

  it("claims back the shares of a request canceled outside the service, in one transaction (cancel_tx null)", async function () {
    const aggressive = vault("aggressive");
    const before = await aggressive.balanceOf(aliceAddress);
    const requested = await alice("POST", "/api/v1/agent/vault/redeem-request", {
      vault_id: "aggressive",
      shares: "all",
    });
    expect(requested.status, JSON.stringify(requested.body)).to.equal(200);
    // The agent's wallet cancels by itself (as a claim step that failed would leave it): the shares wait in the vault.
    const record = await system.store.agents.findById(aliceId);
    const own = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).connect(
      ethers.provider,
    );
    await (await aggressive.connect(own).cancelRedeemRequest(0, aliceAddress)).wait();
    expect(await aggressive.claimableCancelRedeemRequest(0, aliceAddress)).to.equal(before);

    const claimed = await alice("POST", "/api/v1/agent/vault/redeem-cancel", { vault_id: "aggressive" });
    expect(claimed.status, JSON.stringify(claimed.body)).to.equal(200);
    expect(claimed.body.cancel_tx).to.equal(null);
    const receipt = (await ethers.provider.getTransactionReceipt(claimed.body.claim_tx as string))!;
    expect(eventOf(aggressive, receipt.logs, "CancelRedeemClaim").shares).to.equal(before);
    expect(claimed.body).to.include({ shares_raw: before.toString(), shares_balance: before.toString() });
    expect(await aggressive.balanceOf(aliceAddress)).to.equal(before);

    const nothing = await alice("POST", "/api/v1/agent/vault/redeem-cancel", { vault_id: "aggressive" });
    expect(nothing.status).to.equal(409);
    expect(nothing.body.error).to.equal(
      `vault_id: the agent wallet ${aliceAddress} has no pending redemption request, nor canceled shares to claim ` +
        "back, in the aggressive vault",
    );
  });

  it("shows a wallet whose only holding is a canceled request's shares not yet claimed back, in the positions lookup", async function () {
    // A wallet that canceled outside the API (or whose claim step failed): its shares sit in the vault until it claims.
    const [deployer, , , , , holder] = await ethers.getSigners();
    const aggressive = vault("aggressive").connect(holder);
    await usdc().connect(deployer).mint(holder.address, 40_000_000n);
    await usdc().connect(holder).approve(deployment.vaults.aggressive!.address, 40_000_000n);
    await aggressive.deposit(40_000_000n, holder.address);
    const shares = await aggressive.balanceOf(holder.address);
    await aggressive.requestRedeem(shares, holder.address, holder.address);
    await aggressive.cancelRedeemRequest(0, holder.address);
    expect(await aggressive.claimableCancelRedeemRequest(0, holder.address)).to.equal(shares);
    const decimals = Number(await aggressive.decimals());

    const lookup = await alice("POST", "/api/v1/positions", { wallet_address: holder.address });
    expect(lookup.status, JSON.stringify(lookup.body)).to.equal(200);
    expect(lookup.body).to.deep.equal({
      wallet_address: holder.address,
      positions: [
        {
          vault_id: "aggressive",
          vault_address: deployment.vaults.aggressive!.address,
          vault_name: await aggressive.name(),
          shares: "0",
          shares_raw: "0",
          value_usdc: "0",
          pending_redeem_shares: "0",
          pending_redeem_ready_at: null,
          claimable_redeem_shares: "0",
          claimable_usdc: "0",
          claimable_cancel_shares: ethers.formatUnits(shares, decimals).replace(/\.0$/, ""),
        },
      ],
      total: 1,
    });

    await aggressive.claimCancelRedeemRequest(0, holder.address, holder.address);
    const after = await alice("POST", "/api/v1/positions", { wallet_address: holder.address });
    expect((after.body.positions as Body[]).map((p) => [p.shares_raw, p.claimable_cancel_shares])).to.deep.equal([
      [shares.toString(), "0"],
    ]);
  });

  it("fills from the agent's own wallet after the grace period when the relayer lost FULFILLER_ROLE", async function () {
    const aggressive = vault("aggressive");
    const role = await aggressive.FULFILLER_ROLE();
    const granted = await aggressive.queryFilter(aggressive.filters.RoleGranted(await aggressive.DEFAULT_ADMIN_ROLE()));
    const admin = granted.at(-1)!.args.account;
    const relayer = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, "m/44'/60'/0'/0/0").address;
    await impersonateAccount(admin);
    await setBalance(admin, 10n ** 18n);
    await aggressive.connect(await ethers.getSigner(admin)).revokeRole(role, relayer);
    await stopImpersonatingAccount(admin);

    const requested = await alice("POST", "/api/v1/agent/vault/redeem-request", {
      vault_id: "aggressive",
      shares: "all",
    });
    expect(requested.status).to.equal(200);
    await time.increaseTo(requested.body.ready_at as number);
    const early = await alice("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
    expect(early.status).to.equal(409);
    expect(early.body.error).to.match(
      new RegExp(`can be filled from ${new Date((requested.body.permissionless_at as number) * 1000).toISOString()}`),
    );
    await time.increaseTo(requested.body.permissionless_at as number);
    const claim = await alice("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
    expect(claim.status, JSON.stringify(claim.body)).to.equal(200);
    expect(claim.body.fulfilled_by).to.equal("agent");
    const fill = (await ethers.provider.getTransactionReceipt(claim.body.fulfill_tx as string))!;
    expect(fill.from).to.equal(aliceAddress);
    expect(await aggressive.balanceOf(aliceAddress)).to.equal(0n);
    expect(await aggressive.claimableRedeemRequest(0, aliceAddress)).to.equal(0n);
  });

  it("redeems every remaining share of the moderate vault with shares: all", async function () {
    const moderate = vault("moderate");
    const shares = await moderate.balanceOf(aliceAddress);
    const usdcBefore = await usdc().balanceOf(aliceAddress);
    const response = await alice("POST", "/api/v1/agent/vault/withdraw", { vault_id: "moderate", shares: "all" });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body).to.include({ shares_raw: shares.toString(), shares_balance: "0" });
    expect(await usdc().balanceOf(aliceAddress)).to.equal(usdcBefore + BigInt(response.body.amount_raw as string));
    const positions = await alice("GET", "/api/v1/agent/vault/positions");
    expect(positions.body).to.deep.equal({ positions: [] });
  });
});
