import { expect } from "chai";
import fc from "fast-check";
import { getAddress } from "ethers";
import type { Deployment } from "../../../../api/src/chain/deployment";
import type { EventLogEntry } from "../../../../api/src/readmodel/records";
import { request, registerAgent, startTestApp, type TestApp } from "../../helpers/app";
import { deployTestSystem } from "../../helpers/system";
import { UpgradeRefused, WsTestClient } from "../../helpers/wsClient";
import { indexUntilCaughtUp } from "../../indexer/helpers";
import { client, startE2eApp, type E2eSystem } from "../../../e2e/helpers";

/* eslint-disable @typescript-eslint/no-explicit-any */

const UNKNOWN_VAULT = "0x000000000000000000000000000000000000dEaD";
const STRANGER = "0x1111111111111111111111111111111111111111";
/** A fixed instant (mid-minute) for the limits instance, so that no window ends during its tests. */
const LIMITS_NOW = new Date("2026-11-22T12:00:30Z");

/**
 * The data API's WebSocket channel /ws on the deployed system: deposits made through the live API (an agent's server
 * wallet), indexed, and pushed to subscribers; the protocol's errors; resume from a sequence number; idle close; caps
 * per IP and per key; rate limits shared with REST. A second instance over the same store (a reader: no indexer) runs
 * with small caps, a short idle timeout, a fixed clock and rate limits on.
 */
