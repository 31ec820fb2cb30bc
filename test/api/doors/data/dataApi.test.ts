import { expect } from "chai";
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { Deployment } from "../../../../api/src/chain/deployment";
import { VAULT_IDS } from "../../../../api/src/domain/model";
import { createMemoryStore, type MemoryStore } from "../../../../api/src/store/memory";
import { MAX_TRANSACTIONS_LIMIT } from "../../../../api/src/readmodel/queries";
import { request, startTestApp, type TestApp } from "../../helpers/app";
import { deployTestSystem } from "../../helpers/system";
import { indexUntilCaughtUp } from "../../indexer/helpers";
import { deposit, fund, lensAt, scriptedActivity, strategyActivity, users } from "../../indexer/activity";

/* eslint-disable @typescript-eslint/no-explicit-any */

const UNKNOWN = "0x000000000000000000000000000000000000dEaD";

describe("data API REST /v1 through HTTP", function () {
  let deployment: Deployment;
  let store: MemoryStore;
  let api: TestApp;
  let holders: string[];
  let strategyId: string;

  before(async function () {
    deployment = await deployTestSystem();
    store = createMemoryStore();
    api = await startTestApp({ store, deployment });
    strategyId = await strategyActivity(deployment);
    holders = await scriptedActivity(deployment);
    // Days pass with deposits, so that the daily samples and the APY windows have history.
    const { alice } = await users();
    await fund(deployment, alice, 10_000n * 1_000_000n);
    for (let day = 0; day < 3; day++) {
      await time.increase(86_400);
      await deposit(deployment, "moderate", alice, 10n * 1_000_000n);
    }
    await indexUntilCaughtUp(api.app.indexer!);
  });

  after(async function () {
    await api.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => request<any>(api.url, "GET", path, { headers });
  const expectError = async (path: string, status: number, code: string, method = "GET", body?: unknown) => {
    const response = await request<any>(api.url, method, path, body === undefined ? {} : { body });
    expect(response.status, `${method} ${path}`).to.equal(status);
    expect(Object.keys(response.body)).to.deep.equal(["error"]);
    expect(response.body.error.code).to.equal(code);
    expect(response.body.error.message).to.be.a("string").and.not.equal("");
    expect(response.body.error.details).to.be.an("object");
    return response.body.error;
  };

  it("GET /v1/vaults lists the six vaults with the spec's list shape and totals", async function () {
    const { status, body, headers } = await get("/v1/vaults");
    expect(status).to.equal(200);
    const height = (await store.readModel.cursor())!.height;
    expect(headers.get("x-indexed-block")).to.equal(String(height));
    expect(body.vaults).to.have.length(6);
    const views = await lensAt(deployment).vaults(
      VAULT_IDS.map((id) => deployment.vaults[id]!.address),
      { blockTag: height },
    );
    let total = 0n;
    for (const view of views) {
      const item = body.vaults.find((v: any) => v.address === view.vault);
      expect(Object.keys(item).sort()).to.deep.equal(
        [
          "address",
          "name",
          "symbol",
          "tvl",
          "tvlUsd",
          "apy",
          "riskLevel",
          "strategies",
          "isERC7540",
          "fulfillmentDelay",
        ].sort(),
      );
      expect(item.tvl).to.equal(view.totalAssets.toString());
      expect(item.tvlUsd).to.equal(Number(view.totalAssets) / 1e6);
      expect(item.riskLevel).to.equal(["conservative", "moderate", "aggressive"][Number(view.riskLevel)]);
      expect(item.isERC7540).to.equal(view.isERC7540);
      expect(item.fulfillmentDelay).to.equal(Number(view.fulfillmentDelay));
      expect(item.strategies).to.equal(view.allocations.length);
      expect(item.apy).to.be.a("number");
      total += view.totalAssets;
    }
    expect(body.totalTvl).to.equal(total.toString());
    expect(body.totalTvlUsd).to.be.closeTo(Number(total) / 1e6, 1e-6);
  });

  it("GET /v1/vaults/:address answers the detail shape, APY windows from the share price, any address case", async function () {
    const address = deployment.vaults.moderate!.address;
    const { status, body } = await get(`/v1/vaults/${address.toLowerCase()}`);
    expect(status).to.equal(200);
    expect(body.address).to.equal(address);
    expect(body.asset).to.equal(deployment.usdc.address);
    expect(Object.keys(body.apy)).to.deep.equal(["current", "7d", "30d", "inception"]);
    expect(Object.keys(body.fees)).to.deep.equal(["management", "performance", "hurdle"]);
    const height = (await store.readModel.cursor())!.height;
    const view = (await lensAt(deployment).vaults([address], { blockTag: height }))[0];
    expect(body.totalShares).to.equal(view.totalSupply.toString());
    expect(body.pricePerShare).to.equal(view.pricePerShare.toString());
    expect(body.fees.management).to.equal(Number(view.managementFeeBps) / 100);
    // The moderate vault's price rose (a reported gain unlocking) over days: a positive, finite inception APY,
    // and a 30-day window equal to it (the vault is younger than 30 days).
    expect(body.apy.inception).to.be.greaterThan(0);
    expect(body.apy["30d"]).to.equal(body.apy.inception);
    expect(body.apy["7d"]).to.equal(body.apy.inception);
  });

  it("answers VAULT_NOT_FOUND and INVALID_ADDRESS", async function () {
    await expectError(`/v1/vaults/${UNKNOWN}`, 404, "VAULT_NOT_FOUND");
    await expectError("/v1/vaults/0x1234", 400, "INVALID_ADDRESS");
    await expectError(`/v1/vaults/${UNKNOWN}/history`, 404, "VAULT_NOT_FOUND");
    await expectError("/v1/vaults/nope/history", 400, "INVALID_ADDRESS");
    await expectError("/v1/users/0xZZ/positions", 400, "INVALID_ADDRESS");
    await expectError("/v1/users/0x12/transactions", 400, "INVALID_ADDRESS");
  });

  it("GET /v1/vaults/:address/history: defaults, every period and interval, and a code for each bad input", async function () {
    const address = deployment.vaults.moderate!.address;
    const { status, body } = await get(`/v1/vaults/${address}/history`);
    expect(status).to.equal(200);
    expect(body.period).to.equal("30d");
    expect(body.interval).to.equal("1d");
    expect(body.points.length).to.be.greaterThan(2);
    for (const point of body.points) {
      expect(Object.keys(point).sort()).to.deep.equal(
        ["timestamp", "block", "tvl", "tvlUsd", "totalShares", "pricePerShare", "apy"].sort(),
      );
    }
    const times = body.points.map((p: any) => Date.parse(p.timestamp));
    expect(times).to.deep.equal([...times].sort((a, b) => a - b));
    for (const period of ["7d", "30d", "90d", "all"]) {
      for (const interval of ["4h", "1d", "1w"]) {
        const answer = await get(`/v1/vaults/${address}/history?period=${period}&interval=${interval}`);
        expect(answer.status, `${period} ${interval}`).to.equal(200);
      }
    }
    const tooMany = await expectError(`/v1/vaults/${address}/history?period=1y&interval=1h`, 400, "TOO_MANY_POINTS");
    expect(tooMany.details.maxPoints).to.equal(1000);
    await expectError(`/v1/vaults/${address}/history?period=2d`, 400, "INVALID_PERIOD");
    await expectError(`/v1/vaults/${address}/history?interval=5m`, 400, "INVALID_INTERVAL");
    await expectError(`/v1/vaults/${address}/history?period=7d&period=30d`, 400, "UNKNOWN_PARAMETER");
    await expectError(`/v1/vaults/${address}/history?foo=1`, 400, "UNKNOWN_PARAMETER");
  });

  it("GET /v1/users/:address/positions: value, cost basis, pnl and depositedAt per vault, equal to the chain", async function () {
    const [alice] = holders;
    const { status, body } = await get(`/v1/users/${alice}/positions`);
    expect(status).to.equal(200);
    const height = (await store.readModel.cursor())!.height;
    const addresses = VAULT_IDS.map((id) => deployment.vaults[id]!.address);
    const onchain = await lensAt(deployment).positions(addresses, alice, { blockTag: height });
    const open = onchain.filter(
      (p) => p.shares + p.pendingRedeemShares + p.claimableCancelShares > 0n || p.claimableAssets > 0n,
    );
    expect(body.positions).to.have.length(open.length);
    for (const position of body.positions) {
      const chainView = onchain.find((p) => p.vault === position.vault.address)!;
      expect(position.shares).to.equal(
        (chainView.shares + chainView.pendingRedeemShares + chainView.claimableCancelShares).toString(),
      );
      expect(position.claimableAssets).to.equal(chainView.claimableAssets.toString());
      expect(BigInt(position.pnl)).to.equal(
        BigInt(position.value) - BigInt(position.costBasis) + BigInt(position.realizedPnl),
      );
      expect(Date.parse(position.depositedAt)).to.be.greaterThan(Date.UTC(2020, 0, 1));
      expect(position.pnlPercent).to.be.a("number");
    }
    const nobody = await get(`/v1/users/${UNKNOWN}/positions`);
    expect(nobody.body.positions).to.deep.equal([]);
  });

  it("GET /v1/users/:address/transactions pages with limit and offset, filters by type, and refuses bad paging", async function () {
    const [alice] = holders;
    const all = await get(`/v1/users/${alice}/transactions?limit=${MAX_TRANSACTIONS_LIMIT}`);
    expect(all.status).to.equal(200);
    const total = all.body.total;
    expect(all.body.transactions).to.have.length(total);
    const blocks = all.body.transactions.map((t: any) => t.block);
    expect(blocks).to.deep.equal(
      [...blocks].sort((a: number, b: number) => b - a),
      "newest first",
    );
    const page = await get(`/v1/users/${alice}/transactions?limit=3&offset=2`);
    expect(page.body.transactions).to.deep.equal(all.body.transactions.slice(2, 5));
    expect([page.body.limit, page.body.offset, page.body.total]).to.deep.equal([3, 2, total]);
    const defaults = await get(`/v1/users/${alice}/transactions`);
    expect(defaults.body.limit).to.equal(50);
    const claims = await get(`/v1/users/${alice}/transactions?type=CLAIM`);
    expect(claims.body.transactions.every((t: any) => t.type === "CLAIM" && t.status === "CLAIMED")).to.equal(true);
    expect(claims.body.total).to.equal(8);
    const tx = all.body.transactions[0];
    expect(Object.keys(tx).sort()).to.deep.equal(
      ["hash", "type", "vault", "user", "amount", "shares", "status", "timestamp", "block"].sort(),
    );
    expect(tx.user).to.equal(alice);
    await expectError(`/v1/users/${alice}/transactions?limit=0`, 400, "INVALID_LIMIT");
    await expectError(`/v1/users/${alice}/transactions?limit=501`, 400, "INVALID_LIMIT");
    await expectError(`/v1/users/${alice}/transactions?limit=-1`, 400, "INVALID_LIMIT");
    await expectError(`/v1/users/${alice}/transactions?offset=x`, 400, "INVALID_OFFSET");
    await expectError(`/v1/users/${alice}/transactions?type=SWAP`, 400, "INVALID_TRANSACTION_TYPE");
  });

  it("GET /v1/strategies and /v1/strategies/:id/performance", async function () {
    const { status, body } = await get("/v1/strategies");
    expect(status).to.equal(200);
    expect(body.strategies).to.have.length(1);
    const [strategy] = body.strategies;
    expect(strategy).to.include({
      id: strategyId,
      name: "Mean reversion",
      owner: holders[0],
      status: "EVOLUTION",
      stage: "guardian_review",
      riskScore: 3,
    });
    const vaults = (await get("/v1/vaults")).body;
    const moderate = vaults.vaults.find((v: any) => v.address === deployment.vaults.moderate!.address);
    const aggressive = vaults.vaults.find((v: any) => v.address === deployment.vaults.aggressive!.address);
    const allocated = (BigInt(moderate.tvl) * 5000n) / 10_000n + (BigInt(aggressive.tvl) * 2500n) / 10_000n;
    expect(strategy.allocation).to.be.closeTo((Number(allocated) / Number(vaults.totalTvl)) * 100, 1e-9);
    for (const field of ["apy", "sharpeRatio", "maxDrawdown"]) expect(strategy[field]).to.be.a("number");
    const detail = (await get(`/v1/vaults/${deployment.vaults.moderate!.address}`)).body;
    expect(detail.strategies).to.deep.equal([
      { id: strategyId, name: "Mean reversion", allocation: 50, apy: strategy.apy },
    ]);
    const performance = await get(`/v1/strategies/${strategyId}/performance`);
    expect(performance.status).to.equal(200);
    expect(performance.body.transitions.map((t: any) => [t.from, t.to])).to.deep.equal([["shadow", "guardian_review"]]);
    expect(performance.body.vaults.map((v: any) => v.targetBps).sort()).to.deep.equal([2500, 5000]);
    await expectError("/v1/strategies/abc/performance", 400, "INVALID_STRATEGY_ID");
    await expectError(`/v1/strategies/0x${"0".repeat(64)}/performance`, 404, "STRATEGY_NOT_FOUND");
  });

  it("GET /v1/protocol/stats sums the vaults and the activity", async function () {
    const { status, body } = await get("/v1/protocol/stats");
    expect(status).to.equal(200);
    const list = await get("/v1/vaults");
    expect(body.totalTvl).to.equal(list.body.totalTvl);
    expect(body.vaultCount).to.equal(6);
    expect(body.userCount).to.equal(2);
    expect(body.depositVolume).to.equal((6n * 1_500n * 1_000_000n + 200n * 1_000_000n + 30n * 1_000_000n).toString());
    expect([body.strategyCount, body.liveStrategyCount]).to.deep.equal([1, 0]);
    expect(body.indexedBlock).to.equal((await store.readModel.cursor())!.height);
  });

  it("POST /v1/vaults/batch answers details by address or id and lists the unknown ones", async function () {
    const moderate = deployment.vaults.moderate!.address;
    const { status, body } = await request<any>(api.url, "POST", "/v1/vaults/batch", {
      body: { vaultIds: [moderate, "hedged", UNKNOWN] },
    });
    expect(status).to.equal(200);
    expect(body.vaults.map((v: any) => v.address)).to.deep.equal([moderate, deployment.vaults.hedged!.address]);
    expect(body.notFound).to.deep.equal([UNKNOWN]);
    await expectError("/v1/vaults/batch", 400, "INVALID_BODY", "POST", { vaultIds: [] });
    await expectError("/v1/vaults/batch", 400, "INVALID_BODY", "POST", { ids: ["x"] });
    await expectError("/v1/vaults/batch", 400, "INVALID_ADDRESS", "POST", { vaultIds: ["0x12"] });
    const raw = await request<any>(api.url, "POST", "/v1/vaults/batch", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect([raw.status, raw.body.error.code]).to.deep.equal([400, "INVALID_BODY"]);
  });

  it("GET /v1/status and /health show the indexed block and the lag", async function () {
    const { status, body } = await get("/v1/status");
    expect(status).to.equal(200);
    const head = await ethers.provider.getBlockNumber();
    expect(body.status).to.equal("ok");
    expect(body.indexer.indexedBlock).to.equal(head);
    expect(body.indexer.headBlock).to.equal(head);
    expect(body.indexer.lagBlocks).to.equal(0);
    expect(body.indexer.finalityDepth).to.equal(0);
    const health = await get("/health");
    expect(health.body.indexer).to.deep.equal({
      role: body.indexer.role,
      indexed_block: head,
      head_block: head,
      lag_blocks: 0,
      halt: null,
    });
  });

  it("read-your-writes: minBlock waits for the indexer to reach the caller's block", async function () {
    const { alice } = await users();
    await deposit(deployment, "conservative", alice, 7n * 1_000_000n);
    const block = await ethers.provider.getBlockNumber();
    const indexer = api.app.indexer!;
    setTimeout(() => void indexUntilCaughtUp(indexer), 300);
    const answer = await get(`/v1/users/${await alice.getAddress()}/transactions?limit=1&minBlock=${block}`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get("x-indexed-block")).to.equal(String(block));
    expect(answer.body.transactions[0].amount).to.equal("7000000");
    await expectError("/v1/vaults?minBlock=abc", 400, "INVALID_MIN_BLOCK");
  });

  it("read-your-writes on the reads answered from memory: a deposit shows in the vault's detail and the list", async function () {
    const { alice } = await users();
    const vault = deployment.vaults.moderate!.address;
    const before = await get(`/v1/vaults/${vault}`);
    const kept = await get(`/v1/vaults/${vault}`);
    expect(kept.body).to.deep.equal(before.body);
    await deposit(deployment, "moderate", alice, 11n * 1_000_000n);
    const block = await ethers.provider.getBlockNumber();
    setTimeout(() => void indexUntilCaughtUp(api.app.indexer!), 300);
    const waited = await get(`/v1/vaults/${vault}?minBlock=${block}`);
    expect(waited.status).to.equal(200);
    expect(waited.headers.get("x-indexed-block")).to.equal(String(block));
    const [view] = await lensAt(deployment).vaults([vault], { blockTag: block });
    expect(waited.body.tvl).to.equal(view.totalAssets.toString());
    expect(waited.body.tvl).to.not.equal(before.body.tvl);
    // The plain reads that follow answer the new block, the detail and the list alike.
    const detail = await get(`/v1/vaults/${vault.toLowerCase()}`);
    expect(detail.headers.get("x-indexed-block")).to.equal(String(block));
    expect(detail.body).to.deep.equal(waited.body);
    const list = await get("/v1/vaults", { "X-Min-Block": String(block) });
    expect(list.headers.get("x-indexed-block")).to.equal(String(block));
    expect(list.body.vaults.find((v: any) => v.address === vault).tvl).to.equal(waited.body.tvl);
    expect((await get("/v1/vaults")).body).to.deep.equal(list.body);
  });

  it("unknown /v1 paths and methods answer in the data API's shape; the live API keeps its own", async function () {
    await expectError("/v1/nothing", 404, "NOT_FOUND");
    await expectError("/v1/vaults", 405, "METHOD_NOT_ALLOWED", "DELETE");
    const live = await get("/api/v1/nothing");
    expect(live.status).to.equal(404);
    expect(typeof live.body.error).to.equal("string");
  });

  it("answers 405 with the path's own methods: a fixed path is not another route's parameter, access routes included", async function () {
    // /v1/vaults/batch is POST only, not the vault "batch" of GET /v1/vaults/:address.
    const batch = await expectError("/v1/vaults/batch", 405, "METHOD_NOT_ALLOWED", "GET");
    expect(batch.message).to.equal("method GET not allowed on /v1/vaults/batch; allowed: POST");
    const options = await request<any>(api.url, "OPTIONS", "/v1/vaults/batch", {});
    expect([options.status, options.headers.get("allow")]).to.deep.equal([204, "POST"]);
    const list = await request<any>(api.url, "OPTIONS", "/v1/vaults", {});
    expect([list.status, list.headers.get("allow")]).to.deep.equal([204, "HEAD, GET"]);
    // The access layer's routes answer an unsupported method 405 too, not 404.
    for (const [path, allowed] of [
      ["/v1/nodes", "HEAD, GET"],
      ["/v1/rate-limit-status", "HEAD, GET"],
      ["/v1/auth/nonce", "HEAD, GET"],
      ["/v1/auth/keys", "POST, HEAD, GET"],
    ]) {
      const response = await request<any>(api.url, "PATCH", path, {});
      expect([response.status, response.headers.get("allow"), response.body.error.code], path).to.deep.equal([
        405,
        allowed,
        "METHOD_NOT_ALLOWED",
      ]);
    }
  });

  it("serves an OpenAPI 3.1 document of every data route, the access layer's included", async function () {
    const { status, body } = await get("/v1/openapi.json");
    expect(status).to.equal(200);
    expect(body.openapi).to.equal("3.1.0");
    expect(Object.keys(body.paths).sort()).to.deep.equal(
      [
        "/v1/auth/keys",
        "/v1/auth/keys/{id}",
        "/v1/auth/nonce",
        "/v1/auth/token-info",
        "/v1/nodes",
        "/v1/nodes/heartbeat",
        "/v1/protocol/stats",
        "/v1/rate-limit-status",
        "/v1/status",
        "/v1/strategies",
        "/v1/strategies/{id}/performance",
        "/v1/users/{address}/positions",
        "/v1/users/{address}/transactions",
        "/v1/vaults",
        "/v1/vaults/batch",
        "/v1/vaults/{address}",
        "/v1/vaults/{address}/history",
        // The signed writes (issue 30): prepare and submit per action, and the relay's status.
        "/v1/vaults/{address}/deposit",
        "/v1/vaults/{address}/deposit/typed-data",
        "/v1/vaults/{address}/redeem",
        "/v1/vaults/{address}/redeem/typed-data",
        "/v1/vaults/{address}/request-redeem",
        "/v1/vaults/{address}/request-redeem/typed-data",
        "/v1/vaults/{address}/claim",
        "/v1/vaults/{address}/claim/typed-data",
        "/v1/vaults/{address}/cancel-redeem",
        "/v1/vaults/{address}/cancel-redeem/typed-data",
        "/v1/relays/{relay_id}",
      ].sort(),
    );
    expect(body.paths["/v1/vaults/{address}"].get.responses["404"].description).to.contain("VAULT_NOT_FOUND");
  });

  it("a halted indexer shows in /v1/status and /health", async function () {
    const halted = await startTestApp({ store, deployment });
    try {
      await store.readModel.setHalt({ reason: "reorg deeper than the window: test", at: new Date() });
      const status = await request<any>(halted.url, "GET", "/v1/status");
      expect(status.body.status).to.equal("halted");
      expect(status.body.indexer.halt.reason).to.equal("reorg deeper than the window: test");
      const health = await request<any>(halted.url, "GET", "/health");
      expect(health.body.status).to.equal("degraded");
      expect(health.body.indexer.halt).to.equal("reorg deeper than the window: test");
    } finally {
      await store.readModel.setHalt(null);
      await halted.close();
    }
  });
});

/**
 * The bounds of the signed writes' input, sent one past each: refused by the route's schema before any chain read. At
 * each bound the input passes the schema and meets the vault lookup (an address with no vault: VAULT_NOT_FOUND).
 */
describe("data API signed writes: the input's bounds", function () {
  let api: TestApp;
  const OWNER = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
  const notFound = {
    status: 404,
    body: {
      error: {
        code: "VAULT_NOT_FOUND",
        message: `no vault at ${UNKNOWN}`,
        details: { address: UNKNOWN },
      },
    },
  };
  const message = {
    owner: OWNER,
    amount: "1",
    receiver: OWNER,
    min_shares: "0",
    nonce: "1",
    deadline: "1",
    signature: `0x${"ab".repeat(65)}`,
  };
  const submit = async (body: unknown, headers: Record<string, string> = {}) => {
    const answer = await request(api.url, "POST", `/v1/vaults/${UNKNOWN}/deposit`, { body, headers });
    return { status: answer.status, body: answer.body };
  };
  const refused = (code: string, text: string, field: string) => ({
    status: 400,
    body: { error: { code, message: text, details: { field } } },
  });

  before(async function () {
    api = await startTestApp();
  });

  after(async function () {
    await api.close();
  });

  it("attack: a signature past 4096 bytes (an EIP-1271 wallet's may pass 65) on the intent or the permit is refused before any chain read; 4096 bytes pass", async function () {
    const past = `0x${"ab".repeat(4097)}`;
    expect(await submit({ ...message, signature: past })).to.deep.equal(
      refused("INVALID_SIGNATURE", "signature: must be 0x hex of whole bytes (at most 4096)", "signature"),
    );
    expect(await submit({ ...message, permit: { value: "1", deadline: "1", signature: past } })).to.deep.equal(
      refused("INVALID_PERMIT", "permit: signature: must be 0x hex of whole bytes (at most 4096)", "permit"),
    );
    const at = `0x${"ab".repeat(4096)}`;
    expect(
      await submit({ ...message, signature: at, permit: { value: "1", deadline: "1", signature: at } }),
    ).to.deep.equal(notFound);
  });

  it("attack: 79-digit amounts, nonces and deadlines, and an authorisation nonce past 32 bytes, are refused INVALID_<FIELD> by their pattern; 78 digits pass it", async function () {
    const digits79 = `1${"0".repeat(78)}`;
    for (const field of ["amount", "min_shares", "nonce", "deadline"]) {
      expect(await submit({ ...message, [field]: digits79 }), field).to.deep.equal(
        refused(
          `INVALID_${field.toUpperCase()}`,
          `${field}: must be a decimal integer without sign or leading zeros`,
          field,
        ),
      );
    }
    const prepare = await request(
      api.url,
      "GET",
      `/v1/vaults/${UNKNOWN}/deposit/typed-data?owner=${OWNER}&amount=${digits79}`,
    );
    expect({ status: prepare.status, body: prepare.body }).to.deep.equal(
      refused("INVALID_AMOUNT", "amount: must be a decimal integer without sign or leading zeros", "amount"),
    );
    const redeem = (authorization: unknown) =>
      request(api.url, "POST", `/v1/vaults/${UNKNOWN}/redeem`, {
        body: {
          owner: OWNER,
          shares: "1",
          receiver: OWNER,
          min_assets: "0",
          nonce: "1",
          deadline: "1",
          signature: message.signature,
          operator_authorization: authorization,
        },
      }).then((answer) => ({ status: answer.status, body: answer.body }));
    expect(
      await redeem({ nonce: `0x${"ab".repeat(32)}`, deadline: digits79, signature: message.signature }),
    ).to.deep.equal(
      refused(
        "INVALID_OPERATOR_AUTHORIZATION",
        "operator_authorization: deadline: must be a decimal integer without sign or leading zeros",
        "operator_authorization",
      ),
    );
    expect(await redeem({ nonce: `0x${"ab".repeat(33)}`, deadline: "1", signature: message.signature })).to.deep.equal(
      refused(
        "INVALID_OPERATOR_AUTHORIZATION",
        "operator_authorization: nonce: must be 0x and 32 bytes of hex",
        "operator_authorization",
      ),
    );
    const max = ((1n << 256n) - 1n).toString();
    expect(await submit({ ...message, amount: max, nonce: max, deadline: max })).to.deep.equal(notFound);
  });

  it("attack: a 256-character Idempotency-Key is refused INVALID_IDEMPOTENCY_KEY; 255 characters pass", async function () {
    expect(await submit(message, { "Idempotency-Key": "k".repeat(256) })).to.deep.equal(
      refused(
        "INVALID_IDEMPOTENCY_KEY",
        "Idempotency-Key: must be 1-255 printable ASCII characters without spaces",
        "Idempotency-Key",
      ),
    );
    expect(await submit(message, { "Idempotency-Key": "k".repeat(255) })).to.deep.equal(notFound);
  });

  it("attack: a relay_id that is not 32 bytes of hex is INVALID_RELAY_ID before any lookup; 64 hex characters are looked up", async function () {
    for (const id of [`0x${"a".repeat(63)}`, `0x${"a".repeat(65)}`, "a".repeat(66), `0x${"g".repeat(64)}`]) {
      const answer = await request(api.url, "GET", `/v1/relays/${id}`);
      expect({ status: answer.status, body: answer.body }, id).to.deep.equal(
        refused("INVALID_RELAY_ID", "relay_id: must be 0x and 64 hex characters (the intent's digest)", "relay_id"),
      );
    }
    const id = `0x${"a".repeat(64)}`;
    const answer = await request(api.url, "GET", `/v1/relays/${id}`);
    expect({ status: answer.status, body: answer.body }).to.deep.equal({
      status: 404,
      body: { error: { code: "RELAY_NOT_FOUND", message: `relay_id: no relay ${id}`, details: { relay_id: id } } },
    });
  });
});
