import { expect } from "chai";
import { TypedDataEncoder, verifyTypedData, Wallet } from "ethers";
import { network } from "hardhat";
import { createWalletClient, custom, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { NapDataClient, NapRelayError, type TypedData, type TypedDataSigner } from "@nap/sdk";
import {
  ASSET,
  CHAIN_ID,
  fakeService,
  NONCE,
  RELAY_ID,
  ROUTER,
  VAULT,
  type FakeService,
} from "./helpers/signedWritesService";

/**
 * The data client's signed writes against a stand-in of the service's routes: what it asks, what it signs (the
 * signatures recover to the owner over the design's types), what it submits, and how it follows a relay. The same
 * writes against the real service are in test/e2e/sdk-signed-writes.test.ts.
 */

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const NOW = 1_900_000_000;

/** Recovers the signer of a typed-data signature over the answered domain, types and message. */
function recover(data: TypedData, signature: string): string {
  const types = Object.fromEntries(Object.entries(data.types).filter(([name]) => name !== "EIP712Domain"));
  return verifyTypedData(data.domain, types, data.message, signature);
}

describe("SDK: signed writes of the data client (packages/sdk/src/signed)", function () {
  let service: FakeService | undefined;
  afterEach(async function () {
    await service?.close();
    service = undefined;
  });

  const client = (url: string) => new NapDataClient({ baseUrl: url, apiKey: "napd-key" });

  it("deposit with an ethers Wallet: prepares with the asked values, signs the intent and the permit, submits once with an Idempotency-Key", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000) });
    const wallet = new Wallet(KEY);
    const receiver = Wallet.createRandom().address;
    const answer = await client(service.url).deposit(
      { vault: VAULT, amount: 25_000_000n, receiver, minShares: "24000000" },
      wallet,
    );
    expect(answer).to.deep.equal({
      relay_id: RELAY_ID,
      status: "submitted",
      tx_hash: `0x${"ef".repeat(32)}`,
      status_url: `/v1/relays/${RELAY_ID}`,
    });
    const [prepare, submit] = service.requests;
    expect(service.requests).to.have.length(2);
    expect(`${prepare.method} ${prepare.path}`).to.equal(`GET /v1/vaults/${VAULT}/deposit/typed-data`);
    expect(prepare.query).to.deep.equal({
      owner: wallet.address,
      amount: "25000000",
      receiver,
      min_shares: "24000000",
    });
    expect(`${submit.method} ${submit.path}`).to.equal(`POST /v1/vaults/${VAULT}/deposit`);
    expect(submit.headers["idempotency-key"]).to.match(/^[0-9a-f-]{36}$/);
    expect(submit.headers.authorization).to.equal("Bearer napd-key");
    const body = submit.body!;
    expect(Object.keys(body)).to.deep.equal([
      "owner",
      "amount",
      "receiver",
      "min_shares",
      "nonce",
      "deadline",
      "signature",
      "permit",
    ]);
    expect(body).to.include({ owner: wallet.address, amount: "25000000", receiver, min_shares: "24000000" });
    expect(body.nonce).to.equal(NONCE);

    const deadline = String(body.deadline);
    const intent: TypedData = {
      domain: { name: "NAP Router", version: "1", chainId: CHAIN_ID, verifyingContract: ROUTER },
      types: {
        Deposit: [
          { name: "owner", type: "address" },
          { name: "vault", type: "address" },
          { name: "assets", type: "uint256" },
          { name: "receiver", type: "address" },
          { name: "minShares", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "Deposit",
      message: {
        owner: wallet.address,
        vault: VAULT,
        assets: "25000000",
        receiver,
        minShares: "24000000",
        nonce: NONCE,
        deadline,
      },
    };
    expect(recover(intent, body.signature as string)).to.equal(wallet.address);
    const permit = body.permit as { value: string; deadline: string; signature: string };
    expect(permit.value).to.equal("25000000");
    const permitData: TypedData = {
      domain: { name: "Test USDC", version: "1", chainId: CHAIN_ID, verifyingContract: ASSET },
      types: {
        Permit: [
          { name: "owner", type: "address" },
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "Permit",
      message: { owner: wallet.address, spender: ROUTER, value: "25000000", nonce: "0", deadline: permit.deadline },
    };
    expect(recover(permitData, permit.signature)).to.equal(wallet.address);
  });

  it("a viem Account and a viem WalletClient sign the same bytes as an ethers Wallet of the same key", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000) });
    const account = privateKeyToAccount(KEY);
    const walletClient = createWalletClient({ account, transport: http("http://127.0.0.1:9") });
    const signers: [string, TypedDataSigner][] = [
      ["ethers Wallet", new Wallet(KEY)],
      ["viem Account", account],
      ["viem WalletClient", walletClient],
    ];
    const bodies: Record<string, unknown>[] = [];
    for (const [, signer] of signers) {
      await client(service.url).redeem({ vault: VAULT, shares: 7n }, signer);
      bodies.push(service.submitted().at(-1)!);
    }
    expect(bodies[1]).to.deep.equal(bodies[0]);
    expect(bodies[2]).to.deep.equal(bodies[0]);
    expect(bodies[0]).to.include({ owner: account.address, shares: "7", receiver: account.address, min_assets: "0" });
  });

  it("a viem WalletClient without a local account asks its wallet over JSON-RPC (eth_signTypedData_v4), with the same bytes", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000) });
    // Hardhat's first development account, which the in-process node signs for.
    const hardhatKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const asked: string[] = [];
    const browserLike = createWalletClient({
      transport: custom({
        request: ({ method, params }: { method: string; params?: unknown[] }) => {
          asked.push(method);
          return network.provider.request({ method, params });
        },
      }),
    });
    await client(service.url).deposit({ vault: VAULT, amount: 3n }, browserLike);
    await client(service.url).deposit({ vault: VAULT, amount: 3n }, new Wallet(hardhatKey));
    const [json, local] = service.submitted();
    expect(json).to.deep.equal(local);
    // The address once, then one signature for the intent and one for the permit.
    expect(asked).to.deep.equal(["eth_accounts", "eth_signTypedData_v4", "eth_signTypedData_v4"]);
  });

  it("redeem, requestRedeem, claim and cancelRedeem: each its route, query and body, with the operator authorisation signed for the vault", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000) });
    const wallet = new Wallet(KEY);
    const data = client(service.url);
    await data.redeem({ vault: VAULT, shares: "100", minAssets: 99n }, wallet);
    await data.requestRedeem({ vault: VAULT, shares: 50 }, wallet);
    await data.claim({ vault: VAULT, shares: "50" }, wallet);
    await data.cancelRedeem({ vault: VAULT }, wallet);
    const prepares = service.requests.filter((r) => r.method === "GET");
    expect(prepares.map((r) => [r.path, r.query])).to.deep.equal([
      [
        `/v1/vaults/${VAULT}/redeem/typed-data`,
        { owner: wallet.address, shares: "100", receiver: wallet.address, min_assets: "99" },
      ],
      [`/v1/vaults/${VAULT}/request-redeem/typed-data`, { owner: wallet.address, shares: "50" }],
      [
        `/v1/vaults/${VAULT}/claim/typed-data`,
        { owner: wallet.address, shares: "50", receiver: wallet.address, min_assets: "0" },
      ],
      [`/v1/vaults/${VAULT}/cancel-redeem/typed-data`, { owner: wallet.address, receiver: wallet.address }],
    ]);
    const submits = service.requests.filter((r) => r.method === "POST");
    expect(submits.map((r) => [r.path, Object.keys(r.body!)])).to.deep.equal([
      [
        `/v1/vaults/${VAULT}/redeem`,
        ["owner", "shares", "receiver", "min_assets", "nonce", "deadline", "signature", "operator_authorization"],
      ],
      [
        `/v1/vaults/${VAULT}/request-redeem`,
        ["owner", "shares", "nonce", "deadline", "signature", "operator_authorization"],
      ],
      [
        `/v1/vaults/${VAULT}/claim`,
        ["owner", "shares", "receiver", "min_assets", "nonce", "deadline", "signature", "operator_authorization"],
      ],
      [
        `/v1/vaults/${VAULT}/cancel-redeem`,
        ["owner", "receiver", "nonce", "deadline", "signature", "operator_authorization"],
      ],
    ]);
    const authorization = submits[0].body!.operator_authorization as Record<string, string>;
    expect(authorization.nonce).to.equal(`0x${"cd".repeat(32)}`);
    const signed: TypedData = {
      domain: { name: "NAP Moderate USDC", version: "1", chainId: CHAIN_ID, verifyingContract: VAULT },
      types: {
        AuthorizeOperator: [
          { name: "controller", type: "address" },
          { name: "operator", type: "address" },
          { name: "approved", type: "bool" },
          { name: "nonce", type: "bytes32" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "AuthorizeOperator",
      message: {
        controller: wallet.address,
        operator: ROUTER,
        approved: true,
        nonce: authorization.nonce,
        deadline: authorization.deadline,
      },
    };
    expect(recover(signed, authorization.signature)).to.equal(wallet.address);
    const cancel: TypedData = {
      domain: { name: "NAP Router", version: "1", chainId: CHAIN_ID, verifyingContract: ROUTER },
      types: {
        CancelRedeem: [
          { name: "owner", type: "address" },
          { name: "vault", type: "address" },
          { name: "receiver", type: "address" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      primaryType: "CancelRedeem",
      message: {
        owner: wallet.address,
        vault: VAULT,
        receiver: wallet.address,
        nonce: NONCE,
        deadline: submits[3].body!.deadline,
      },
    };
    expect(recover(cancel, submits[3].body!.signature as string)).to.equal(wallet.address);
    expect(TypedDataEncoder.hash(cancel.domain, { CancelRedeem: cancel.types.CancelRedeem }, cancel.message)).to.match(
      /^0x[0-9a-f]{64}$/,
    );
  });

  it("no permit or authorisation asked: none is signed or sent; a vault id is resolved to its address first", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000), extras: false });
    const wallet = new Wallet(KEY);
    await client(service.url).deposit({ vault: "moderate", amount: "5" }, wallet);
    await client(service.url).claim({ vault: VAULT, shares: "5" }, wallet);
    expect(service.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal([
      "GET /v1/vaults/moderate",
      `GET /v1/vaults/${VAULT}/deposit/typed-data`,
      `POST /v1/vaults/${VAULT}/deposit`,
      `GET /v1/vaults/${VAULT}/claim/typed-data`,
      `POST /v1/vaults/${VAULT}/claim`,
    ]);
    const [deposit, claim] = service.submitted();
    expect(deposit).to.not.have.property("permit");
    expect(claim).to.not.have.property("operator_authorization");
  });

  it("refuses an amount that is not whole base units, and an address that is not one, before any request", async function () {
    service = await fakeService({ now: NOW });
    const wallet = new Wallet(KEY);
    const data = client(service.url);
    const refused = async (call: Promise<unknown>) => ((await call.catch((e: unknown) => e)) as Error).message;
    expect(await refused(data.deposit({ vault: VAULT, amount: "1.5" }, wallet))).to.equal(
      "amount must be a whole number of base units (a bigint or decimal string), got 1.5",
    );
    expect(await refused(data.deposit({ vault: VAULT, amount: -1n }, wallet))).to.equal(
      "amount must be a whole number of base units (a bigint or decimal string), got -1",
    );
    expect(await refused(data.deposit({ vault: VAULT, amount: 2 ** 53 }, wallet))).to.equal(
      `amount must be a whole number of base units (a bigint or decimal string), got ${2 ** 53}`,
    );
    expect(await refused(data.redeem({ vault: VAULT, shares: 1n, receiver: "0x1234" }, wallet))).to.equal(
      "receiver must be a 0x address, got 0x1234",
    );
    expect(await refused(data.relay("0x12"))).to.equal("relayId must be a 0x-prefixed 32-byte hex digest, got 0x12");
    expect(service.requests).to.deep.equal([]);
  });

  it("waitForRelay: reads until confirmed and answers the relay; a failed relay rejects with its code", async function () {
    const base = { relay_id: RELAY_ID, action: "deposit", vault: VAULT, owner: ROUTER, block_number: null };
    const confirmed = {
      ...base,
      status: "confirmed",
      tx_hash: `0x${"ef".repeat(32)}`,
      block_number: 12,
      result: { shares: "25000000" },
      error: null,
    };
    service = await fakeService({
      now: NOW,
      relays: [{ ...base, status: "submitted", tx_hash: null, result: null, error: null }, confirmed],
    });
    const relay = await client(service.url).waitForRelay(RELAY_ID, { intervalMs: 10 });
    expect(relay).to.deep.equal(confirmed);
    expect(service.requests.map((r) => r.path)).to.deep.equal([`/v1/relays/${RELAY_ID}`, `/v1/relays/${RELAY_ID}`]);
    await service.close();

    const failed = {
      ...base,
      status: "failed",
      tx_hash: `0x${"ef".repeat(32)}`,
      result: null,
      error: { code: "NONCE_USED", message: "the nonce was used" },
    };
    service = await fakeService({ now: NOW, relays: [failed] });
    const error = (await client(service.url)
      .waitForRelay(RELAY_ID, { intervalMs: 10 })
      .catch((e: unknown) => e)) as NapRelayError;
    expect(error).to.be.instanceOf(NapRelayError);
    expect(error.message).to.equal(`relay ${RELAY_ID} failed (NONCE_USED: the nonce was used)`);
    expect(error.reason).to.equal("failed");
    expect(error.relay).to.deep.equal(failed);
  });

  it("waitForRelay: a relay still submitted when the wait ends rejects with reason timeout", async function () {
    const pending = {
      relay_id: RELAY_ID,
      action: "claim",
      vault: VAULT,
      owner: ROUTER,
      status: "submitted",
      tx_hash: null,
      block_number: null,
      result: null,
      error: null,
    };
    service = await fakeService({ now: NOW, relays: [pending] });
    const error = (await client(service.url)
      .waitForRelay(RELAY_ID, { timeoutMs: 50, intervalMs: 20 })
      .catch((e: unknown) => e)) as NapRelayError;
    expect(error.message).to.equal(`relay ${RELAY_ID} still submitted after 50 ms`);
    expect(error.reason).to.equal("timeout");
  });
});