describe("data API WebSocket channel /ws", function () {
  this.timeout(240_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let api: TestApp;
  let limited: TestApp;
  let agent: ReturnType<typeof client>;
  let agentAddress: string;
  let dataKey: string;
  let vaultsOnlyKey: string;
  const sockets: WsTestClient[] = [];

  const moderate = () => deployment.vaults.moderate!.address;
  const conservative = () => deployment.vaults.conservative!.address;
  const connect = async (app: TestApp = api, ip?: string) => {
    const socket = await WsTestClient.connect(app.url, { ip });
    sockets.push(socket);
    return socket;
  };
  const issueKey = async (scopes?: string[]) => {
    const issued = await agent("POST", "/v1/auth/keys", { name: "ws", ...(scopes && { scopes }) });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    return issued.body as { key: string; key_id: string };
  };
  /** A deposit by the agent through the live API, then indexed. */
  const depositThroughApi = async (vaultId: "moderate" | "conservative", amountUsdc: number) => {
    const response = await agent("POST", "/api/v1/agent/vault/deposit", {
      vault_id: vaultId,
      amount_usdc: amountUsdc,
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    await indexUntilCaughtUp(api.app.indexer!);
    return response.body as { deposit_tx: string; block_number: number };
  };
  const log = async (afterSeq = 0): Promise<EventLogEntry[]> => system.store.readModel.eventLog(afterSeq, 100_000);

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("ws", deployment, { STRATEGY_SCREENING: "off" });
    api = system.app;
    const registered = await registerAgent(api.url, undefined, { agent_name: "ws-agent" });
    agent = client(api.url, registered.apiKey);
    expect((await agent("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    agentAddress = (await agent<any>("GET", "/api/v1/agent/wallet")).body.agent_address;
    await depositThroughApi("moderate", 10);
    dataKey = (await issueKey()).key;
    vaultsOnlyKey = (await issueKey(["vaults:read"])).key;
    limited = await startTestApp({
      store: system.store,
      deployment,
      clock: () => LIMITS_NOW,
      env: {
        INDEXER_ENABLED: "false",
        RATE_LIMITS_DISABLED: "false",
        TRUSTED_PROXY_COUNT: "1",
        WS_MAX_CONNECTIONS_PER_IP: "3",
        WS_MAX_CONNECTIONS_PER_KEY: "2",
        WS_MAX_SUBSCRIPTIONS: "3",
      },
    });
  });

  afterEach(function () {
    for (const socket of sockets.splice(0)) socket.close();
  });

  after(async function () {
    await limited?.close();
    await system?.close();
  });

  describe("protocol", function () {
    it("greets with its timeouts and limits, and answers ping with pong", async function () {
      const socket = await connect();
      expect(socket.welcome).to.deep.equal({
        type: "welcome",
        tier: "public",
        idleTimeoutSeconds: 90,
        pingIntervalSeconds: 30,
        maxSubscriptions: 50,
      });
      expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
      expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
    });

    it("auth: a data key authenticates the connection; bad keys, a live API key and a second auth are errors", async function () {
      const socket = await connect();
      expect(await socket.request({ type: "auth", token: "napd-" + "x".repeat(32) })).to.deep.equal({
        type: "error",
        code: "UNAUTHORIZED",
        message: "unknown API key",
        field: "token",
      });
      const live = await socket.request({ type: "auth", token: "nap-" + "A".repeat(32) });
      expect(live.code).to.equal("UNAUTHORIZED");
      expect(live.message).to.match(/^this is a live API agent key/);
      const ok = await socket.request({ type: "auth", token: dataKey });
      const info = (await agent<any>("GET", "/v1/auth/keys")).body.keys.find((k: any) => k.scopes.length === 3);
      expect(ok).to.deep.equal({
        type: "authenticated",
        tier: "authenticated",
        keyId: info.key_id,
        scopes: ["vaults:read", "users:read", "nodes:read"],
        expiresAt: info.expires_at,
      });
      expect(await socket.request({ type: "auth", token: dataKey })).to.deep.equal({
        type: "error",
        code: "ALREADY_AUTHENTICATED",
        message: "this connection is authenticated already: reconnect to use another key",
      });
    });

    it("every malformed message is an error that names its field, and the connection goes on", async function () {
      const socket = await connect();
      const last = (await log()).at(-1)!.seq;
      const cases: Array<[unknown, string, string | undefined, string?]> = [
        ["{not json", "INVALID_BODY", undefined],
        ["[1,2]", "INVALID_BODY", undefined],
        [{}, "INVALID_TYPE", "type"],
        [{ type: "hello" }, "INVALID_TYPE", "type"],
        [{ type: "subscribe", id: "a", channel: "blocks" }, "INVALID_CHANNEL", "channel", "a"],
        [{ type: "subscribe", channel: "vault" }, "INVALID_ADDRESS", "vault"],
        [{ type: "subscribe", channel: "vault", vault: "0x1234" }, "INVALID_ADDRESS", "vault"],
        [{ type: "subscribe", channel: "vault", vault: 42 }, "INVALID_ADDRESS", "vault"],
        [{ type: "subscribe", id: "b", channel: "vault", vault: UNKNOWN_VAULT }, "VAULT_NOT_FOUND", "vault", "b"],
        [{ type: "subscribe", channel: "transactions", user: "bob" }, "INVALID_ADDRESS", "user"],
        [{ type: "subscribe", channel: "transactions", vault: UNKNOWN_VAULT }, "VAULT_NOT_FOUND", "vault"],
        [{ type: "subscribe", channel: "vault", vault: moderate(), afterSeq: -1 }, "INVALID_AFTER_SEQ", "afterSeq"],
        [{ type: "subscribe", channel: "vault", vault: moderate(), afterSeq: 1.5 }, "INVALID_AFTER_SEQ", "afterSeq"],
        [{ type: "subscribe", channel: "vault", vault: moderate(), afterSeq: "7" }, "INVALID_AFTER_SEQ", "afterSeq"],
        [
          { type: "subscribe", channel: "vault", vault: moderate(), afterSeq: last + 1 },
          "INVALID_AFTER_SEQ",
          "afterSeq",
        ],
        [{ type: "subscribe", channel: "vault", vault: moderate(), id: "no spaces" }, "INVALID_ID", "id"],
        [{ type: "subscribe", channel: "vault", vault: moderate(), since: 3 }, "UNKNOWN_PARAMETER", "since"],
        [{ type: "unsubscribe", id: "never" }, "SUBSCRIPTION_NOT_FOUND", "id", "never"],
        [{ type: "unsubscribe" }, "INVALID_ID", "id"],
        [{ type: "auth" }, "INVALID_TOKEN", "token"],
        [{ type: "auth", token: "" }, "INVALID_TOKEN", "token"],
        [{ type: "ping", extra: true }, "UNKNOWN_PARAMETER", "extra"],
      ];
      for (const [message, code, field, id] of cases) {
        const answer = await socket.request(message);
        const label = JSON.stringify(message);
        expect(answer.type, label).to.equal("error");
        expect(answer.code, label).to.equal(code);
        expect(answer.field, label).to.equal(field);
        expect(answer.id, label).to.equal(id);
        if (field) expect(answer.message, label).to.match(new RegExp(`^${field}: `));
      }
      const past = await socket.request({ type: "subscribe", channel: "vault", vault: moderate(), afterSeq: last + 1 });
      expect(past.message).to.equal(`afterSeq: ${last + 1} is past the newest log entry (${last})`);
      expect(past.seq).to.equal(last);
      socket.socket.send(Buffer.from([1, 2, 3]), { binary: true });
      expect((await socket.next()).code).to.equal("INVALID_BODY");
      const used = await socket.request({ type: "subscribe", id: "v", channel: "vault", vault: moderate() });
      expect(used.type).to.equal("subscribed");
      const twice = await socket.request({ type: "subscribe", id: "v", channel: "vault", vault: conservative() });
      expect([twice.code, twice.field, twice.id]).to.deep.equal(["INVALID_ID", "id", "v"]);
      expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
    });

    it("subscribe answers the subscription's id (given or assigned) and its parameters; unsubscribe frees it", async function () {
      const socket = await connect();
      expect(
        await socket.request({ type: "subscribe", channel: "vault", vault: moderate().toLowerCase() }),
      ).to.deep.equal({ type: "subscribed", id: "1", channel: "vault", vault: moderate() });
      expect(
        await socket.request({ type: "subscribe", id: "mine", channel: "transactions", vault: conservative() }),
      ).to.deep.equal({ type: "subscribed", id: "mine", channel: "transactions", vault: conservative() });
      expect(await socket.request({ type: "subscribe", channel: "transactions" })).to.deep.equal({
        type: "subscribed",
        id: "2",
        channel: "transactions",
      });
      expect(await socket.request({ type: "unsubscribe", id: "mine" })).to.deep.equal({
        type: "unsubscribed",
        id: "mine",
      });
      expect((await socket.request({ type: "unsubscribe", id: "mine" })).code).to.equal("SUBSCRIPTION_NOT_FOUND");
      expect((await socket.request({ type: "subscribe", id: "mine", channel: "transactions" })).type).to.equal(
        "subscribed",
      );
    });

    it("a client message larger than 4 KiB closes the socket with 1009", async function () {
      const socket = await connect();
      socket.send({ type: "auth", token: "x".repeat(5_000) });
      expect((await socket.closed).code).to.equal(1009);
    });

    it("a WebSocket upgrade on any other path is refused with 404", async function () {
      let refusal: unknown;
      try {
        await WsTestClient.connect(api.url, { path: "/nope" });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).to.be.instanceOf(UpgradeRefused);
      expect((refusal as UpgradeRefused).status).to.equal(404);
      expect((refusal as UpgradeRefused).body.error.code).to.equal("NOT_FOUND");
    });
  });

  describe("delivery", function () {
    it("a deposit made through the live API reaches the vault and transactions channels, filtered by vault and by user, equal to REST", async function () {
      const socket = await connect();
      await socket.request({ type: "auth", token: dataKey });
      const subscribe = async (message: Record<string, unknown>) => {
        const answer = await socket.request({ type: "subscribe", ...message });
        expect(answer.type, JSON.stringify(answer)).to.equal("subscribed");
      };
      await subscribe({ id: "vault", channel: "vault", vault: moderate() });
      await subscribe({ id: "all", channel: "transactions" });
      await subscribe({ id: "byVault", channel: "transactions", vault: moderate() });
      await subscribe({ id: "byUser", channel: "transactions", user: agentAddress });
      await subscribe({ id: "both", channel: "transactions", vault: moderate(), user: agentAddress });
      await subscribe({ id: "otherVault", channel: "transactions", vault: conservative() });
      await subscribe({ id: "otherUser", channel: "transactions", user: STRANGER });

      const before = (await log()).at(-1)!.seq;
      const deposit = await depositThroughApi("moderate", 12.5);
      const entries = (await log(before)).filter((e) => e.event.transactionHash === deposit.deposit_tx);
      const depositEntry = entries.find((e) => e.event.name === "Deposit")!;
      const vaultEntries = entries.filter((e) => e.event.address === moderate().toLowerCase());

      const detail = (await request<any>(api.url, "GET", `/v1/vaults/${moderate()}`)).body;
      const updates = await socket.messagesOf("vault", vaultEntries.length);
      expect(updates.map((m) => m.seq)).to.deep.equal(vaultEntries.map((e) => e.seq));
      for (const update of updates) {
        expect(update.type).to.equal("vault");
        expect(update.vault).to.deep.equal(detail);
      }
      expect(updates.find((m) => m.seq === depositEntry.seq).event).to.deep.equal({
        name: "Deposit",
        action: "added",
        block: deposit.block_number,
        transactionHash: deposit.deposit_tx,
        logIndex: depositEntry.event.logIndex,
      });

      const rest = (await request<any>(api.url, "GET", `/v1/users/${agentAddress}/transactions?limit=1`)).body;
      const expected = rest.transactions[0];
      expect(expected).to.include({ hash: deposit.deposit_tx, type: "DEPOSIT", amount: "12500000" });
      expect(expected.user).to.equal(getAddress(agentAddress));
      for (const id of ["all", "byVault", "byUser", "both"]) {
        const [message] = await socket.messagesOf(id, 1);
        expect(message, id).to.deep.equal({ type: "transaction", id, seq: depositEntry.seq, transaction: expected });
      }

      // The other filters heard nothing of it: their first message is the next deposit into the other vault.
      const other = await depositThroughApi("conservative", 3);
      const [next] = await socket.messagesOf("otherVault", 1);
      expect(next.transaction.hash).to.equal(other.deposit_tx);
      expect(socket.received.filter((m) => m.id === "otherUser" && m.type !== "subscribed")).to.deep.equal([]);
    });

    it("unsubscribe stops delivery at once", async function () {
      const socket = await connect();
      await socket.request({ type: "subscribe", id: "gone", channel: "transactions" });
      expect(await socket.request({ type: "unsubscribe", id: "gone" })).to.deep.equal({
        type: "unsubscribed",
        id: "gone",
      });
      await socket.request({ type: "subscribe", id: "fence", channel: "transactions" });
      const deposit = await depositThroughApi("moderate", 1);
      const [fence] = await socket.messagesOf("fence", 1);
      expect(fence.transaction.hash).to.equal(deposit.deposit_tx);
      expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
      expect(socket.received.filter((m) => m.id === "gone" && m.type !== "subscribed" && m.type !== "unsubscribed")).to
        .be.empty;
    });

    it("resume: a client that reconnects with afterSeq gets what it missed, in order, each once, then live entries", async function () {
      const first = await connect();
      await first.request({ type: "subscribe", id: "t", channel: "transactions", vault: moderate() });
      await depositThroughApi("moderate", 2);
      const [seen] = await first.messagesOf("t", 1);
      first.close();
      await first.closed;

      // Made while the client was away.
      const missedDeposits = [await depositThroughApi("moderate", 3), await depositThroughApi("moderate", 4)];
      const second = await connect();
      expect(
        await second.request({
          type: "subscribe",
          id: "t",
          channel: "transactions",
          vault: moderate(),
          afterSeq: seen.seq,
        }),
      ).to.deep.equal({ type: "subscribed", id: "t", channel: "transactions", vault: moderate(), afterSeq: seen.seq });
      const replayed = await second.messagesOf("t", 2);
      expect(replayed.map((m) => m.transaction.hash)).to.deep.equal(missedDeposits.map((d) => d.deposit_tx));
      const live = await depositThroughApi("moderate", 5);
      const [after] = await second.messagesOf("t", 1);
      expect(after.transaction.hash).to.equal(live.deposit_tx);

      const expectedSeqs = (await log(seen.seq))
        .filter((e) => e.event.name === "Deposit" && e.event.address === moderate().toLowerCase())
        .map((e) => e.seq);
      expect([...replayed, after].map((m) => m.seq)).to.deep.equal(expectedSeqs);
      expect(await second.request({ type: "ping" })).to.deep.equal({ type: "pong" });
      expect(second.unread()).to.deep.equal([]);
    });

    it("property: any mix of resumed vault subscriptions and unsubscribes delivers exactly the log's entries of each vault after its afterSeq", async function () {
      const entries = await log();
      const lastSeq = entries.at(-1)!.seq;
      const vaults = Object.values(deployment.vaults).map((v) => v!.address);
      const command = fc.oneof(
        fc.record({
          kind: fc.constant("subscribe" as const),
          vault: fc.constantFrom(...vaults),
          afterSeq: fc.integer({ min: Math.max(0, lastSeq - 2_000), max: lastSeq }),
        }),
        fc.record({ kind: fc.constant("unsubscribe" as const), pick: fc.nat() }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 5 }), async (commands) => {
          const socket = await connect();
          const open = new Map<string, { vault: string; afterSeq: number }>();
          let next = 0;
          for (const step of commands) {
            if (step.kind === "subscribe") {
              const id = `s${next++}`;
              const answer = await socket.request({
                type: "subscribe",
                id,
                channel: "vault",
                ...step,
                kind: undefined,
              });
              expect(answer).to.deep.equal({
                type: "subscribed",
                id,
                channel: "vault",
                vault: step.vault,
                afterSeq: step.afterSeq,
              });
              const expected = entries
                .filter((e) => e.seq > step.afterSeq && e.event.address === step.vault.toLowerCase())
                .map((e) => e.seq);
              const messages = await socket.messagesOf(id, expected.length);
              expect(messages.map((m) => m.seq)).to.deep.equal(expected);
              open.set(id, step);
            } else if (open.size > 0) {
              const id = [...open.keys()][step.pick % open.size];
              // Messages of other subscriptions may be in flight; the answer is the next one about this id.
              socket.send({ type: "unsubscribe", id });
              expect(await socket.next((m) => m.type === "unsubscribed")).to.deep.equal({ type: "unsubscribed", id });
              open.delete(id);
            }
          }
          expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
          // Nothing beyond what the log holds: no duplicates, nothing for a vault not asked for.
          expect(socket.unread()).to.deep.equal([]);
          socket.close();
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 8) },
      );
    });
  });

  describe("auth, limits and timeouts", function () {
    it("attack: subscribing to another user's transactions without auth is refused; a key without users:read too", async function () {
      const anonymous = await connect();
      const refused = await anonymous.request({
        type: "subscribe",
        id: "spy",
        channel: "transactions",
        user: agentAddress,
      });
      expect(refused).to.deep.equal({
        type: "error",
        code: "UNAUTHORIZED",
        message:
          'a user\'s transactions are pushed to authenticated connections only: send { type: "auth", token } first',
        field: "user",
        id: "spy",
      });
      const scoped = await connect();
      await scoped.request({ type: "auth", token: vaultsOnlyKey });
      const insufficient = await scoped.request({
        type: "subscribe",
        id: "spy",
        channel: "transactions",
        user: agentAddress,
      });
      expect(insufficient.code).to.equal("INSUFFICIENT_SCOPE");
      expect(insufficient.message).to.match(/lacks the scope users:read/);
      // The same key may follow vaults.
      expect((await scoped.request({ type: "subscribe", channel: "transactions", vault: moderate() })).type).to.equal(
        "subscribed",
      );
      // Nothing was delivered to the refused subscriptions.
      const deposit = await depositThroughApi("moderate", 1);
      expect((await scoped.messagesOf("1", 1))[0].transaction.hash).to.equal(deposit.deposit_tx);
      expect([...anonymous.received, ...scoped.received].filter((m) => m.id === "spy" && m.type !== "error")).to.be
        .empty;
    });

    it("a revoked key's connection is refused at its next subscribe and closed with 4401", async function () {
      const { key, key_id } = await issueKey();
      const socket = await connect();
      expect((await socket.request({ type: "auth", token: key })).type).to.equal("authenticated");
      expect((await agent("DELETE", `/v1/auth/keys/${key_id}`)).status).to.equal(200);
      socket.send({ type: "subscribe", channel: "vault", vault: moderate() });
      const rejected = await socket.next();
      expect(rejected.code).to.equal("UNAUTHORIZED");
      expect(rejected.message).to.match(/^API key revoked at /);
      expect(await socket.closed).to.deep.equal({ code: 4401, reason: "the key was revoked or expired" });
    });

    it("idle timeout: a silent connection is closed with 4408, one that pings stays open", async function () {
      const quick = await startTestApp({
        store: system.store,
        deployment,
        env: { INDEXER_ENABLED: "false", WS_IDLE_TIMEOUT_MS: "1000", WS_HEARTBEAT_MS: "200" },
      });
      try {
        const silent = await connect(quick);
        const pinging = await connect(quick);
        expect(silent.welcome.idleTimeoutSeconds).to.equal(1);
        let closed = false;
        void silent.closed.then(() => (closed = true));
        while (!closed) {
          expect(await pinging.request({ type: "ping" })).to.deep.equal({ type: "pong" });
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(await silent.closed).to.deep.equal({ code: 4408, reason: "no message for 1 s" });
        expect(await pinging.request({ type: "ping" })).to.deep.equal({ type: "pong" });
      } finally {
        await quick.close();
      }
    });

    it("attack: one IP opens connections past the cap: refused with 429 before the handshake, others unaffected", async function () {
      const ip = "10.2.0.1";
      const open = [await connect(limited, ip), await connect(limited, ip), await connect(limited, ip)];
      let refusal: unknown;
      try {
        await WsTestClient.connect(limited.url, { ip });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).to.be.instanceOf(UpgradeRefused);
      expect((refusal as UpgradeRefused).status).to.equal(429);
      expect((refusal as UpgradeRefused).body.error.code).to.equal("CONNECTION_LIMIT_REACHED");
      // Another address connects as usual.
      expect((await connect(limited, "10.2.0.2")).welcome.type).to.equal("welcome");
      // Authenticating does not free the address's place: the connection still counts against it.
      expect((await open[0].request({ type: "auth", token: dataKey })).type).to.equal("authenticated");
      expect(await WsTestClient.connect(limited.url, { ip }).catch((error: unknown) => error)).to.be.instanceOf(
        UpgradeRefused,
      );
      // Closing one frees its place.
      open[1].close();
      await open[1].closed;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await connect(limited, ip)).welcome.type).to.equal("welcome");
    });

    it("attack: keys multiply the per-IP socket budget: every socket of the IP counts, with a key or without, and the refusal names the cap", async function () {
      const ip = "10.7.0.1";
      const open = [await connect(limited, ip), await connect(limited, ip), await connect(limited, ip)];
      for (const [socket, token] of [
        [open[0], dataKey],
        [open[1], dataKey],
        [open[2], vaultsOnlyKey],
      ] as const) {
        expect((await socket.request({ type: "auth", token })).type).to.equal("authenticated");
      }
      const refusal = await WsTestClient.connect(limited.url, { ip }).catch((error: unknown) => error);
      expect(refusal).to.be.instanceOf(UpgradeRefused);
      expect((refusal as UpgradeRefused).status).to.equal(429);
      expect((refusal as UpgradeRefused).body).to.deep.equal({
        error: {
          code: "CONNECTION_LIMIT_REACHED",
          message:
            "3 connections from 10.7.0.1 are open, the most one address may hold (with a key or without): close one first",
          details: { limit: 3 },
        },
      });
      // The open ones are unharmed.
      for (const socket of open) expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
    });

    it("attack: a flood of 4 KB messages on one socket is closed with 1008 past the burst, with RSS bounded and the server unharmed", async function () {
      const socket = await connect();
      // A valid ping padded to 4 KB with JSON whitespace: the largest message a client may send, of the cheapest kind.
      const padded = JSON.stringify({ type: "ping" }) + " ".repeat(4_096 - 15);
      const rssBefore = process.memoryUsage().rss;
      const started = Date.now();
      let sent = 0;
      while (sent < 200_000 && socket.socket.readyState === socket.socket.OPEN) {
        for (let i = 0; i < 500; i++, sent++) socket.socket.send(padded);
        // The client's own buffer drains before the next batch, so that only the server's memory is measured.
        while (socket.socket.bufferedAmount > 0 && socket.socket.readyState === socket.socket.OPEN) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
      const closed = await socket.closed;
      const rssGrowth = process.memoryUsage().rss - rssBefore;
      expect(closed).to.deep.equal({ code: 1008, reason: "message rate exceeded" });
      expect(socket.received.filter((m) => m.type === "pong").length).to.be.at.most(100);
      expect(socket.received.at(-1)).to.deep.include({ type: "error", code: "RATE_LIMITED" });
      expect(Date.now() - started).to.be.below(5_000);
      expect(rssGrowth, `RSS grew ${rssGrowth} bytes after ${sent} messages`).to.be.below(64 * 1024 * 1024);
      const next = await connect();
      expect(await next.request({ type: "ping" })).to.deep.equal({ type: "pong" });
    });

    it("attack: pings and unknown unsubscribes count toward the message rate: past the burst, RATE_LIMITED and close 1008", async function () {
      const socket = await connect();
      for (let i = 0; i < 60; i++) socket.send({ type: "ping" });
      for (let i = 0; i < 60; i++) socket.send({ type: "unsubscribe", id: `never${i}` });
      expect(await socket.closed).to.deep.equal({ code: 1008, reason: "message rate exceeded" });
      const answered = socket.received.filter((m) => m.type === "pong" || m.code === "SUBSCRIPTION_NOT_FOUND");
      expect(answered.length).to.be.at.most(100);
      expect(socket.received.at(-1)).to.deep.equal({
        type: "error",
        code: "RATE_LIMITED",
        message:
          "more than 100 messages at once or 10 a second on one connection: it is closed; reconnect and send fewer",
        retryAfterSeconds: 1,
      });
    });

    it("a revoked key's socket is closed within the key check (WS_HEARTBEAT_MS when shorter than 10 s) with its stream stopped, and the key opens nothing new", async function () {
      const quick = await startTestApp({
        store: system.store,
        deployment,
        env: { INDEXER_ENABLED: "false", WS_HEARTBEAT_MS: "200" },
      });
      try {
        const { key, key_id } = await issueKey();
        const socket = await connect(quick);
        expect((await socket.request({ type: "auth", token: key })).type).to.equal("authenticated");
        expect(
          (await socket.request({ type: "subscribe", id: "mine", channel: "transactions", user: agentAddress })).type,
        ).to.equal("subscribed");
        const revokedAt = Date.now();
        expect((await agent("DELETE", `/v1/auth/keys/${key_id}`)).status).to.equal(200);
        expect(await socket.closed).to.deep.equal({ code: 4401, reason: "the key was revoked or expired" });
        // Two heartbeats at most: the one under way may have checked the key just before the revocation.
        expect(Date.now() - revokedAt).to.be.below(2 * 200 + 300);
        expect(socket.received.at(-1).code).to.equal("UNAUTHORIZED");
        expect(socket.received.at(-1).message).to.match(/^API key revoked at /);

        const again = await connect(quick);
        const refused = await again.request({ type: "auth", token: key });
        expect([refused.code, refused.field]).to.deep.equal(["UNAUTHORIZED", "token"]);
        expect(refused.message).to.match(/^API key revoked at /);
        expect((await again.request({ type: "subscribe", channel: "transactions", user: agentAddress })).code).to.equal(
          "UNAUTHORIZED",
        );
      } finally {
        await quick.close();
      }
    });

    it("per-key cap: a key's connection past its cap gets CONNECTION_LIMIT_REACHED and close 4429", async function () {
      const { key } = await issueKey();
      const [a, b, c] = [
        await connect(limited, "10.3.0.1"),
        await connect(limited, "10.3.0.2"),
        await connect(limited, "10.3.0.3"),
      ];
      expect((await a.request({ type: "auth", token: key })).type).to.equal("authenticated");
      expect((await b.request({ type: "auth", token: key })).type).to.equal("authenticated");
      expect(await c.request({ type: "auth", token: key })).to.deep.equal({
        type: "error",
        code: "CONNECTION_LIMIT_REACHED",
        message: "this key already holds 2 connections on this server: close one first",
      });
      expect(await c.closed).to.deep.equal({ code: 4429, reason: "connection limit of the key reached" });
    });

    it("per-connection cap on subscriptions: SUBSCRIPTION_LIMIT_REACHED until one is unsubscribed", async function () {
      const socket = await connect(limited, "10.4.0.1");
      for (let i = 0; i < 3; i++) {
        expect((await socket.request({ type: "subscribe", channel: "vault", vault: moderate() })).type).to.equal(
          "subscribed",
        );
      }
      expect(await socket.request({ type: "subscribe", id: "x", channel: "vault", vault: moderate() })).to.deep.equal({
        type: "error",
        code: "SUBSCRIPTION_LIMIT_REACHED",
        message: "at most 3 subscriptions per connection: unsubscribe one first",
        id: "x",
      });
      await socket.request({ type: "unsubscribe", id: "2" });
      expect((await socket.request({ type: "subscribe", id: "x", channel: "vault", vault: moderate() })).type).to.equal(
        "subscribed",
      );
    });

    it("a subscribe counts as one request on the caller's budget, shared with REST; past it RATE_LIMITED with retryAfterSeconds", async function () {
      const ip = "10.5.0.1";
      const socket = await connect(limited, ip);
      for (let i = 0; i < 30; i++) {
        const rest = await request(limited.url, "GET", "/v1/vaults", { headers: { "X-Forwarded-For": ip } });
        expect(rest.status).to.equal(200);
        expect(
          (await socket.request({ type: "subscribe", id: "s", channel: "vault", vault: moderate() })).type,
        ).to.equal("subscribed");
        // Unsubscribing is free.
        expect((await socket.request({ type: "unsubscribe", id: "s" })).type).to.equal("unsubscribed");
      }
      expect(await socket.request({ type: "ping" })).to.deep.equal({ type: "pong" });
      const refused = await socket.request({ type: "subscribe", id: "s", channel: "vault", vault: moderate() });
      expect(refused).to.deep.equal({
        type: "error",
        code: "RATE_LIMITED",
        message: "rate limit exceeded: 60 requests per minute on the public tier; retry in 30 s",
        retryAfterSeconds: 30,
      });
      const rest = await request(limited.url, "GET", "/v1/vaults", { headers: { "X-Forwarded-For": ip } });
      expect(rest.status).to.equal(429);
      // An authenticated connection counts on its key instead.
      expect((await socket.request({ type: "auth", token: dataKey })).type).to.equal("authenticated");
      expect((await socket.request({ type: "subscribe", id: "s", channel: "vault", vault: moderate() })).type).to.equal(
        "subscribed",
      );
    });

    it("attack: guessing keys over the socket is counted on the IP's public budget", async function () {
      const socket = await connect(limited, "10.6.0.1");
      for (let i = 0; i < 60; i++) {
        const answer = await socket.request({ type: "auth", token: `napd-${String(i).padStart(32, "0")}` });
        expect(answer.code).to.equal("UNAUTHORIZED");
      }
      expect(await socket.request({ type: "auth", token: "napd-" + "9".repeat(32) })).to.deep.equal({
        type: "error",
        code: "RATE_LIMITED",
        message: "rate limit exceeded: 60 requests per minute on the public tier; retry in 30 s",
        retryAfterSeconds: 30,
      });
      // REST from that address is refused as well; a real key still authenticates (it counts on its own budget).
      const rest = await request(limited.url, "GET", "/v1/vaults", { headers: { "X-Forwarded-For": "10.6.0.1" } });
      expect(rest.status).to.equal(429);
      expect((await socket.request({ type: "auth", token: dataKey })).type).to.equal("authenticated");
    });
  });
});
