import { expect } from "chai";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress } from "ethers";
import { auditServer } from "graphql-http";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { Deployment } from "../../../../api/src/chain/deployment";
import { buildSchema, parse, validate } from "graphql";
import { errorFormatter } from "../../../../api/src/doors/graphql/errors";
import { limitRules, MAX_DEPTH } from "../../../../api/src/doors/graphql/limits";
import { createLogger } from "../../../../api/src/logger";
import { createMemoryStore, type MemoryStore } from "../../../../api/src/store/memory";
import { request, startTestApp, type TestApp } from "../../helpers/app";
import { deployTestSystem } from "../../helpers/system";
import { indexUntilCaughtUp } from "../../indexer/helpers";
import { deposit, fund, scriptedActivity, strategyActivity, users } from "../../indexer/activity";

/* eslint-disable @typescript-eslint/no-explicit-any */

const UNKNOWN = "0x000000000000000000000000000000000000dEaD";
const VAULT_FIELDS = `address name symbol tvl tvlUsd totalShares pricePerShare apy { current day7 day30 inception }
  fees { management performance hurdle } riskLevel isERC7540 fulfillmentDelay createdAt
  strategies { id name status allocation apy riskScore sharpeRatio maxDrawdown }`;

describe("data API GraphQL through HTTP and WebSocket", function () {
  let deployment: Deployment;
  let store: MemoryStore;
  let api: TestApp;
  let holders: string[];
  let strategyId: string;
  const clients: Client[] = [];

  before(async function () {
    deployment = await deployTestSystem();
    store = createMemoryStore();
    api = await startTestApp({ store, deployment });
    strategyId = await strategyActivity(deployment);
    holders = await scriptedActivity(deployment);
    const { alice } = await users();
    await fund(deployment, alice, 10_000n * 1_000_000n);
    for (let day = 0; day < 3; day++) {
      await time.increase(86_400);
      await deposit(deployment, "moderate", alice, 10n * 1_000_000n);
    }
    await indexUntilCaughtUp(api.app.indexer!);
  });

  afterEach(async function () {
    for (const client of clients.splice(0)) await client.dispose();
  });

  after(async function () {
    await api.close();
  });

  const gql = (query: string, variables?: Record<string, unknown>, path = "/graphql") =>
    request<any>(api.url, "POST", path, {
      body: { query, variables },
      headers: { accept: "application/graphql-response+json" },
    });
  const rest = async (path: string) => (await request<any>(api.url, "GET", path)).body;

  it("vaults: every field, equal to REST's detail for each vault, at /graphql and /v1/graphql", async function () {
    for (const path of ["/graphql", "/v1/graphql"]) {
      const { status, body } = await gql(`{ vaults { ${VAULT_FIELDS} } }`, undefined, path);
      expect(status, path).to.equal(200);
      expect(body.errors).to.equal(undefined);
      expect(body.data.vaults).to.have.length(6);
      for (const vault of body.data.vaults) {
        const detail = await rest(`/v1/vaults/${vault.address}`);
        expect(vault.name).to.equal(detail.name);
        expect(vault.symbol).to.equal(detail.symbol);
        expect(vault.tvl).to.equal(detail.tvl);
        expect(vault.totalShares).to.equal(detail.totalShares);
        expect(vault.pricePerShare).to.equal(detail.pricePerShare);
        expect(vault.apy).to.deep.equal({
          current: detail.apy.current,
          day7: detail.apy["7d"],
          day30: detail.apy["30d"],
          inception: detail.apy.inception,
        });
        expect(vault.fees).to.deep.equal(detail.fees);
        expect(vault.isERC7540).to.equal(detail.isERC7540);
        expect(vault.fulfillmentDelay).to.equal(detail.fulfillmentDelay);
        expect(vault.strategies.map((s: any) => [s.name, s.allocation, s.apy])).to.deep.equal(
          detail.strategies.map((s: any) => [s.name, s.allocation, s.apy]),
        );
        const view = (await api.app.queries.vault(vault.address))!;
        expect(vault.tvlUsd).to.equal(view.tvlUsd);
        expect(vault.riskLevel).to.equal(view.riskLevel);
        expect(vault.createdAt).to.equal(new Date(view.createdAt * 1000).toISOString());
      }
    }
  });

  it("vaults: riskLevel, minTvl and every orderBy", async function () {
    const all = (await api.app.queries.vaults()).vaults;
    const moderate = await gql(`{ vaults(riskLevel: MODERATE) { address riskLevel } }`);
    expect(moderate.body.data.vaults.map((v: any) => v.address)).to.deep.equal(
      all.filter((v) => v.riskLevel === "MODERATE").map((v) => v.address),
    );
    const threshold = all.map((v) => v.tvl).sort((a, b) => (a < b ? -1 : 1))[3];
    const rich = await gql(`query($min: BigInt) { vaults(minTvl: $min) { tvl } }`, { min: threshold.toString() });
    expect(rich.body.data.vaults.map((v: any) => v.tvl)).to.deep.equal(
      all.filter((v) => v.tvl >= threshold).map((v) => v.tvl.toString()),
    );
    const byTvl = await gql(`{ vaults(orderBy: TVL_DESC) { tvl } }`);
    const tvls = byTvl.body.data.vaults.map((v: any) => BigInt(v.tvl));
    expect(tvls).to.deep.equal([...tvls].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    for (const [order, key] of [
      ["TVL_ASC", "tvl"],
      ["APY_DESC", "apy"],
      ["APY_ASC", "apy"],
      ["CREATED_DESC", "createdAt"],
      ["CREATED_ASC", "createdAt"],
      ["NAME_ASC", "name"],
    ]) {
      const { body } = await gql(`{ vaults(orderBy: ${order}) { address name tvl createdAt apy { current } } }`);
      expect(body.data.vaults, order).to.have.length(6);
      const values = body.data.vaults.map((v: any) =>
        key === "apy" ? v.apy.current : key === "tvl" ? BigInt(v.tvl) : v[key],
      );
      const sorted = [...values].sort((a: any, b: any) => (a < b ? -1 : a > b ? 1 : 0));
      expect(values, order).to.deep.equal(order.endsWith("DESC") ? sorted.reverse() : sorted);
    }
  });

  it("vault and vaultHistory: answers, NOT_FOUND for an unknown vault, INVALID_ADDRESS for a malformed one", async function () {
    const address = deployment.vaults.moderate!.address;
    const one = await gql(`query($a: String!) { vault(address: $a) { address tvl } }`, { a: address.toLowerCase() });
    expect(one.body.data.vault.address).to.equal(address);

    const missing = await gql(`{ vault(address: "${UNKNOWN}") { address } }`);
    expect(missing.status).to.equal(200);
    expect(missing.body.data).to.deep.equal({ vault: null });
    expect(missing.body.errors).to.have.length(1);
    expect(missing.body.errors[0].extensions.code).to.equal("NOT_FOUND");
    expect(missing.body.errors[0].path).to.deep.equal(["vault"]);
    expect(missing.body.errors[0].locations).to.deep.equal([{ line: 1, column: 3 }]);
    expect(missing.body.errors[0].message).to.equal(`vault ${UNKNOWN} not found`);

    const malformed = await gql(`{ vault(address: "0x1234") { address } }`);
    expect(malformed.body.errors[0].extensions).to.deep.equal({ code: "INVALID_ADDRESS", field: "address" });

    const history = await gql(
      `query($a: String!) { vaultHistory(address: $a, period: MONTH, interval: DAY) { timestamp block tvl tvlUsd totalShares pricePerShare apy } }`,
      { a: address },
    );
    const restHistory = await rest(`/v1/vaults/${address}/history?period=30d&interval=1d`);
    expect(history.body.data.vaultHistory).to.deep.equal(restHistory.points);

    for (const [period, interval] of [
      ["WEEK", "HOUR"],
      ["QUARTER", "FOUR_HOURS"],
      ["YEAR", "WEEK"],
      ["ALL", "DAY"],
    ]) {
      const rp = { WEEK: "7d", QUARTER: "90d", YEAR: "1y", ALL: "all" }[period]!;
      const ri = { HOUR: "1h", FOUR_HOURS: "4h", WEEK: "1w", DAY: "1d" }[interval]!;
      const answer = await gql(
        `{ vaultHistory(address: "${address}", period: ${period}, interval: ${interval}) { timestamp tvl apy } }`,
      );
      const expected = await request<any>(api.url, "GET", `/v1/vaults/${address}/history?period=${rp}&interval=${ri}`);
      if (expected.status === 200) {
        expect(answer.body.data.vaultHistory, `${period} ${interval}`).to.deep.equal(
          expected.body.points.map((p: any) => ({ timestamp: p.timestamp, tvl: p.tvl, apy: p.apy })),
        );
      } else {
        expect(answer.body.errors[0].extensions.code, `${period} ${interval}`).to.equal("TOO_MANY_POINTS");
      }
    }
    const unknownHistory = await gql(`{ vaultHistory(address: "${UNKNOWN}", period: MONTH, interval: DAY) { tvl } }`);
    expect(unknownHistory.body.data).to.equal(null);
    expect(unknownHistory.body.errors[0].extensions.code).to.equal("NOT_FOUND");
  });

  it("strategies and strategy: the query layer's figures, filters by status and minSharpe", async function () {
    const views = await api.app.queries.strategies();
    const { body } = await gql(`{ strategies { id name status allocation apy riskScore sharpeRatio maxDrawdown } }`);
    expect(body.data.strategies).to.deep.equal(
      views.map((s) => ({
        id: s.id,
        name: s.name,
        status: s.status,
        allocation: s.allocation,
        apy: s.apy,
        riskScore: s.riskScore,
        sharpeRatio: s.sharpeRatio,
        maxDrawdown: s.maxDrawdown,
      })),
    );
    const one = await gql(`query($id: ID!) { strategy(id: $id) { id name status } }`, { id: strategyId });
    const view = (await api.app.queries.strategy(strategyId))!;
    expect(one.body.data.strategy).to.deep.equal({ id: view.id, name: view.name, status: view.status });
    const none = await gql(`{ strategy(id: "999999") { id } }`);
    expect(none.body).to.deep.equal({ data: { strategy: null } });
    const byStatus = await gql(`query($s: StrategyStatus) { strategies(status: $s) { id } }`, { s: view.status });
    expect(byStatus.body.data.strategies.map((s: any) => s.id)).to.deep.equal(
      views.filter((s) => s.status === view.status).map((s) => s.id),
    );
    const deprecated = await gql(`{ strategies(status: DEPRECATED) { id } }`);
    expect(deprecated.body.data.strategies).to.deep.equal([]);
    const high = await gql(`{ strategies(minSharpe: 1000000) { id } }`);
    expect(high.body.data.strategies).to.deep.equal(
      views.filter((s) => s.sharpeRatio >= 1e6).map((s) => ({ id: s.id })),
    );
  });

  it("userPositions and userTransactions: the query layer's positions and pages, type filter, paging errors", async function () {
    for (const holder of holders) {
      const { body } = await gql(
        `query($a: String!) { userPositions(address: $a) { vault { address } shares value pnl pnlPercent depositedAt } }`,
        { a: holder },
      );
      const views = await api.app.queries.positions(holder);
      expect(body.data.userPositions).to.deep.equal(
        views.map((p) => ({
          vault: { address: p.vault.address },
          shares: p.shares.toString(),
          value: p.value.toString(),
          pnl: p.pnl.toString(),
          pnlPercent: p.pnlPercent,
          depositedAt: new Date(p.depositedAt * 1000).toISOString(),
        })),
      );
    }
    const { alice } = await users();
    const user = await alice.getAddress();
    const all = await api.app.queries.transactions(user, { limit: 500, offset: 0 });
    expect(all.total).to.be.greaterThan(3);
    const page = await gql(
      `query($a: String!) { userTransactions(address: $a, limit: 2, offset: 1) { hash type vault { address } user amount shares status timestamp } }`,
      { a: user },
    );
    expect(page.body.data.userTransactions).to.deep.equal(
      all.items.slice(1, 3).map((tx) => ({
        hash: tx.hash,
        type: tx.type,
        vault: { address: tx.vault.address },
        user: getAddress(tx.user),
        amount: tx.amount.toString(),
        shares: tx.shares === null ? null : tx.shares.toString(),
        status: tx.status,
        timestamp: new Date(tx.timestamp * 1000).toISOString(),
      })),
    );
    const deposits = await gql(`{ userTransactions(address: "${user}", type: DEPOSIT) { type } }`);
    expect(deposits.body.data.userTransactions).to.deep.equal(
      all.items.filter((tx) => tx.type === "DEPOSIT").map(() => ({ type: "DEPOSIT" })),
    );
    for (const [args, code, field] of [
      ["limit: 0", "INVALID_LIMIT", "limit"],
      ["limit: 501", "INVALID_LIMIT", "limit"],
      ["offset: -1", "INVALID_OFFSET", "offset"],
    ]) {
      const bad = await gql(`{ userTransactions(address: "${user}", ${args}) { hash } }`);
      expect(bad.body.data, args).to.equal(null);
      expect(bad.body.errors[0].extensions.code, args).to.equal(code);
      expect(bad.body.errors[0].extensions.field, args).to.equal(field);
    }
    const badAddress = await gql(`{ userPositions(address: "0xZZ") { shares } }`);
    expect(badAddress.body.errors[0].extensions.code).to.equal("INVALID_ADDRESS");
  });

  it("protocolStats and nodeStats: the query layer's statistics and the indexer's status", async function () {
    const { body } = await gql(`{ protocolStats { totalTvl totalTvlUsd vaultCount userCount transactionCount
      depositVolume withdrawVolume feesAccrued strategyCount liveStrategyCount proposalCount voteCount indexedBlock indexedAt }
      nodeStats { role indexedBlock headBlock lagBlocks finalityDepth haltReason } }`);
    const stats = await api.app.queries.protocolStats();
    expect(body.data.protocolStats).to.deep.equal({
      totalTvl: stats.totalTvl.toString(),
      totalTvlUsd: stats.totalTvlUsd,
      vaultCount: 6,
      userCount: stats.userCount,
      transactionCount: stats.transactionCount,
      depositVolume: stats.depositVolume.toString(),
      withdrawVolume: stats.withdrawVolume.toString(),
      feesAccrued: stats.feesAccrued.toString(),
      strategyCount: stats.strategyCount,
      liveStrategyCount: stats.liveStrategyCount,
      proposalCount: stats.proposalCount,
      voteCount: stats.voteCount,
      indexedBlock: stats.indexedBlock,
      indexedAt: new Date(stats.indexedAt! * 1000).toISOString(),
    });
    const height = (await store.readModel.cursor())!.height;
    expect(body.data.nodeStats).to.deep.equal({
      role: "WRITER",
      indexedBlock: height,
      headBlock: height,
      lagBlocks: 0,
      finalityDepth: 0,
      haltReason: null,
    });
  });

  it("a malformed query, an unknown field and a bad BigInt answer 400 with codes; the deepest legal query runs; a too costly one is refused", async function () {
    const syntax = await gql(`{ vaults { address `);
    expect(syntax.status).to.equal(400);
    expect(syntax.body.errors[0].extensions.code).to.equal("GRAPHQL_PARSE_FAILED");
    const unknown = await gql(`{ vaults { nope } }`);
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors[0].extensions.code).to.equal("GRAPHQL_VALIDATION_FAILED");
    expect(unknown.body.errors[0].message).to.equal('Cannot query field "nope" on type "Vault". Did you mean "name"?');
    const bigint = await gql(`query($m: BigInt) { vaults(minTvl: $m) { address } }`, { m: "12.5" });
    expect(bigint.status).to.equal(400);
    expect(bigint.body.errors[0].extensions.code).to.equal("BAD_USER_INPUT");

    // The schema has no cycles: its deepest selection (a position's vault's strategies) is legal. The depth rule
    // itself is checked on a cyclic schema in the test below.
    const deepest = await gql(
      `{ userPositions(address: "${UNKNOWN}") { vault { strategies { id } } } a: userTransactions(address: "${UNKNOWN}") { vault { apy { current } } } }`,
    );
    expect(deepest.status).to.equal(200);
    expect(deepest.body.errors).to.equal(undefined);

    const costly = await gql(`{ userTransactions(address: "${UNKNOWN}", limit: 500) { vault { ${VAULT_FIELDS} } } }`);
    expect(costly.status).to.equal(400);
    expect(costly.body.errors[0].extensions.code).to.equal("QUERY_TOO_COMPLEX");
    expect(costly.body.errors[0].extensions.max).to.equal(10_000);
  });

  it("the depth rule refuses an operation nested deeper than MAX_DEPTH with QUERY_TOO_DEEP", function () {
    const cyclic = buildSchema(`type Query { node: Node } type Node { id: ID child: Node }`);
    // `{ node { child { id } } }` is 3 deep: nest(levels) is levels + 2.
    const nest = (levels: number) => `{ node { ${"child { ".repeat(levels)}id${" }".repeat(levels)} } }`;
    const format = errorFormatter(createLogger("silent"));
    expect(validate(cyclic, parse(nest(MAX_DEPTH - 2)), limitRules({}))).to.deep.equal([]);
    const errors = validate(cyclic, parse(nest(MAX_DEPTH - 1)), limitRules({})).map(format);
    expect(errors.map((e) => [e.extensions.code, e.message, e.extensions.found, e.extensions.max])).to.deep.equal([
      ["QUERY_TOO_DEEP", `query depth ${MAX_DEPTH + 1} exceeds the maximum ${MAX_DEPTH}`, MAX_DEPTH + 1, MAX_DEPTH],
    ]);
  });

  it("publishes its schema as SDL and passes graphql-http's GraphQL-over-HTTP audit", async function () {
    const sdl = await fetch(`${api.url}/graphql/schema.graphql`);
    expect(sdl.status).to.equal(200);
    const text = await sdl.text();
    expect(text).to.equal(api.app.graphql.sdl);
    expect(text).to.contain("vaultUpdated(address: String!, afterSeq: Int): Vault!");
    for (const path of ["/graphql", "/v1/graphql"]) {
      const results = await auditServer({ url: `${api.url}${path}` });
      const failed = results.filter((r) => r.status === "error");
      expect(
        failed.map((r) => `${r.id} ${r.name}: ${(r as any).reason}`),
        path,
      ).to.deep.equal([]);
    }
  });

  describe("subscriptions (graphql-ws)", function () {
    const wsUrl = () => api.url.replace("http", "ws") + "/graphql";
    const connect = () => {
      const client = createClient({ url: wsUrl(), webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
      clients.push(client);
      return client;
    };
    /** The next `count` messages of one subscription. */
    const collect = (client: Client, query: string, variables: Record<string, unknown>, count: number) => {
      const messages: any[] = [];
      let unsubscribe: () => void = () => undefined;
      const done = new Promise<any[]>((resolve, reject) => {
        unsubscribe = client.subscribe(
          { query, variables },
          {
            next: (message) => {
              messages.push(message);
              if (messages.length === count) {
                unsubscribe();
                resolve(messages);
              }
            },
            error: reject,
            complete: () => resolve(messages),
          },
        );
      });
      return done;
    };
    const tick = () => new Promise((resolve) => setTimeout(resolve, 400));

    it("vaultUpdated and transactionCreated deliver a deposit made after subscribing, with its log seq", async function () {
      const vault = deployment.vaults.moderate!.address;
      const client = connect();
      const updates = collect(
        client,
        `subscription($a: String!) { vaultUpdated(address: $a) { address tvl pricePerShare apy { current } } }`,
        { a: vault },
        1,
      );
      const created = collect(
        client,
        `subscription($a: String) { transactionCreated(vaultAddress: $a) { hash type amount user timestamp vault { address } } }`,
        { a: vault },
        1,
      );
      await tick();
      const { bob } = await users();
      await fund(deployment, bob, 1_000n * 1_000_000n);
      await deposit(deployment, "moderate", bob, 123_456_789n);
      await indexUntilCaughtUp(api.app.indexer!);

      const [update] = await updates;
      expect(update.errors).to.equal(undefined);
      const after = (await api.app.queries.vault(vault))!;
      expect(update.data.vaultUpdated).to.deep.equal({
        address: vault,
        tvl: after.tvl.toString(),
        pricePerShare: after.pricePerShare.toString(),
        apy: { current: after.apy.current },
      });
      const entry = (await store.readModel.eventLog(update.extensions.seq - 1, 1))[0];
      expect(entry.event.address).to.equal(vault.toLowerCase());
      expect(entry.event.block).to.equal((await store.readModel.cursor())!.height);

      const [transaction] = await created;
      const bobAddress = await bob.getAddress();
      const { items } = await api.app.queries.transactions(bobAddress, { limit: 1, offset: 0 });
      expect(transaction.data.transactionCreated).to.deep.equal({
        hash: items[0].hash,
        type: "DEPOSIT",
        amount: "123456789",
        user: bobAddress,
        timestamp: new Date(items[0].timestamp * 1000).toISOString(),
        vault: { address: vault },
      });
      const log = await store.readModel.eventLog(transaction.extensions.seq - 1, 1);
      expect(log[0].event.name).to.equal("Deposit");
      expect(log[0].event.transactionHash).to.equal(items[0].hash);
    });

    it("a client that reconnects with afterSeq gets what it missed, in order, then live events", async function () {
      const vault = deployment.vaults.conservative!.address;
      const { bob } = await users();
      const resumeFrom = await api.app.feed.lastSeq();
      // Made while the client was away.
      await deposit(deployment, "conservative", bob, 1_000_000n);
      await deposit(deployment, "conservative", bob, 2_000_000n);
      await indexUntilCaughtUp(api.app.indexer!);
      const missed = (await store.readModel.eventLog(resumeFrom, 1_000)).filter(
        (e) => e.action === "added" && e.event.address === vault.toLowerCase() && e.event.name === "Deposit",
      );
      expect(missed).to.have.length(2);

      const client = connect();
      const messages = collect(
        client,
        `subscription($a: String, $s: Int) { transactionCreated(vaultAddress: $a, afterSeq: $s) { amount } }`,
        { a: vault, s: resumeFrom },
        3,
      );
      await tick();
      await deposit(deployment, "conservative", bob, 3_000_000n);
      await indexUntilCaughtUp(api.app.indexer!);
      const received = await messages;
      expect(received.map((m) => m.data.transactionCreated.amount)).to.deep.equal(["1000000", "2000000", "3000000"]);
      const seqs = received.map((m) => m.extensions.seq);
      expect(seqs.slice(0, 2)).to.deep.equal(missed.map((e) => e.seq));
      expect(seqs[2]).to.be.greaterThan(seqs[1]);
    });

    it("subscribing to an unknown vault or a malformed address is an error message with its code", async function () {
      const client = connect();
      const unknown = await new Promise<any>((resolve) =>
        client.subscribe(
          { query: `subscription { vaultUpdated(address: "${UNKNOWN}") { tvl } }` },
          { next: resolve, error: resolve, complete: () => undefined },
        ),
      );
      const errors = Array.isArray(unknown) ? unknown : unknown.errors;
      expect(errors[0].extensions.code).to.equal("NOT_FOUND");
      const invalid = await new Promise<any>((resolve) =>
        client.subscribe(
          { query: `subscription { vaultUpdated(address: "0x12") { tvl } }` },
          { next: resolve, error: resolve, complete: () => undefined },
        ),
      );
      const invalidErrors = Array.isArray(invalid) ? invalid : invalid.errors;
      expect(invalidErrors[0].extensions.code).to.equal("INVALID_ADDRESS");
    });
  });
});
