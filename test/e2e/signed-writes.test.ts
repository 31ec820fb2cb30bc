import { expect } from "chai";
import { ethers } from "hardhat";
import {
  impersonateAccount,
  setBalance,
  stopImpersonatingAccount,
  time,
} from "@nomicfoundation/hardhat-network-helpers";
import { HDNodeWallet, Wallet, type TypedDataField } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { deployTestSystem } from "../api/helpers/system";
import { request, startTestApp, type JsonResponse } from "../api/helpers/app";
import {
  NapRouter__factory,
  NapVault__factory,
  RevocableERC1271Wallet__factory,
  TestUSDC__factory,
  type NapVault,
} from "../../typechain-types";
import { DEV_MNEMONIC, startE2eApp, type E2eSystem } from "./helpers";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface TypedData {
  domain: Json;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Json;
}

const USDC = 1_000_000n;

/**
 * Issue 30, through the data API: a wallet that never registered and holds no ETH (a fresh key funded with TestUSDC
 * only) deposits into a synchronous and an ERC-7540 vault, redeems, requests, cancels and claims, each by an EIP-712
 * signature that the service's relayer submits to the NapRouter; no agent or agent server wallet exists. Then the
 * attacks where the API is the door, each named after the attack, and the same message sent straight to the router
 * while the API is stopped.
 */
