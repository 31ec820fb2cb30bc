import { expect } from "chai";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { Writable } from "node:stream";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { DEFAULT_BODY_LIMIT_BYTES, SOCKET_CLOSE } from "../../../../api/src/doors/graphql";
import { DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS } from "../../../../api/src/doors/graphql/messageGate";
import { IDE_CSP } from "../../../../api/src/doors/graphql/ide";
import { MAX_ALIASES, MAX_DIRECTIVES, MAX_SELECTIONS, MAX_TOKENS } from "../../../../api/src/doors/graphql/limits";
import { createLogger } from "../../../../api/src/logger";
import { request, startTestApp, type TestApp } from "../../helpers/app";
import { deployTestSystem } from "../../helpers/system";
import { indexUntilCaughtUp } from "../../indexer/helpers";
import { recordFigure } from "../../../helpers/figures";

/* eslint-disable @typescript-eslint/no-explicit-any */

const OPERATOR_KEY = "operator-key-graphql-hostile";
const UNKNOWN = "0x000000000000000000000000000000000000dEaD";

/** The issue's document: F30 spreads F29 twice, ... F1 spreads F0 twice; F0 selects one field. */
function fanOut(levels: number): string {
  const fragments = ["fragment F0 on Query { protocolStats { totalTvl } }"];
  for (let i = 1; i <= levels; i++) fragments.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
  return `query { ...F${levels} } ${fragments.join(" ")}`;
}

