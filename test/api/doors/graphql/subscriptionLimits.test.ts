import { expect } from "chai";
import type { IncomingMessage } from "node:http";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { SOCKET_CLOSE } from "../../../../api/src/doors/graphql";
import { request, startTestApp, type TestApp } from "../../helpers/app";

/* eslint-disable @typescript-eslint/no-explicit-any */

const OPERATOR_KEY = "operator-key-subscription-limits";
const SUBSCRIPTION = `subscription { transactionCreated { hash } }`;

/**
 * Caps and rate limits of the GraphQL subscription sockets, with client IPs given through X-Forwarded-For (one
 * trusted proxy hop) and a fixed clock, so that the minute window of the rate limits cannot roll over mid-test.
 * Caps: 3 sockets per IP, 2 sockets per key, 2 open operations per IP, 3 per key; the Public tier's 60 requests a
 * minute.
 */
describe("GraphQL subscription sockets: caps and rate limits", function () {
  let api: TestApp;
  const clients: Client[] = [];
  const raw: WebSocket[] = [];
  const now = new Date("2026-11-22T12:00:10.000Z");

  before(async function () {
    api = await startTestApp({
      env: {
        RATE_LIMITS_DISABLED: "false",
        TRUSTED_PROXY_COUNT: "1",
        AGENT_API_KEYS: OPERATOR_KEY,
        GRAPHQL_WS_CONNECTIONS_PER_IP: "3",
        GRAPHQL_WS_CONNECTIONS_PER_KEY: "2",
        GRAPHQL_WS_SUBSCRIPTIONS_PER_IP: "2",
        GRAPHQL_WS_SUBSCRIPTIONS_PER_KEY: "3",
      },
      clock: () => now,
    });
  });

  afterEach(async function () {
    for (const client of clients.splice(0)) await client.dispose();
    for (const socket of raw.splice(0)) socket.terminate();
  });

  after(async function () {
    await api.close();
  });

  const wsUrl = () => api.url.replace("http", "ws") + "/graphql";

  /** A WebSocket class whose upgrade request says it comes from `ip` (through the trusted proxy). */
  const socketFrom = (ip: string) =>
    class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { "X-Forwarded-For": ip } });
      }
    };

  /** A graphql-ws client from `ip`, connected (acknowledged) or closed: answers how the connection went. */
  const connect = async (ip: string, key?: string) => {
    let closed: { code: number; reason: string } | undefined;
    const outcome = new Promise<"connected" | "closed">((resolve) => {
      const client = createClient({
        url: wsUrl(),
        webSocketImpl: socketFrom(ip),
        connectionParams: key ? { authorization: `Bearer ${key}` } : undefined,
        retryAttempts: 0,
        lazy: false,
        on: {
          connected: () => resolve("connected"),
          closed: (event: any) => {
            closed ??= { code: event.code, reason: event.reason };
            resolve("closed");
          },
        },
        onNonLazyError: () => undefined,
      });
      clients.push(client);
    });
    const result = await outcome;
    return { client: clients[clients.length - 1], result, closed: () => closed };
  };

  /** One operation on a socket: its first message (data or errors), or the error the server answered with. */
  const operate = (client: Client, query: string) =>
    new Promise<any>((resolve) => {
      const stop = client.subscribe(
        { query },
        {
          next: (message) => (stop(), resolve(message)),
          error: (errors) => resolve({ errors }),
          complete: () => undefined,
        },
      );
    });

  /**
   * Opens a subscription: answers the function that completes it, the errors it is refused with, and whether it was
   * refused so far (a subscription the server holds open says nothing until an event).
   */
  const subscribe = (client: Client) => {
    let complete: () => void = () => undefined;
    const state = { wasRefused: false };
    const refused = new Promise<any[]>((resolve) => {
      complete = client.subscribe(
        { query: SUBSCRIPTION },
        {
          next: () => undefined,
          error: (errors: any) => ((state.wasRefused = true), resolve(errors)),
          complete: () => undefined,
        },
      );
    });
    return { complete, refused, wasRefused: () => state.wasRefused };
  };

  const upgradeStatus = (ip: string) =>
    new Promise<{ status: number; body: any } | "open">((resolve, reject) => {
      const socket = new WebSocket(wsUrl(), "graphql-transport-ws", { headers: { "X-Forwarded-For": ip } });
      raw.push(socket);
      socket.once("open", () => resolve("open"));
      socket.once("unexpected-response", (_req, res: IncomingMessage) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      socket.once("error", (error) => {
        if (!/Unexpected server response/.test(error.message)) reject(error);
      });
    });

  const issueKey = async (ip: string) => {
    const issued = await request<any>(api.url, "POST", "/v1/auth/keys", {
      headers: { "X-API-Key": OPERATOR_KEY, "X-Forwarded-For": ip },
      body: { owner: "limits" },
    });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    return issued.body.key as string;
  };

  it("attack: one IP opens sockets past the cap: the upgrade is answered 429 RATE_LIMITED, other IPs are not hurt", async function () {
    for (let i = 0; i < 3; i++) expect(await upgradeStatus("203.0.113.1")).to.equal("open");
    expect(await upgradeStatus("203.0.113.1")).to.deep.equal({
      status: 429,
      body: {
        errors: [
          {
            message: "at most 3 subscription connections per IP address: close one first",
            extensions: { code: "RATE_LIMITED", limit: 3 },
          },
        ],
      },
    });
    expect(await upgradeStatus("203.0.113.2")).to.equal("open");

    // A closed socket gives its place back.
    const first = raw[0];
    await new Promise((resolve) => (first.once("close", resolve), first.close()));
    expect(await upgradeStatus("203.0.113.1")).to.equal("open");
  });

  it("attack: one IP opens subscriptions past the cap over several sockets: RATE_LIMITED until one completes", async function () {
    const ip = "203.0.113.10";
    const one = await connect(ip);
    const two = await connect(ip);
    expect([one.result, two.result]).to.deep.equal(["connected", "connected"]);
    const first = subscribe(one.client);
    const second = subscribe(one.client);
    // Messages of one socket are taken in order: these two hold both places when the next operation arrives.
    const probe = await operate(one.client, "{ __typename }");
    expect([first.wasRefused(), second.wasRefused()]).to.deep.equal([false, false]);
    expect(probe.errors).to.deep.equal([
      {
        message: "at most 2 open subscriptions per IP address: complete one before opening another",
        extensions: { code: "RATE_LIMITED", limit: 2 },
      },
    ]);
    const refused = await subscribe(two.client).refused;
    expect(refused.map((e) => e.extensions.code)).to.deep.equal(["RATE_LIMITED"]);

    first.complete();
    let answer: any;
    for (let attempt = 0; attempt < 20; attempt++) {
      answer = await operate(two.client, "{ __typename }");
      if (!answer.errors) break;
    }
    expect(answer).to.deep.equal({ data: { __typename: "Query" } });
  });

  it("attack: a guessed or malformed key on connection_init is closed 4401 UNAUTHENTICATED", async function () {
    for (const [key, reason] of [
      ["dk_guessed0000000000000000000000000000", "UNAUTHENTICATED: unknown API key"],
      ["not-a-key", "UNAUTHENTICATED: unknown API key"],
    ]) {
      const attempt = await connect("203.0.113.20", key);
      expect(attempt.result).to.equal("closed");
      expect(attempt.closed()).to.deep.equal({ code: SOCKET_CLOSE.UNAUTHENTICATED, reason });
    }
  });

  it("attack: one key opens connections and subscriptions past its caps from several IPs", async function () {
    const key = await issueKey("203.0.113.30");
    const a = await connect("203.0.113.31", key);
    const b = await connect("203.0.113.32", key);
    expect([a.result, b.result]).to.deep.equal(["connected", "connected"]);
    const third = await connect("203.0.113.33", key);
    expect(third.result).to.equal("closed");
    expect(third.closed()).to.deep.equal({
      code: SOCKET_CLOSE.RATE_LIMITED,
      reason: "RATE_LIMITED: at most 2 connections per API key",
    });
    // The same IP without the key is still served (on the Public tier).
    expect((await connect("203.0.113.33")).result).to.equal("connected");

    // Subscriptions count against the key, whichever socket and IP they come from: 3 at most.
    const held = [subscribe(a.client), subscribe(a.client), subscribe(b.client)];
    let refused: any;
    for (let attempt = 0; attempt < 20 && !refused; attempt++) {
      const probe = await operate(a.client, "{ __typename }");
      if (probe.errors) refused = probe.errors;
    }
    expect(held.map((subscription) => subscription.wasRefused())).to.deep.equal([false, false, false]);
    expect(refused).to.deep.equal([
      {
        message: "at most 3 open subscriptions per API key: complete one before opening another",
        extensions: { code: "RATE_LIMITED", limit: 3 },
      },
    ]);
  });

  it("attack: one IP opens and completes operations in a loop: each is a request, the 61st in the minute is RATE_LIMITED", async function () {
    const ip = "203.0.113.40";
    const socket = await connect(ip);
    for (let i = 0; i < 60; i++) {
      const answer = await operate(socket.client, "{ __typename }");
      expect(answer, `operation ${i + 1}`).to.deep.equal({ data: { __typename: "Query" } });
    }
    const refused = await subscribe(socket.client).refused;
    const reset = Math.floor(now.getTime() / 60_000 + 1) * 60;
    expect(refused).to.deep.equal([
      {
        message: "rate limit exceeded: 60 requests per minute on the public tier; retry in 50 s",
        extensions: { code: "RATE_LIMITED", tier: "public", window: "minute", limit: 60, reset, retryAfter: 50 },
      },
    ]);
    // The same budget as the HTTP doors: this IP's next /v1 request is refused too.
    const http = await request(api.url, "GET", "/v1/status", { headers: { "X-Forwarded-For": ip } });
    expect(http.status).to.equal(429);
  });

  it("attack: one IP posts to /graphql instead of /v1/graphql to get past the rate limits: one budget, GraphQL's error shape", async function () {
    const ip = "203.0.113.50";
    const post = (path: string) =>
      request<any>(api.url, "POST", path, {
        body: { query: "{ __typename }" },
        headers: { "X-Forwarded-For": ip, accept: "application/graphql-response+json" },
      });
    for (let i = 0; i < 30; i++) {
      expect((await post("/graphql")).status).to.equal(200);
      expect((await post("/v1/graphql")).status).to.equal(200);
    }
    for (const path of ["/graphql", "/v1/graphql"]) {
      const refused = await post(path);
      expect(refused.status, path).to.equal(429);
      expect(refused.body).to.deep.equal({
        errors: [
          {
            message: "rate limit exceeded: 60 requests per minute on the public tier; retry in 50 s",
            extensions: {
              code: "RATE_LIMITED",
              tier: "public",
              window: "minute",
              limit: 60,
              reset: Math.floor(now.getTime() / 60_000 + 1) * 60,
            },
          },
        ],
      });
      expect(refused.headers.get("retry-after")).to.equal("50");
      expect(refused.headers.get("content-type")).to.equal("application/graphql-response+json; charset=utf-8");
    }
  });
});