describe("E2E: signed writes relayed for a wallet without ETH", function () {
  this.timeout(300_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let owner: Wallet;
  let syncVault: NapVault;
  let asyncVault: NapVault;
  const relayerAddress = Wallet.fromPhrase(DEV_MNEMONIC).address;

  const usdc = () => TestUSDC__factory.connect(deployment.usdc.address, ethers.provider);
  const router = () => NapRouter__factory.connect(deployment.contracts.NapRouter.address, ethers.provider);
  const call = <T = Json>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    request<T>(system.app.url, method, path, { body, headers });

  /** eth_signTypedData_v4's JSON signed by `wallet` (ethers derives EIP712Domain itself). */
  const sign = (wallet: Wallet | HDNodeWallet, typed: TypedData) => {
    const { EIP712Domain: _, ...types } = typed.types;
    return wallet.signTypedData(typed.domain, types, typed.message);
  };

  /** TestUSDC minted to `to` by its minter (the deployer). */
  const mint = async (to: string, amount: bigint) => {
    const token = usdc();
    const minter = (await token.queryFilter(token.filters.RoleGranted(await token.MINTER_ROLE())))[0]!.args.account;
    await impersonateAccount(minter);
    if ((await ethers.provider.getBalance(minter)) < 10n ** 18n) await setBalance(minter, 10n ** 18n);
    await token.connect(await ethers.getSigner(minter)).mint(to, amount);
    await stopImpersonatingAccount(minter);
  };

  /** Prepares `action`, signs what the answer asks for, submits; returns the submit's answer and what was signed. */
  const signAndSubmit = async (
    action: string,
    vault: string,
    query: Record<string, string>,
    options: { headers?: Record<string, string>; wallet?: Wallet } = {},
  ) => {
    const wallet = options.wallet ?? owner;
    const prepared = await call("GET", `/v1/vaults/${vault}/${action}/typed-data?${new URLSearchParams(query)}`);
    expect(prepared.status, JSON.stringify(prepared.body)).to.equal(200);
    const body = await signedBody(wallet, prepared.body, query);
    const submitted = await call("POST", `/v1/vaults/${vault}/${action}`, body, options.headers);
    return { prepared: prepared.body, body, submitted };
  };

  const signedBody = async (wallet: Wallet | HDNodeWallet, prepared: Json, query: Record<string, string>) => {
    const body: Json = {
      ...query,
      ...(prepared.action !== "request-redeem" ? { receiver: prepared.intent.message.receiver } : {}),
      ...(prepared.action === "deposit" ? { min_shares: prepared.intent.message.minShares } : {}),
      ...(prepared.action === "redeem" || prepared.action === "claim"
        ? { min_assets: prepared.intent.message.minAssets }
        : {}),
      nonce: prepared.nonce,
      deadline: prepared.deadline,
      signature: await sign(wallet, prepared.intent),
    };
    if (prepared.permit) {
      body.permit = {
        value: prepared.permit.message.value,
        deadline: prepared.permit.message.deadline,
        signature: await sign(wallet, prepared.permit),
      };
    }
    if (prepared.operator_authorization) {
      body.operator_authorization = {
        nonce: prepared.operator_authorization.message.nonce,
        deadline: prepared.operator_authorization.message.deadline,
        signature: await sign(wallet, prepared.operator_authorization),
      };
    }
    return body;
  };

  /** Follows the status endpoint to a final state. */
  const confirmed = async (relayId: string): Promise<Json> => {
    for (let i = 0; i < 200; i++) {
      const relay = await call("GET", `/v1/relays/${relayId}`);
      expect(relay.status, JSON.stringify(relay.body)).to.equal(200);
      if (relay.body.status !== "submitted") return relay.body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`relay ${relayId} not final`);
  };

  const accepted = (reply: JsonResponse<Json>) => {
    expect(reply.status, JSON.stringify(reply.body)).to.equal(202);
    expect(reply.body.status_url).to.equal(`/v1/relays/${reply.body.relay_id}`);
    expect(reply.body.tx_hash).to.match(/^0x[0-9a-f]{64}$/);
    return reply.body;
  };

  const refusal = (reply: JsonResponse<Json>) => ({
    status: reply.status,
    code: reply.body.error?.code,
    field: reply.body.error?.details?.field,
  });

  before(async function () {
    deployment = await deployTestSystem();
    expect(deployment.contracts.NapRouter, "the deployment records the router").to.not.equal(undefined);
    system = await startE2eApp("signed-writes", deployment, { STRATEGY_SCREENING: "off" });
    const vaults = Object.values(deployment.vaults).map((v) => NapVault__factory.connect(v!.address, ethers.provider));
    const kinds = await Promise.all(vaults.map((v) => v.isERC7540()));
    syncVault = vaults[kinds.indexOf(false)]!;
    asyncVault = vaults[kinds.indexOf(true)]!;
    owner = Wallet.createRandom() as unknown as Wallet;
    await mint(owner.address, 100n * USDC);
  });

  after(async function () {
    await system?.close();
  });

  it("a wallet without ETH deposits into a synchronous vault by signature: permit, relay, status to confirmed", async function () {
    expect(await ethers.provider.getBalance(owner.address)).to.equal(0n);
    const { prepared, submitted } = await signAndSubmit("deposit", await syncVault.getAddress(), {
      owner: owner.address,
      amount: String(30n * USDC),
    });
    expect(prepared.router).to.equal(deployment.contracts.NapRouter.address);
    expect(prepared.operator_authorization).to.equal(null);
    expect(prepared.permit.message.spender).to.equal(deployment.contracts.NapRouter.address);
    const relay = accepted(submitted);
    // The relay id is the digest the router itself computes for the message.
    const message = prepared.intent.message;
    expect(relay.relay_id).to.equal(
      (
        await router().hashDeposit({
          owner: message.owner,
          vault: message.vault,
          assets: message.assets,
          receiver: message.receiver,
          minShares: message.minShares,
          nonce: message.nonce,
          deadline: message.deadline,
        })
      ).toLowerCase(),
    );
    const final = await confirmed(relay.relay_id);
    const shares = await syncVault.balanceOf(owner.address);
    expect(final).to.deep.include({
      status: "confirmed",
      action: "deposit",
      owner: owner.address,
      vault: await syncVault.getAddress(),
      tx_hash: relay.tx_hash,
      error: null,
    });
    expect(final.result).to.deep.equal({ shares: shares.toString() });
    expect(shares > 0n).to.equal(true);
    expect(await usdc().balanceOf(owner.address)).to.equal(70n * USDC);
    // Sent and paid by the relayer; the owner still holds no ETH and no agent exists.
    const tx = await ethers.provider.getTransaction(relay.tx_hash);
    expect(tx?.from).to.equal(relayerAddress);
    expect(tx?.to).to.equal(deployment.contracts.NapRouter.address);
    expect(await ethers.provider.getBalance(owner.address)).to.equal(0n);
    expect(await system.store.agents.leaderboard(10)).to.deep.equal([]);
  });

  it("the same message twice, and one Idempotency-Key twice, answer the same relay; the key with another message: 409", async function () {
    const vault = await asyncVault.getAddress();
    const headers = { "Idempotency-Key": "signed-deposit-async-1" };
    const first = await signAndSubmit(
      "deposit",
      vault,
      { owner: owner.address, amount: String(40n * USDC) },
      { headers },
    );
    const relay = accepted(first.submitted);
    const again = await call("POST", `/v1/vaults/${vault}/deposit`, first.body);
    expect(again.status).to.equal(202);
    expect([again.body.relay_id, again.body.tx_hash]).to.deep.equal([relay.relay_id, relay.tx_hash]);
    const keyed = await call("POST", `/v1/vaults/${vault}/deposit`, first.body, headers);
    expect(keyed.body).to.deep.equal(first.submitted.body);
    expect((await confirmed(relay.relay_id)).status).to.equal("confirmed");
    expect(await usdc().balanceOf(owner.address)).to.equal(30n * USDC);

    const other = await signAndSubmit(
      "deposit",
      vault,
      { owner: owner.address, amount: String(1n * USDC) },
      { headers },
    );
    expect(refusal(other.submitted)).to.deep.equal({
      status: 409,
      code: "IDEMPOTENCY_KEY_REUSED",
      field: "Idempotency-Key",
    });
  });

  it("one message posted at once to two instances over one store is sent once: one relay, one transaction", async function () {
    const second = await startTestApp({
      store: system.store,
      deployment,
      env: system.env,
      extra: { engineOptions: { pollIntervalMs: 20 } },
    });
    try {
      await second.app.useCases.start();
      const vault = await syncVault.getAddress();
      const query = { owner: owner.address, amount: String(1n * USDC) };
      const prepared = await call("GET", `/v1/vaults/${vault}/deposit/typed-data?${new URLSearchParams(query)}`);
      const body = await signedBody(owner, prepared.body, query);
      const [a, b] = await Promise.all([
        call("POST", `/v1/vaults/${vault}/deposit`, body),
        request<Json>(second.url, "POST", `/v1/vaults/${vault}/deposit`, { body }),
      ]);
      expect([a.status, b.status]).to.deep.equal([202, 202]);
      expect(b.body.relay_id).to.equal(a.body.relay_id);
      const final = await confirmed(a.body.relay_id);
      expect(final.status).to.equal("confirmed");
      const actions = await router().queryFilter(router().filters.SignedAction(a.body.relay_id));
      expect(actions.map((event) => event.transactionHash)).to.deep.equal([final.tx_hash]);
    } finally {
      await second.app.useCases.settled();
      await second.close();
    }
  });

  it("redeems from the synchronous vault with the ERC-7741 authorisation signed alongside", async function () {
    const vault = await syncVault.getAddress();
    const shares = (await syncVault.balanceOf(owner.address)) / 2n;
    const before = await usdc().balanceOf(owner.address);
    const { prepared, submitted } = await signAndSubmit("redeem", vault, {
      owner: owner.address,
      shares: shares.toString(),
    });
    expect(prepared.permit).to.equal(null);
    expect(prepared.operator_authorization.primaryType).to.equal("AuthorizeOperator");
    expect(prepared.operator_authorization.domain.verifyingContract).to.equal(vault);
    const final = await confirmed(accepted(submitted).relay_id);
    expect(final.status, JSON.stringify(final)).to.equal("confirmed");
    const paid = (await usdc().balanceOf(owner.address)) - before;
    expect(final.result).to.deep.equal({ assets: paid.toString() });
    expect(paid > 14n * USDC).to.equal(true);
    expect(await syncVault.isOperator(owner.address, deployment.contracts.NapRouter.address)).to.equal(true);
  });

  it("requests a redemption from the ERC-7540 vault, cancels it, requests again and claims once fulfilled", async function () {
    const vault = await asyncVault.getAddress();
    const held = await asyncVault.balanceOf(owner.address);
    const first = await signAndSubmit("request-redeem", vault, {
      owner: owner.address,
      shares: (held / 4n).toString(),
    });
    expect(first.prepared.operator_authorization.domain.verifyingContract).to.equal(vault);
    const requested = await confirmed(accepted(first.submitted).relay_id);
    expect(requested.status, JSON.stringify(requested)).to.equal("confirmed");
    expect(requested.result).to.deep.equal({ shares: (held / 4n).toString() });
    expect(await asyncVault.pendingRedeemRequest(0, owner.address)).to.equal(held / 4n);

    const cancel = await signAndSubmit("cancel-redeem", vault, { owner: owner.address });
    expect(cancel.prepared.operator_authorization).to.equal(null);
    const canceled = await confirmed(accepted(cancel.submitted).relay_id);
    expect(canceled.result).to.deep.equal({ shares: (held / 4n).toString() });
    expect(await asyncVault.balanceOf(owner.address)).to.equal(held);

    const second = await signAndSubmit("request-redeem", vault, {
      owner: owner.address,
      shares: (held / 2n).toString(),
    });
    expect((await confirmed(accepted(second.submitted).relay_id)).status).to.equal("confirmed");
    // Anyone may fulfil once the delay and the grace period have passed (no agent, no server wallet of one).
    await time.increase(
      Number(await asyncVault.fulfillmentDelay()) + Number(await asyncVault.FULFILLMENT_GRACE_PERIOD()) + 1,
    );
    const [, , , , , keeper] = await ethers.getSigners();
    await (await asyncVault.connect(keeper).fulfillRedeem(owner.address)).wait();
    const claimable = await asyncVault.claimableRedeemRequest(0, owner.address);
    expect(claimable).to.equal(held / 2n);

    const before = await usdc().balanceOf(owner.address);
    const claim = await signAndSubmit("claim", vault, { owner: owner.address, shares: claimable.toString() });
    const claimed = await confirmed(accepted(claim.submitted).relay_id);
    expect(claimed.status, JSON.stringify(claimed)).to.equal("confirmed");
    const paid = (await usdc().balanceOf(owner.address)) - before;
    expect(claimed.result).to.deep.equal({ assets: paid.toString() });
    expect(await asyncVault.claimableRedeemRequest(0, owner.address)).to.equal(0n);
    expect(await ethers.provider.getBalance(owner.address)).to.equal(0n);
  });

  describe("attacks where the API is the door", function () {
    it("replay: another message under a used nonce is NONCE_USED", async function () {
      const vault = await syncVault.getAddress();
      const used = await signAndSubmit("deposit", vault, { owner: owner.address, amount: String(1n * USDC) });
      await confirmed(accepted(used.submitted).relay_id);
      const prepared = await call(
        "GET",
        `/v1/vaults/${vault}/deposit/typed-data?owner=${owner.address}&amount=2000000`,
      );
      const typed = { ...prepared.body.intent, message: { ...prepared.body.intent.message, nonce: used.body.nonce } };
      const body = {
        ...(await signedBody(
          owner,
          { ...prepared.body, nonce: used.body.nonce, intent: typed },
          { owner: owner.address, amount: "2000000" },
        )),
      };
      expect(refusal(await call("POST", `/v1/vaults/${vault}/deposit`, body))).to.deep.equal({
        status: 409,
        code: "NONCE_USED",
        field: "nonce",
      });
    });

    it("expired: a message past its deadline is SIGNATURE_EXPIRED", async function () {
      const vault = await syncVault.getAddress();
      const prepared = await call(
        "GET",
        `/v1/vaults/${vault}/deposit/typed-data?owner=${owner.address}&amount=1000000`,
      );
      const past = String((await time.latest()) - 1);
      const typed = { ...prepared.body.intent, message: { ...prepared.body.intent.message, deadline: past } };
      const signed = await signedBody(
        owner,
        { ...prepared.body, deadline: past, intent: typed },
        { owner: owner.address, amount: "1000000" },
      );
      expect(refusal(await call("POST", `/v1/vaults/${vault}/deposit`, signed))).to.deep.equal({
        status: 400,
        code: "SIGNATURE_EXPIRED",
        field: "deadline",
      });
    });

    it("changed amount or receiver: the signature no longer matches, INVALID_SIGNATURE", async function () {
      const vault = await syncVault.getAddress();
      const prepared = await call(
        "GET",
        `/v1/vaults/${vault}/deposit/typed-data?owner=${owner.address}&amount=1000000`,
      );
      const body = await signedBody(owner, prepared.body, { owner: owner.address, amount: "1000000" });
      const thief = Wallet.createRandom().address;
      for (const changed of [{ amount: "2000000" }, { receiver: thief }]) {
        expect(refusal(await call("POST", `/v1/vaults/${vault}/deposit`, { ...body, ...changed }))).to.deep.equal({
          status: 400,
          code: "INVALID_SIGNATURE",
          field: "signature",
        });
      }
    });

    it("unknown vault: VAULT_NOT_FOUND before anything else", async function () {
      const prepared = await call(
        "GET",
        `/v1/vaults/${await syncVault.getAddress()}/deposit/typed-data?owner=${owner.address}&amount=1000000`,
      );
      const body = await signedBody(owner, prepared.body, { owner: owner.address, amount: "1000000" });
      const elsewhere = Wallet.createRandom().address;
      expect(refusal(await call("POST", `/v1/vaults/${elsewhere}/deposit`, body))).to.deep.equal({
        status: 404,
        code: "VAULT_NOT_FOUND",
        field: undefined,
      });
      expect(
        (await call("GET", `/v1/vaults/${elsewhere}/deposit/typed-data?owner=${owner.address}&amount=1`)).status,
      ).to.equal(404);
    });

    it("insufficient balance and insufficient allowance each refused with its code", async function () {
      const vault = await syncVault.getAddress();
      const balance = await usdc().balanceOf(owner.address);
      const tooMuch = await signAndSubmit("deposit", vault, { owner: owner.address, amount: String(balance + 1n) });
      expect(refusal(tooMuch.submitted)).to.deep.equal({ status: 400, code: "INSUFFICIENT_BALANCE", field: "amount" });
      const prepared = await call(
        "GET",
        `/v1/vaults/${vault}/deposit/typed-data?owner=${owner.address}&amount=1000000`,
      );
      const { permit: _, ...withoutPermit } = await signedBody(owner, prepared.body, {
        owner: owner.address,
        amount: "1000000",
      });
      expect(refusal(await call("POST", `/v1/vaults/${vault}/deposit`, withoutPermit))).to.deep.equal({
        status: 400,
        code: "INSUFFICIENT_ALLOWANCE",
        field: "permit",
      });
    });

    it("a contract wallet (EIP-1271) deposits by its key's signature, and is refused once its EIP-1271 answer changes", async function () {
      const vault = await syncVault.getAddress();
      const [, , , , , , , keyHolder] = await ethers.getSigners();
      const key = Wallet.createRandom().connect(ethers.provider);
      await (await keyHolder.sendTransaction({ to: key.address, value: 10n ** 17n })).wait();
      const wallet = await new RevocableERC1271Wallet__factory(key).deploy(key.address);
      await wallet.waitForDeployment();
      const walletAddress = await wallet.getAddress();
      await mint(walletAddress, 5n * USDC);
      const approve = usdc().interface.encodeFunctionData("approve", [
        deployment.contracts.NapRouter.address,
        5n * USDC,
      ]);
      await (await wallet.execute(deployment.usdc.address, approve)).wait();

      const query = { owner: walletAddress, amount: String(2n * USDC) };
      const first = await call("GET", `/v1/vaults/${vault}/deposit/typed-data?${new URLSearchParams(query)}`);
      expect(first.body.permit, "the allowance covers it: no permit to sign").to.equal(null);
      const submitted = await call("POST", `/v1/vaults/${vault}/deposit`, await signedBody(key, first.body, query));
      const final = await confirmed(accepted(submitted).relay_id);
      expect(final.status, JSON.stringify(final)).to.equal("confirmed");
      expect(final.result).to.deep.equal({ shares: (await syncVault.balanceOf(walletAddress)).toString() });

      await (await wallet.setAccepting(false)).wait();
      const second = await call("GET", `/v1/vaults/${vault}/deposit/typed-data?${new URLSearchParams(query)}`);
      const refused = await call("POST", `/v1/vaults/${vault}/deposit`, await signedBody(key, second.body, query));
      expect(refusal(refused)).to.deep.equal({ status: 400, code: "INVALID_SIGNATURE", field: "signature" });
    });

    it("slippage bound above what the deposit mints: TRANSACTION_REVERTED with the router's reason, nothing sent", async function () {
      const vault = await syncVault.getAddress();
      const minShares = (await syncVault.previewDeposit(1n * USDC)) * 2n;
      const query = { owner: owner.address, amount: String(1n * USDC), min_shares: minShares.toString() };
      const before = await ethers.provider.getTransactionCount(relayerAddress);
      const { submitted } = await signAndSubmit("deposit", vault, query);
      expect(refusal(submitted)).to.deep.equal({ status: 400, code: "TRANSACTION_REVERTED", field: undefined });
      expect(submitted.body.error.details.revert.name).to.equal("SharesBelowMinimum");
      expect(submitted.body.error.details.revert.args.minShares).to.equal(minShares.toString());
      expect(await ethers.provider.getTransactionCount(relayerAddress)).to.equal(before);
    });

    it("a relay id that names no relay is 404 RELAY_NOT_FOUND", async function () {
      expect(refusal(await call("GET", `/v1/relays/0x${"ab".repeat(32)}`))).to.deep.equal({
        status: 404,
        code: "RELAY_NOT_FOUND",
        field: undefined,
      });
    });
  });

  describe("when the relayer does not help", function () {
    it("relayer withholds: with the API stopped, the owner's signed message sent straight to the router deposits", async function () {
      const vault = await syncVault.getAddress();
      const prepared = await call(
        "GET",
        `/v1/vaults/${vault}/deposit/typed-data?owner=${owner.address}&amount=2000000`,
      );
      const body = await signedBody(owner, prepared.body, { owner: owner.address, amount: "2000000" });
      await system.close();
      const before = await syncVault.balanceOf(owner.address);
      const usdcBefore = await usdc().balanceOf(owner.address);
      const message = prepared.body.intent.message;
      const [, , , , , , anyone] = await ethers.getSigners();
      const split = ethers.Signature.from(body.permit.signature);
      const tx = await router().connect(anyone).deposit(
        {
          owner: message.owner,
          vault: message.vault,
          assets: message.assets,
          receiver: message.receiver,
          minShares: message.minShares,
          nonce: message.nonce,
          deadline: message.deadline,
        },
        body.signature,
        { value: body.permit.value, deadline: body.permit.deadline, v: split.v, r: split.r, s: split.s },
      );
      const receipt = await tx.wait();
      const minted = receipt!.logs
        .filter((log) => log.address === vault)
        .map((log) => syncVault.interface.parseLog(log))
        .find((parsed) => parsed?.name === "Deposit")!.args.shares as bigint;
      expect(minted > 0n).to.equal(true);
      expect(await syncVault.balanceOf(owner.address)).to.equal(before + minted);
      expect(await usdc().balanceOf(owner.address)).to.equal(usdcBefore - 2_000_000n);
      system = await startE2eApp("signed-writes-restart", deployment, { STRATEGY_SCREENING: "off" });
      // The service restarted on another store knows nothing of it, and the message's nonce is spent onchain.
      expect(refusal(await call("POST", `/v1/vaults/${vault}/deposit`, body))).to.deep.equal({
        status: 409,
        code: "NONCE_USED",
        field: "nonce",
      });
    });
  });
});

describe("E2E: the tiers' rate limits apply to the signed writes", function () {
  this.timeout(120_000);
  let system: E2eSystem;

  before(async function () {
    system = await startE2eApp("signed-writes-limits", await deployTestSystem(), { RATE_LIMITS_DISABLED: "false" });
  });
  after(async function () {
    await system?.close();
  });

  it("counts anonymous submits on the Public tier's 60 per minute, then 429 RATE_LIMITED with Retry-After", async function () {
    // The minute window is aligned to the clock: start far enough from its end for 61 requests.
    const second = new Date().getUTCSeconds();
    if (second > 45) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    const path = `/v1/vaults/0x${"00".repeat(20)}/deposit`;
    const statuses: number[] = [];
    let last: JsonResponse<Json> | undefined;
    for (let i = 0; i < 61; i++) {
      last = await request<Json>(system.app.url, "POST", path, { body: {} });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 60).every((status) => status === 400)).to.equal(true);
    expect(last?.status).to.equal(429);
    expect(last?.body.error.code).to.equal("RATE_LIMITED");
    expect(Number(last?.headers.get("retry-after"))).to.be.greaterThan(0);
    expect(last?.headers.get("x-ratelimit-limit")).to.equal("60");
  });
});
