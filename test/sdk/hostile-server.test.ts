import { expect } from "chai";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  NapClient,
  NapDataClient,
  NapRedirectError,
  NapResponseTooLargeError,
  NapTimeoutError,
  NapTypedDataMismatchError,
} from "@nap/sdk";
import { Wallet } from "ethers";
import { CHAIN_ID, fakeService, ROUTER, VAULT, type Prepared } from "./helpers/signedWritesService";

/**
 * The SDK as the client of a hostile or broken server: a redirect to another origin, a server that never answers
 * or trickles its body, an endless answer, an oversized subscription message. Each server here is a local one
 * playing that part.
 */

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface Local {
  url: string;
  port: number;
  requests: { method: string; url: string; headers: IncomingHttpHeaders }[];
  server: Server;
}

const servers: Server[] = [];

async function serve(handler: Handler): Promise<Local> {
  const requests: Local["requests"] = [];
  const server = createServer((request, response) => {
    requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
    handler(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, requests, server };
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
};

const MiB = 1024 * 1024;

describe("SDK: against a hostile or broken server", function () {
  afterEach(async function () {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("cross-origin redirect: a 307 to another origin carries neither X-API-Key nor Authorization there (nothing is sent)", async function () {
    const elsewhere = await serve((_request, response) => json(response, 200, { captured: true }));
    const api = await serve((request, response) => {
      response.writeHead(307, { location: `${elsewhere.url}${request.url}` });
      response.end();
    });
    const live = new NapClient({ baseUrl: api.url, apiKey: "nap-secret-key" });
    const refused = (await live.wallet().catch((e: unknown) => e)) as NapRedirectError;
    expect(refused).to.be.instanceOf(NapRedirectError);
    expect(refused.message).to.equal(
      `GET /api/v1/agent/wallet: the server redirected to another origin (${elsewhere.url}); nothing was sent there`,
    );
    expect(refused.location).to.equal(`${elsewhere.url}/api/v1/agent/wallet`);
    const deposit = await live.deposit({ vault_id: "moderate", amount_usdc: 5 }).catch((e: unknown) => e);
    expect(deposit).to.be.instanceOf(NapRedirectError);

    const data = new NapDataClient({ baseUrl: api.url, apiKey: "napd-secret-key" });
    expect(await data.vaults().catch((e: unknown) => e)).to.be.instanceOf(NapRedirectError);
    expect(await data.query("protocolStats").catch((e: unknown) => e)).to.be.instanceOf(NapRedirectError);

    expect(elsewhere.requests).to.deep.equal([]);
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).to.deep.equal([
      "GET /api/v1/agent/wallet",
      "POST /api/v1/agent/vault/deposit",
      "GET /v1/vaults",
      "POST /graphql",
    ]);
  });

  it("same-origin redirect: followed with the key and the body (307), refused past five redirects", async function () {
    const api = await serve((request, response) => {
      if (request.url === "/api/v1/agent/vault/deposit") {
        response.writeHead(307, { location: "/moved/deposit" });
        response.end();
        return;
      }
      if (request.url === "/moved/deposit") {
        let body = "";
        request.on("data", (chunk: Buffer) => (body += chunk.toString()));
        request.on("end", () => json(response, 200, { key: request.headers["x-api-key"], body: JSON.parse(body) }));
        return;
      }
      // Everything else redirects to itself: a loop.
      response.writeHead(302, { location: request.url ?? "/" });
      response.end();
    });
    const live = new NapClient({ baseUrl: api.url, apiKey: "nap-key" });
    const answer = (await live.deposit({ vault_id: "moderate", amount_usdc: 5 })) as unknown;
    expect(answer).to.deep.equal({ key: "nap-key", body: { vault_id: "moderate", amount_usdc: 5 } });

    const loop = (await live.wallet().catch((e: unknown) => e)) as NapRedirectError;
    expect(loop).to.be.instanceOf(NapRedirectError);
    expect(loop.message).to.equal("GET /api/v1/agent/wallet: more than 5 redirects");
    expect(api.requests.filter((r) => r.url === "/api/v1/agent/wallet")).to.have.length(6);
  });

  it("hung server: a request that never gets an answer fails after timeoutMs, naming the path and the timeout, and is not resent", async function () {
    this.timeout(10_000);
    expect(DEFAULT_TIMEOUT_MS).to.equal(30_000);
    const api = await serve(() => {
      // never answers
    });
    const started = Date.now();
    const live = new NapClient({ baseUrl: api.url, timeoutMs: 300 });
    const error = (await live.vaults().catch((e: unknown) => e)) as NapTimeoutError;
    const elapsed = Date.now() - started;
    expect(error).to.be.instanceOf(NapTimeoutError);
    expect(error.message).to.equal("GET /api/v1/vaults: no complete answer within 300 ms (timeoutMs)");
    expect(error.timeoutMs).to.equal(300);
    expect(elapsed).to.be.within(300, 2_000);
    expect(api.requests).to.have.length(1);
  });

  it("trickled body: headers at once, then a byte every 50 ms: the whole answer is bounded by timeoutMs", async function () {
    this.timeout(10_000);
    const api = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write("[");
      const timer = setInterval(() => response.write("1,"), 50);
      response.on("close", () => clearInterval(timer));
    });
    const started = Date.now();
    const data = new NapDataClient({ baseUrl: api.url, timeoutMs: 400 });
    const error = (await data.protocolStats().catch((e: unknown) => e)) as NapTimeoutError;
    expect(error).to.be.instanceOf(NapTimeoutError);
    expect(error.message).to.equal("GET /v1/protocol/stats: no complete answer within 400 ms (timeoutMs)");
    expect(Date.now() - started).to.be.within(400, 2_000);
  });

  it("700 MiB answer: read as a stream and abandoned at the 10 MiB cap, the connection closed, the client's RSS bounded", async function () {
    this.timeout(60_000);
    expect(DEFAULT_MAX_RESPONSE_BYTES).to.equal(10 * MiB);
    const total = 700 * MiB;
    let sent = 0;
    const chunk = Buffer.alloc(MiB, "a");
    const api = await serve((_request, response) => {
      // Chunked (no Content-Length), as fast as the client reads.
      response.writeHead(200, { "content-type": "application/json" });
      const pump = () => {
        while (sent < total && !response.destroyed) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end();
      };
      pump();
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const started = Date.now();
    const data = new NapDataClient({ baseUrl: api.url });
    const error = (await data.vaults().catch((e: unknown) => e)) as NapResponseTooLargeError;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(error).to.be.instanceOf(NapResponseTooLargeError);
    expect(error.message).to.equal(
      "GET /v1/vaults: the answer is larger than 10485760 bytes (maxResponseBytes); reading stopped there",
    );
    expect(Date.now() - started).to.be.below(5_000);
    // What the server got out before the client hung up: the cap plus what the sockets' buffers hold.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent).to.be.below(64 * MiB);
    expect(peak - before).to.be.below(96 * MiB);
  });

  it("declared oversize: a Content-Length past maxResponseBytes is refused before its body is read; a smaller cap is settable", async function () {
    this.timeout(10_000);
    const body = JSON.stringify({ vaults: [], total: 0, pad: "x".repeat(2_000) });
    const api = await serve((request, response) => {
      if (request.url === "/v1/vaults") {
        json(response, 200, JSON.parse(body));
        return;
      }
      // Declares 700 MiB, sends a little, then holds the connection open.
      response.writeHead(200, { "content-type": "application/json", "content-length": String(700 * MiB) });
      response.write("{");
    });
    const small = new NapDataClient({ baseUrl: api.url, maxResponseBytes: 1_000 });
    const error = (await small.vaults().catch((e: unknown) => e)) as NapResponseTooLargeError;
    expect(error).to.be.instanceOf(NapResponseTooLargeError);
    expect(error.maxResponseBytes).to.equal(1_000);
    const roomy = new NapDataClient({ baseUrl: api.url, maxResponseBytes: 4_000 });
    expect(((await roomy.vaults()) as unknown as { total: number }).total).to.equal(0);

    const started = Date.now();
    const declared = (await new NapDataClient({ baseUrl: api.url })
      .protocolStats()
      .catch((e: unknown) => e)) as NapResponseTooLargeError;
    expect(declared).to.be.instanceOf(NapResponseTooLargeError);
    expect(declared.message).to.equal(
      "GET /v1/protocol/stats: the answer is larger than 10485760 bytes (maxResponseBytes); reading stopped there",
    );
    expect(Date.now() - started).to.be.below(1_000);
  });

  it("oversized subscription message: a 20 MiB graphql-ws message closes the socket at the message cap (1009) instead of being buffered", async function () {
    this.timeout(20_000);
    const http = await serve(() => undefined);
    const sockets = new WebSocketServer({ server: http.server, path: "/graphql" });
    let closeCode: number | undefined;
    const closed = new Promise<void>((resolve) => {
      sockets.on("connection", (socket) => {
        socket.on("close", (code) => {
          closeCode = code;
          resolve();
        });
        socket.on("message", (raw) => {
          const message = JSON.parse(raw.toString()) as { type: string; id?: string };
          if (message.type === "connection_init") socket.send(JSON.stringify({ type: "connection_ack" }));
          if (message.type === "subscribe") {
            const huge = "a".repeat(20 * MiB);
            socket.send(
              JSON.stringify({
                id: message.id,
                type: "next",
                payload: { data: { pad: huge }, extensions: { seq: 1 } },
              }),
            );
          }
        });
      });
    });
    let delivered = 0;
    const ended: string[] = [];
    const data = new NapDataClient({ baseUrl: http.url });
    const subscription = data.subscribe(
      "transactionCreated",
      { vaultAddress: null },
      { next: () => (delivered += 1), error: (error) => ended.push(error.message) },
      { maxReconnectAttempts: 0 },
    );
    await closed;
    await subscription.done;
    sockets.close();
    expect(closeCode).to.equal(1009);
    expect(delivered).to.equal(0);
    expect(ended).to.deep.equal(["gave up after 0 reconnect attempts: Max payload size exceeded"]);
  });

  describe("altered typed data: a service that prepares something else than what was asked gets nothing signed", function () {
    const owner = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    const attacker = "0x000000000000000000000000000000000000dEaD";
    const unlimited = ((1n << 256n) - 1n).toString();
    type Case = [
      attack: string,
      action: "deposit" | "redeem" | "claim",
      alter: (prepared: Prepared) => void,
      problems: (deadline: string) => string[],
      options?: { chainId?: number; router?: string; maxValiditySeconds?: number },
    ];
    const set = (target: object, field: string, value: unknown) => Object.assign(target, { [field]: value });
    const cases: Case[] = [
      [
        "changed receiver: the shares to the attacker",
        "deposit",
        (p) => set(p.intent.message, "receiver", attacker),
        () => [`intent.message.receiver is ${attacker}, asked ${owner.address}`],
      ],
      [
        "changed amount: more assets than asked",
        "deposit",
        (p) => set(p.intent.message, "assets", "26000000"),
        () => ["intent.message.assets is 26000000, asked 25000000"],
      ],
      [
        "changed owner: someone else's deposit signed by this wallet",
        "deposit",
        (p) => set(p.intent.message, "owner", attacker),
        () => [`intent.message.owner is ${attacker}, asked ${owner.address}`],
      ],
      [
        "changed vault: the deposit into another vault",
        "deposit",
        (p) => {
          p.vault = attacker;
          set(p.intent.message, "vault", attacker);
        },
        () => [`vault is ${attacker}, asked ${VAULT}`, `intent.message.vault is ${attacker}, asked ${VAULT}`],
      ],
      [
        "another chain: the message for a chain the wallet did not ask",
        "deposit",
        (p) => {
          p.chain_id = 1;
          p.intent.domain.chainId = 1;
        },
        () => [`chain_id is 1, asked ${CHAIN_ID}`, `intent.domain.chainId is 1, asked ${CHAIN_ID}`],
        { chainId: CHAIN_ID },
      ],
      [
        "another chain in the domain alone",
        "redeem",
        (p) => set(p.intent.domain, "chainId", 10),
        () => [`intent.domain.chainId is 10, asked ${CHAIN_ID}`],
      ],
      [
        "another router: a deployment the wallet does not trust",
        "deposit",
        (p) => {
          p.router = attacker;
          p.intent.domain.verifyingContract = attacker;
          set(p.permit!.message, "spender", attacker);
        },
        () => [
          `router is ${attacker}, asked ${ROUTER}`,
          `intent.domain.verifyingContract is ${attacker}, asked ${ROUTER}`,
          `permit.message.spender is ${attacker}, asked ${ROUTER}`,
        ],
        { router: ROUTER },
      ],
      [
        "permit to a stranger: the USDC allowance to the attacker",
        "deposit",
        (p) => set(p.permit!.message, "spender", attacker),
        () => [`permit.message.spender is ${attacker}, asked ${ROUTER}`],
      ],
      [
        "unlimited permit: more allowance than the deposit",
        "deposit",
        (p) => set(p.permit!.message, "value", unlimited),
        () => [`permit.message.value is ${unlimited}, asked 25000000`],
      ],
      [
        "operator to a stranger: the attacker made the wallet's operator on the vault",
        "redeem",
        (p) => set(p.operator_authorization!.message, "operator", attacker),
        () => [`operator_authorization.message.operator is ${attacker}, asked ${ROUTER}`],
      ],
      [
        "operator authorisation for another controller, on another vault, or revoking",
        "claim",
        (p) => {
          const authorization = p.operator_authorization!;
          set(authorization.message, "controller", attacker);
          set(authorization.message, "approved", false);
          authorization.domain.verifyingContract = attacker;
        },
        () => [
          `operator_authorization.domain.verifyingContract is ${attacker}, asked ${VAULT}`,
          `operator_authorization.message.controller is ${attacker}, asked ${owner.address}`,
          "operator_authorization.message.approved is false, asked true",
        ],
      ],
      [
        "swapped fields: the type's field order changed so that the signature means another message",
        "deposit",
        (p) => {
          const fields = p.intent.types.Deposit;
          [fields[0], fields[3]] = [fields[3], fields[0]];
        },
        () => [
          "intent.types are not Deposit's fields " +
            "(address owner,address vault,uint256 assets,address receiver,uint256 minShares,uint256 nonce,uint256 deadline)",
        ],
      ],
      [
        "another primary type: a redemption offered for signature as a deposit",
        "deposit",
        (p) => (p.intent.primaryType = "Redeem"),
        () => ["intent.primaryType is Redeem, asked Deposit"],
      ],
      [
        "extra field: a message that carries more than its type",
        "redeem",
        (p) => set(p.intent.message, "operator", attacker),
        () => ["intent.message has fields the type does not: operator"],
      ],
      [
        "far deadline: a message valid for a year",
        "redeem",
        (p) => {
          p.deadline = String(Math.floor(Date.now() / 1000) + 365 * 86400);
          set(p.intent.message, "deadline", p.deadline);
        },
        (deadline) => [`intent.message.deadline is ${deadline}, more than 3600 s from now`],
        { maxValiditySeconds: 3600 },
      ],
      [
        "salted domain: a domain field the router does not have",
        "redeem",
        (p) => set(p.intent.domain, "salt", `0x${"00".repeat(32)}`),
        () => [
          "intent.domain has fields chainId,name,salt,verifyingContract,version, not chainId,name,verifyingContract,version",
        ],
      ],
    ];

    for (const [attack, action, alter, problems, options] of cases) {
      it(`${attack}: refused with the difference named, nothing signed or submitted`, async function () {
        let deadline = "";
        const service = await fakeService({
          now: Math.floor(Date.now() / 1000),
          alter: (prepared) => {
            alter(prepared);
            deadline = String(prepared.intent.message.deadline);
          },
        });
        try {
          const data = new NapDataClient({ baseUrl: service.url, ...options });
          const call =
            action === "deposit"
              ? data.deposit({ vault: VAULT, amount: 25_000_000n }, owner)
              : data[action]({ vault: VAULT, shares: 10n }, owner);
          const error = (await call.catch((e: unknown) => e)) as NapTypedDataMismatchError;
          expect(error).to.be.instanceOf(NapTypedDataMismatchError);
          expect(error.problems).to.deep.equal(problems(deadline));
          const path = `/v1/vaults/${VAULT}/${action}`;
          expect(error.message).to.equal(
            `GET ${path}/typed-data: the service's typed data does not match the request; nothing was signed: ` +
              problems(deadline).join("; "),
          );
          expect(service.submitted()).to.deep.equal([]);
        } finally {
          await service.close();
        }
      });
    }
  });
});