/** Log lines at error level or above (pino: 50 and up). */
class LogLines extends Writable {
  readonly lines: any[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split("\n").filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
  errors() {
    return this.lines.filter((line) => line.level >= 50);
  }
}

describe("GraphQL door against hostile documents, bodies and sockets", function () {
  let api: TestApp;
  const logs = new LogLines();
  const clients: Client[] = [];

  before(async function () {
    const deployment = await deployTestSystem();
    api = await startTestApp({
      deployment,
      env: { AGENT_API_KEYS: OPERATOR_KEY, LOG_LEVEL: "debug" },
      extra: { logger: createLogger("debug", logs) },
    });
    await indexUntilCaughtUp(api.app.indexer!);
  });

  afterEach(async function () {
    for (const client of clients.splice(0)) await client.dispose();
  });

  after(async function () {
    await api.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    request<any>(api.url, "POST", "/graphql", {
      body,
      headers: { accept: "application/graphql-response+json", ...headers },
    });
  const rawPost = (rawBody: string, contentType = "application/json") =>
    request<any>(api.url, "POST", "/graphql", { rawBody, headers: { "content-type": contentType } });
  const codes = (body: any) => body.errors.map((e: any) => e.extensions.code);
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const result = await work();
    return [result, performance.now() - started];
  };
  const health = async () => (await timed(() => request(api.url, "GET", "/health")))[1];

  const connect = (key?: string) => {
    const closed: { code?: number; reason?: string } = {};
    const client = createClient({
      url: api.url.replace("http", "ws") + "/graphql",
      webSocketImpl: WebSocket,
      connectionParams: key ? { authorization: `Bearer ${key}` } : undefined,
      retryAttempts: 0,
      lazy: false,
      on: { closed: (event: any) => Object.assign(closed, { code: event.code, reason: event.reason }) },
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    return { client, closed };
  };
  /** The first message of an operation on a socket, or the errors it was refused with. */
  const first = (client: Client, query: string) =>
    new Promise<any>((resolve) => {
      const stop = client.subscribe(
        { query },
        {
          next: (message) => (stop(), resolve(message)),
          error: (errors) => resolve({ errors }),
          complete: () => resolve({ complete: true }),
        },
      );
    });

  const issueKey = async (scopes: string[]) => {
    const issued = await request<any>(api.url, "POST", "/v1/auth/keys", {
      headers: { "X-API-Key": OPERATOR_KEY },
      body: { owner: "hostile", scopes },
    });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    return { key: issued.body.key as string, id: issued.body.key_id as string };
  };

  it("fragment fan-out: a 1.3 KB document of 2^30 spreads is refused QUERY_TOO_LARGE in bounded time by POST, GET and graphql-ws; /health stays fast meanwhile", async function () {
    const document = fanOut(30);
    expect(document.length).to.be.below(1_400);
    // F0 is 2 selections, Fn 2 + 2 F(n-1) = 2^(n+2) - 2; the operation adds its own spread.
    const refusal = {
      code: "QUERY_TOO_LARGE",
      selections: 2 ** 32 - 1,
      max: MAX_SELECTIONS,
    };

    const [byPost, postMs] = await timed(() => post({ query: document }));
    expect(byPost.status).to.equal(400);
    expect(byPost.body.errors).to.have.length(1);
    expect(byPost.body.errors[0].extensions).to.deep.equal(refusal);
    expect(byPost.body.data).to.equal(undefined);

    const [byGet, getMs] = await timed(() =>
      request<any>(api.url, "GET", `/graphql?query=${encodeURIComponent(fanOut(24))}`),
    );
    expect(byGet.status).to.equal(400);
    expect(byGet.body.errors[0].extensions).to.deep.equal({ ...refusal, selections: 2 ** 26 - 1 });

    const { client } = connect();
    const [bySocket, socketMs] = await timed(() => first(client, document.replace("query", "subscription")));
    expect(bySocket.errors.map((e: any) => e.extensions)).to.deep.equal([refusal]);

    // Twenty such documents at once, and /health between them.
    const flood = Array.from({ length: 20 }, () => post({ query: document }));
    const healthMs = await health();
    const answers = await Promise.all(flood);
    expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 400));
    expect(healthMs).to.be.below(1_000);
    for (const ms of [postMs, getMs, socketMs]) expect(ms).to.be.below(2_000);
    recordFigure(
      this.test!.title,
      `POST ${postMs.toFixed(1)} ms, GET ${getMs.toFixed(1)} ms, socket ${socketMs.toFixed(1)} ms; /health among 20: ${healthMs.toFixed(1)} ms`,
    );
    expect(logs.errors()).to.deep.equal([]);
  });

  it("fragment fan-out: a fragment cycle and deep nesting are refused with codes, not a 500 or a stack", async function () {
    const cycle = await post({ query: `{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }` });
    expect(cycle.status).to.equal(400);
    expect(codes(cycle.body)).to.deep.equal(["GRAPHQL_VALIDATION_FAILED"]);
    expect(cycle.body.errors[0].message).to.equal('Cannot spread fragment "A" within itself via "B".');

    // The node-cap document of the issue: nesting far past what a stack walks is cut at the token bound.
    const nested = `{ ${"vaults { ".repeat(1_200)}name${" }".repeat(1_200)} }`;
    const deep = await post({ query: nested });
    expect(deep.status).to.equal(400);
    expect(deep.body.errors[0].extensions).to.deep.equal({ code: "TOO_MANY_TOKENS", max: MAX_TOKENS });
    expect(JSON.stringify(deep.body)).to.not.match(/at \w+ \(/);
    expect(logs.errors()).to.deep.equal([]);
  });

  it("no body limit: a chunked 600 MiB body is refused 413 PAYLOAD_TOO_LARGE after the limit, kept nowhere, and the process lives", async function () {
    const chunk = Buffer.alloc(1024 * 1024, "a");
    const rssBefore = process.memoryUsage().rss;
    let sent = 0;
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(`${api.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      let answered = false;
      req.on("response", (res: IncomingMessage) => {
        answered = true;
        let text = "";
        res.on("data", (data: Buffer) => (text += data.toString()));
        res.on("end", () => (req.destroy(), resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) })));
      });
      req.on("error", (error) => (answered ? undefined : reject(error)));
      req.write('{"query":"{ __typename }","extensions":{"pad":"');
      const pump = () => {
        while (!answered && sent < 600 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!answered) req.end('"}}');
      };
      pump();
    });
    expect(answer.status).to.equal(413);
    expect(answer.body).to.deep.equal({
      errors: [
        {
          message: `the body is larger than the limit of ${DEFAULT_BODY_LIMIT_BYTES} bytes`,
          extensions: { code: "PAYLOAD_TOO_LARGE", max: DEFAULT_BODY_LIMIT_BYTES },
        },
      ],
    });
    const grewMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    recordFigure(
      this.test!.title,
      `${(sent / 2 ** 20).toFixed(0)} MiB sent before the answer; RSS +${grewMb.toFixed(1)} MB`,
    );
    expect(sent).to.be.below(600 * 1024 * 1024);

    // A declared length past the limit is refused without reading.
    const declared = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${api.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(600 * 1024 * 1024) },
      });
      req.on("response", (res) => (res.resume(), req.destroy(), resolve(res.statusCode ?? 0)));
      req.on("error", reject);
      req.write("{");
    });
    expect(declared).to.equal(413);
    expect((await request(api.url, "GET", "/health")).status).to.equal(200);
    expect((await post({ query: "{ __typename }" })).body).to.deep.equal({ data: { __typename: "Query" } });
  });

  it("GraphQL errors: cut JSON, a batch, no query, a browser's GET, { nope } and a wrong media type are 4xx with their codes, never logged as errors", async function () {
    const cut = await rawPost(`{"query":"{ vaults { name } }"`);
    expect([cut.status, codes(cut.body), cut.body.errors[0].message]).to.deep.equal([
      400,
      ["BAD_REQUEST"],
      "the body is not JSON",
    ]);
    const batch = await rawPost(JSON.stringify([{ query: "{ __typename }" }]));
    expect([batch.status, codes(batch.body), batch.body.errors[0].message]).to.deep.equal([
      400,
      ["BAD_REQUEST"],
      "batches are not supported: send one { query } per request",
    ]);
    const noQuery = await rawPost(JSON.stringify({ variables: {} }));
    expect([noQuery.status, codes(noQuery.body)]).to.deep.equal([400, ["BAD_REQUEST"]]);
    // A browser's GET without a query gets GraphiQL (test/docs/pages.browser.test.ts); a GraphQL client's, an error.
    const browser = await request<any>(api.url, "GET", "/graphql", { headers: { accept: "text/html,*/*;q=0.8" } });
    expect([
      browser.status,
      browser.headers.get("content-type"),
      browser.headers.get("content-security-policy"),
    ]).to.deep.equal([200, "text/html; charset=utf-8", IDE_CSP]);
    expect(browser.body).to.include('<script src="/graphql/assets/graphiql.min.js"></script>');
    const client = await request<any>(api.url, "GET", "/graphql", {
      headers: { accept: "application/graphql-response+json" },
    });
    expect([client.status, codes(client.body), client.body.errors[0].message]).to.deep.equal([
      400,
      ["BAD_REQUEST"],
      "the request has no query: send { query, variables, operationName }",
    ]);
    // Accepting plain JSON, where graphql-http answers validation errors with 200.
    const nope = await rawPost(JSON.stringify({ query: "{ nope }" }));
    expect([nope.status, codes(nope.body)]).to.deep.equal([400, ["GRAPHQL_VALIDATION_FAILED"]]);
    const form = await rawPost("query=%7B%20__typename%20%7D", "application/x-www-form-urlencoded");
    expect([form.status, codes(form.body)]).to.deep.equal([415, ["UNSUPPORTED_MEDIA_TYPE"]]);
    const html = await request<any>(api.url, "GET", "/graphql?query=%7B__typename%7D", {
      headers: { accept: "text/html" },
    });
    expect([html.status, codes(html.body)]).to.deep.equal([406, ["NOT_ACCEPTABLE"]]);
    const put = await request<any>(api.url, "PUT", "/graphql", { body: { query: "{ __typename }" } });
    expect([put.status, codes(put.body), put.headers.get("allow")]).to.deep.equal([
      405,
      ["METHOD_NOT_ALLOWED"],
      "GET, POST",
    ]);
    const operation = await post({ query: "query A { __typename } query B { __typename }", operationName: "C" });
    expect([operation.status, codes(operation.body)]).to.deep.equal([400, ["OPERATION_NOT_FOUND"]]);
    const overHttp = await post({ query: `subscription { transactionCreated { hash } }` });
    expect([overHttp.status, codes(overHttp.body)]).to.deep.equal([400, ["BAD_REQUEST"]]);
    expect(logs.errors()).to.deep.equal([]);
  });

  it("cheap-looking, expensive documents: 4,000 aliased vault misses are refused before they run; the worst admitted documents stay small", async function () {
    const misses = (count: number) =>
      `{ ${Array.from({ length: count }, (_, i) => `a${i}: vault(address: "${UNKNOWN}") { name }`).join(" ")} }`;
    const attack = await post({ query: misses(4_000) });
    expect([attack.status, codes(attack.body)]).to.deep.equal([413, ["PAYLOAD_TOO_LARGE"]]);
    const tooMany = await post({ query: misses(MAX_ALIASES + 1) });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.errors.map((e: any) => e.extensions)).to.deep.equal([
      { code: "TOO_MANY_ALIASES", found: MAX_ALIASES + 1, max: MAX_ALIASES },
    ]);

    // The worst admitted: every alias a miss (one error each), the largest lists the cost allows.
    const worst = {
      "aliased misses": misses(MAX_ALIASES),
      "every vault with every field, aliased": `{ ${Array.from(
        { length: 8 },
        (_, i) =>
          `v${i}: vaults { address name symbol tvl tvlUsd totalShares pricePerShare apy { current day7 day30 inception } fees { management performance hurdle } riskLevel isERC7540 fulfillmentDelay createdAt strategies { id name status allocation apy riskScore sharpeRatio maxDrawdown } }`,
      ).join(" ")} }`,
      "500 transactions": `{ userTransactions(address: "${UNKNOWN}", limit: 500) { hash type user amount shares status timestamp } }`,
    };
    for (const [name, query] of Object.entries(worst)) {
      // Five runs each: the first pays for warming up.
      const cpuMs: number[] = [];
      let answer: any;
      for (let run = 0; run < 5; run++) {
        const cpu = process.cpuUsage();
        answer = await post({ query });
        const used = process.cpuUsage(cpu);
        cpuMs.push((used.user + used.system) / 1000);
        expect(answer.status, name).to.equal(200);
      }
      recordFigure(
        this.test!.title,
        `${name}: ${cpuMs.map((ms) => ms.toFixed(1)).join(", ")} ms CPU (server and client), ${JSON.stringify(answer.body).length} bytes, ${answer.body.errors?.length ?? 0} errors`,
      );
    }
  });

  it("cheap-looking, expensive documents: 51 directives are refused TOO_MANY_DIRECTIVES", async function () {
    const fields = Array.from({ length: MAX_DIRECTIVES + 1 }, (_, i) => `t${i}: __typename @include(if: true)`);
    const refused = await post({ query: `{ ${fields.join(" ")} }` });
    expect(refused.status).to.equal(400);
    expect(refused.body.errors.map((e: any) => e.extensions)).to.deep.equal([
      { code: "TOO_MANY_DIRECTIVES", found: MAX_DIRECTIVES + 1, max: MAX_DIRECTIVES },
    ]);
    const admitted = await post({ query: `{ ${fields.slice(1).join(" ")} }` });
    expect([admitted.status, Object.keys(admitted.body.data).length]).to.deep.equal([200, MAX_DIRECTIVES]);
  });

  it("memory through graphql-ws: a subscribe message past the body limit closes its socket with 1009 before it is kept", async function () {
    const socket = new WebSocket(api.url.replace("http", "ws") + "/graphql", "graphql-transport-ws");
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify({ type: "connection_init" }));
    const pad = "a".repeat(8 * 1024 * 1024);
    socket.send(
      JSON.stringify({ id: "1", type: "subscribe", payload: { query: "{ __typename }", extensions: { pad } } }),
    );
    const code = await new Promise<number>((resolve) => socket.once("close", (closeCode) => resolve(closeCode)));
    expect(code).to.equal(1009);
    expect((await request(api.url, "GET", "/health")).status).to.equal(200);
    expect(logs.errors()).to.deep.equal([]);
  });

  it("scopes: a nodes:read key cannot read userPositions or userTransactions (HTTP, fragments, graphql-ws); the right key and anonymous callers can", async function () {
    const { key } = await issueKey(["nodes:read"]);
    const bearer = { authorization: `Bearer ${key}` };
    const positions = await post({ query: `{ userPositions(address: "${UNKNOWN}") { shares } }` }, bearer);
    expect(positions.status).to.equal(401);
    expect(positions.headers.get("www-authenticate")).to.equal(
      'Bearer realm="nap-data", error="insufficient_scope", scope="users:read"',
    );
    expect(positions.body.errors).to.have.length(1);
    expect(positions.body.errors[0].extensions).to.deep.include({
      code: "INSUFFICIENT_SCOPE",
      required_scope: "users:read",
      field: "userPositions",
      key_scopes: ["nodes:read"],
    });
    const hidden = await post(
      {
        query: `{ ... on Query { ...T } } fragment T on Query { userTransactions(address: "${UNKNOWN}") { hash } }`,
      },
      bearer,
    );
    expect([hidden.status, hidden.body.errors[0].extensions.field]).to.deep.equal([401, "userTransactions"]);
    const vaults = await post({ query: `{ vaults { name } }` }, bearer);
    expect([vaults.status, vaults.body.errors[0].extensions.required_scope]).to.deep.equal([401, "vaults:read"]);

    const { key: usersKey } = await issueKey(["users:read"]);
    const allowed = await post(
      { query: `{ userPositions(address: "${UNKNOWN}") { shares } }` },
      { authorization: `Bearer ${usersKey}` },
    );
    expect([allowed.status, allowed.body]).to.deep.equal([200, { data: { userPositions: [] } }]);
    const anonymous = await post({ query: `{ userTransactions(address: "${UNKNOWN}") { hash } }` });
    expect([anonymous.status, anonymous.body]).to.deep.equal([200, { data: { userTransactions: [] } }]);

    const { client } = connect(key);
    const refused = await first(client, `subscription { transactionCreated { hash } }`);
    expect(
      refused.errors.map((e: any) => [e.extensions.code, e.extensions.required_scope, e.extensions.field]),
    ).to.deep.equal([["INSUFFICIENT_SCOPE", "vaults:read", "transactionCreated"]]);
  });

  it("revocation reaches graphql-ws: a socket whose key is revoked is closed 4401 within the key check and opens nothing after", async function () {
    this.timeout(40_000);
    const { key, id } = await issueKey(["vaults:read"]);
    const { client, closed } = connect(key);
    let ended: unknown;
    client.subscribe(
      { query: `subscription { transactionCreated { hash } }` },
      { next: () => undefined, error: (error) => (ended = error), complete: () => (ended ??= "complete") },
    );
    // A second socket of the key, open and used before the key goes.
    const { client: other, closed: otherClosed } = connect(key);
    expect(await first(other, "{ __typename }")).to.deep.equal({ data: { __typename: "Query" } });
    expect(ended).to.equal(undefined);
    const revoked = await request<any>(api.url, "DELETE", `/v1/auth/keys/${id}`, {
      headers: { "X-API-Key": OPERATOR_KEY },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    const started = performance.now();

    // A new subscription on the open socket after the revocation: refused, and the socket closed at once.
    await first(other, `subscription { transactionCreated { hash } }`);
    expect(otherClosed.code).to.equal(SOCKET_CLOSE.UNAUTHENTICATED);

    while (closed.code === undefined && performance.now() - started < 15_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(closed.code).to.equal(SOCKET_CLOSE.UNAUTHENTICATED);
    expect(closed.reason).to.match(/^UNAUTHENTICATED: the key was revoked or expired/);
    recordFigure(this.test!.title, `closed ${(performance.now() - started).toFixed(0)} ms after the revocation`);
  });

  /** A raw graphql-transport-ws socket, acknowledged; what the server sends and how it closed. */
  const rawSocket = async () => {
    const socket = new WebSocket(api.url.replace("http", "ws") + "/graphql", "graphql-transport-ws");
    const received: any[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on("message", (data) => received.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(JSON.stringify({ type: "connection_init" }));
    while (!received.some((m) => m.type === "connection_ack")) await new Promise((r) => setTimeout(r, 5));
    return { socket, received, closed };
  };
  /** Resolves with the close, or with undefined if the socket is still open after `ms`. */
  const closedWithin = <T>(closed: Promise<T>, ms: number) =>
    Promise.race([closed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
  const { maxMessageBurst, maxMessagesPerSecond } = DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS;
  const rateReason = `MESSAGE_RATE: more than ${maxMessageBurst} messages at once or ${maxMessagesPerSecond} a second`;

  it("graphql-ws flood: 10,000 subscribe/complete pairs on one socket are closed with 1008 past the burst; /health stays fast", async function () {
    this.timeout(60_000);
    const { socket, received, closed } = await rawSocket();
    let healthMax = 0;
    let probing = true;
    const probes = (async () => {
      while (probing) {
        healthMax = Math.max(healthMax, await health());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) {
      const query = "subscription { transactionCreated { hash } }";
      socket.send(JSON.stringify({ type: "subscribe", id: `s${i}`, payload: { query } }));
      socket.send(JSON.stringify({ type: "complete", id: `s${i}` }));
    }
    const close = await closedWithin(closed, 10_000);
    const elapsedSeconds = (performance.now() - started) / 1000;
    probing = false;
    await probes;
    expect(close).to.deep.equal({ code: 1008, reason: rateReason });
    // connection_init took one message; subscribe i is message 2i + 1. Nothing past the bucket reached graphql-ws.
    const handled = received.filter((m) => m.id !== undefined).map((m) => Number(m.id.slice(1)));
    const lastAdmitted = maxMessageBurst - 1 + Math.ceil(elapsedSeconds * maxMessagesPerSecond);
    for (const i of handled) expect(2 * i + 1).to.be.at.most(lastAdmitted);
    expect(healthMax).to.be.below(1_000);
    expect((await request(api.url, "GET", "/health")).status).to.equal(200);
    recordFigure(
      this.test!.title,
      `closed after ${elapsedSeconds.toFixed(2)} s; ${handled.length} answers; /health max ${healthMax.toFixed(1)} ms`,
    );
    expect(logs.errors()).to.deep.equal([]);
  });

  it("pings count toward the graphql-ws message rate", async function () {
    const { socket, received, closed } = await rawSocket();
    const started = performance.now();
    for (let i = 0; i < maxMessageBurst + 50; i++) socket.send(JSON.stringify({ type: "ping" }));
    const close = await closedWithin(closed, 5_000);
    const elapsedSeconds = (performance.now() - started) / 1000;
    expect(close).to.deep.equal({ code: 1008, reason: rateReason });
    // The connection_init took one from the bucket; every pong answers a ping the bucket admitted (those not yet
    // answered when the socket closed get none).
    const pongs = received.filter((m) => m.type === "pong").length;
    expect(pongs).to.be.at.most(maxMessageBurst - 1 + Math.ceil(elapsedSeconds * maxMessagesPerSecond));
  });
});
