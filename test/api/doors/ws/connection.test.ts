import { expect } from "chai";
import { EventEmitter } from "node:events";
import { loadConfig } from "../../../../api/src/config";
import type { DataKeyRecord, DataKeyService } from "../../../../api/src/doors/data/access";
import { AuthenticationError } from "../../../../api/src/errors";
import { SocketCaps } from "../../../../api/src/doors/sockets/caps";
import { Connection, type WsSocket } from "../../../../api/src/doors/ws/connection";
import { createLogger } from "../../../../api/src/logger";
import { EventFeed } from "../../../../api/src/readmodel/feed";
import { DataQueries } from "../../../../api/src/readmodel/queries";
import type { VaultRecord } from "../../../../api/src/readmodel/records";
import { createMemoryStore, type MemoryStore } from "../../../../api/src/store/memory";
import { sampleEvent } from "../../store/readModelConformance";

/* eslint-disable @typescript-eslint/no-explicit-any */

const VAULT = "0x00000000000000000000000000000000000000aa";

/** A socket that records what the connection does to it; its buffered amount is set by the test. */
class RecordingSocket extends EventEmitter implements WsSocket {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: any[] = [];
  closedWith: [number, string] | undefined;
  terminated = false;
  pings = 0;
  paused = false;
  /** Every pause and resume, in order. */
  readonly flow: ("pause" | "resume")[] = [];

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(code: number, reason: string): void {
    this.closedWith = [code, reason];
    this.readyState = 2;
  }
  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
  }
  ping(): void {
    this.pings += 1;
  }
  pause(): void {
    this.paused = true;
    this.flow.push("pause");
  }
  resume(): void {
    this.paused = false;
    this.flow.push("resume");
  }
  receive(message: unknown): void {
    this.emit("message", Buffer.from(JSON.stringify(message)), false);
  }
  receiveRaw(data: Buffer): void {
    this.emit("message", data, false);
  }
}

const vaultRecord: VaultRecord = {
  address: VAULT,
  id: "moderate",
  name: "NAP Moderate",
  symbol: "napMOD",
  asset: "0x00000000000000000000000000000000000000c0",
  assetDecimals: 6,
  shareDecimals: 12,
  totalAssets: "1000000",
  totalSupply: "1000000000000",
  pricePerShare: "1000000",
  managementFeeBps: 100,
  performanceFeeBps: 1000,
  hurdleRateBps: 0,
  riskLevel: "MODERATE",
  isERC7540: false,
  fulfillmentDelay: 0,
  paused: false,
  createdAt: 1,
  allocations: [],
  block: 5,
  timestamp: 1_800_000_010,
};

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition(), "condition not reached").to.equal(true);
};

describe("/ws connection: backpressure, heartbeat, key checks", function () {
  let store: MemoryStore;
  let feed: EventFeed;
  let caps: SocketCaps;
  let keyValid: boolean;
  const key = { keyId: "dk_1", tier: "authenticated", scopes: ["vaults:read"], expiresAt: new Date(0) };
  const keys = {
    authenticate: async () => {
      if (!keyValid) throw new AuthenticationError("API key revoked at 2026-11-22T00:00:00.000Z");
      return key as unknown as DataKeyRecord;
    },
  } as unknown as DataKeyService;

  const open = (overrides: Partial<ReturnType<typeof loadConfig>["ws"]> = {}) => {
    const socket = new RecordingSocket();
    let closed = false;
    const connection = new Connection(
      socket,
      "10.0.0.1",
      caps.openForIp("10.0.0.1")!,
      {
        feed,
        queries: new DataQueries(store.readModel, { cursorTtlMs: 0 }),
        keys,
        caps,
        settings: { ...loadConfig({}).ws, ...overrides },
        logger: createLogger("silent"),
      },
      () => (closed = true),
    );
    return { socket, connection, isClosed: () => closed };
  };

  beforeEach(async function () {
    store = createMemoryStore();
    await store.readModel.putVaults([vaultRecord]);
    await store.readModel.setCursor({ height: 5, hash: "0x05" });
    await store.readModel.appendEventLog([{ action: "added", event: sampleEvent(5, 0) }]);
    feed = new EventFeed(store.readModel, { pollMs: 10 });
    caps = new SocketCaps(20, 50);
    keyValid = true;
  });

  afterEach(function () {
    feed.close();
  });

  it("closes a client whose unsent bytes pass WS_MAX_BUFFERED_BYTES with 4413 and stops its subscriptions", async function () {
    const { socket, connection, isClosed } = open({ maxBufferedBytes: 1_024 });
    socket.receive({ type: "subscribe", id: "v", channel: "vault", vault: VAULT, afterSeq: 0 });
    await until(() => socket.sent.some((m) => m.type === "vault"));
    expect(socket.sent.map((m) => [m.type, m.seq])).to.deep.equal([
      ["welcome", undefined],
      ["subscribed", undefined],
      ["vault", 1],
    ]);
    expect(connection.subscriptionCount).to.equal(1);

    // The client stops reading: what the server sends piles up.
    socket.bufferedAmount = 2_048;
    await store.readModel.putVaults([{ ...vaultRecord, block: 6 }]);
    await store.readModel.appendEventLog([{ action: "added", event: sampleEvent(6, 0) }]);
    await store.readModel.setCursor({ height: 6, hash: "0x06" });
    await until(() => socket.closedWith !== undefined);
    expect(socket.closedWith).to.deep.equal([4413, "the client reads too slowly"]);
    expect(connection.subscriptionCount).to.equal(0);
    expect(isClosed()).to.equal(true);
    expect(caps.ipCount("10.0.0.1")).to.equal(0);

    // Nothing more is sent once closed.
    const sent = socket.sent.length;
    await store.readModel.appendEventLog([{ action: "added", event: sampleEvent(7, 0) }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(socket.sent.length).to.equal(sent);
  });

  it("heartbeat: pings, and terminates a socket that did not answer the previous ping", function () {
    const { socket, connection, isClosed } = open();
    connection.heartbeat();
    expect(socket.pings).to.equal(1);
    socket.emit("pong");
    connection.heartbeat();
    expect(socket.pings).to.equal(2);
    expect(socket.terminated).to.equal(false);
    connection.heartbeat();
    expect(socket.terminated).to.equal(true);
    expect(isClosed()).to.equal(true);
  });

  it("key check: an authenticated connection whose key was revoked is told so and closed with 4401", async function () {
    const { socket, connection } = open();
    socket.receive({ type: "auth", token: "napd-" + "a".repeat(32) });
    await until(() => socket.sent.some((m) => m.type === "authenticated"));
    expect(caps.keyCount("dk_1")).to.equal(1);
    expect(caps.ipCount("10.0.0.1")).to.equal(1);
    keyValid = false;
    connection.heartbeat();
    expect(socket.closedWith).to.equal(undefined);
    connection.checkKey();
    await until(() => socket.closedWith !== undefined);
    expect(socket.sent.at(-1)).to.deep.equal({
      type: "error",
      code: "UNAUTHORIZED",
      message: "API key revoked at 2026-11-22T00:00:00.000Z",
      field: "token",
    });
    expect(socket.closedWith).to.deep.equal([4401, "the key was revoked or expired"]);
    expect(caps.keyCount("dk_1")).to.equal(0);
    expect(caps.ipCount("10.0.0.1")).to.equal(0);
  });

  it("a store failure while subscribing answers INTERNAL_ERROR without detail, and the next message is handled", async function () {
    const { socket } = open();
    store.readModel.vaults = async () => {
      throw new Error("connection refused: mongodb://secret-host");
    };
    socket.receive({ type: "subscribe", id: "v", channel: "vault", vault: VAULT });
    socket.receive({ type: "ping" });
    await until(() => socket.sent.some((m) => m.type === "pong"));
    expect(socket.sent.slice(1)).to.deep.equal([
      { type: "error", code: "INTERNAL_ERROR", message: "internal error" },
      { type: "pong" },
    ]);
  });

  it("a subscription whose message cannot be made ends with UNAVAILABLE and the seq to resume after", async function () {
    const { socket } = open();
    // A transaction entry whose block the read model never reaches.
    await store.readModel.appendEventLog([{ action: "added", event: sampleEvent(9, 0) }]);
    socket.receive({ type: "subscribe", id: "t", channel: "transactions", afterSeq: 1 });
    await until(() => socket.sent.some((m) => m.type === "error"));
    expect(socket.sent.at(-1)).to.deep.equal({
      type: "error",
      code: "UNAVAILABLE",
      message: "subscription t stopped: the message for seq 2 could not be made; subscribe again with afterSeq 1",
      id: "t",
      seq: 1,
    });
  });

  it("attack: a flood of 4 KB messages is closed with 1008 once past the burst, and nothing past it is queued", function () {
    const { socket, connection, isClosed } = open();
    // A valid ping padded to 4 KB with JSON whitespace: the largest message a client may send, of the cheapest kind.
    const padded = Buffer.from(JSON.stringify({ type: "ping" }) + " ".repeat(4_096 - 15));
    expect(padded.length).to.equal(4_096);
    for (let i = 0; i < 20_000; i++) socket.receiveRaw(padded);
    expect(socket.closedWith).to.deep.equal([1008, "message rate exceeded"]);
    expect(isClosed()).to.equal(true);
    expect(connection.backlog).to.equal(0);
    // Reading paused once the backlog was full, and resumed at the close so that the client's answer is read.
    expect(socket.flow).to.deep.equal(["pause", "resume"]);
    expect(socket.sent.at(-1)).to.deep.equal({
      type: "error",
      code: "RATE_LIMITED",
      message:
        "more than 100 messages at once or 10 a second on one connection: it is closed; reconnect and send fewer",
      retryAfterSeconds: 1,
    });
    expect(caps.ipCount("10.0.0.1")).to.equal(0);
  });

  it("attack: pings, unknown unsubscribes and malformed messages count toward the message rate", async function () {
    const { socket } = open({ maxMessageBurst: 5, maxMessagesPerSecond: 1 });
    const answers: unknown[] = [];
    const send = async (deliver: () => void) => {
      const before = socket.sent.length;
      deliver();
      await until(() => socket.sent.length > before || socket.closedWith !== undefined);
      answers.push(socket.sent.at(-1).code ?? socket.sent.at(-1).type);
    };
    await send(() => socket.receive({ type: "ping" }));
    await send(() => socket.receive({ type: "unsubscribe", id: "never" }));
    await send(() => socket.receiveRaw(Buffer.from("{not json")));
    await send(() => socket.emit("message", Buffer.from([1, 2, 3]), true));
    await send(() => socket.receive({ type: "unsubscribe", id: "never" }));
    expect(answers).to.deep.equal([
      "pong",
      "SUBSCRIPTION_NOT_FOUND",
      "INVALID_BODY",
      "INVALID_BODY",
      "SUBSCRIPTION_NOT_FOUND",
    ]);
    expect(socket.closedWith).to.equal(undefined);
    socket.receive({ type: "ping" });
    expect(socket.sent.at(-1).code).to.equal("RATE_LIMITED");
    expect(socket.closedWith).to.deep.equal([1008, "message rate exceeded"]);
  });

  it("backlog: reading pauses at WS_MAX_BACKLOG unhandled messages and resumes as they are handled, each in order", async function () {
    const { socket, connection } = open({ maxBacklog: 4 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const vaults = store.readModel.vaults.bind(store.readModel);
    store.readModel.vaults = async (...args: Parameters<typeof vaults>) => {
      await gate;
      return vaults(...args);
    };
    const ids = ["s0", "s1", "s2", "s3", "s4", "s5"];
    for (const id of ids) socket.receive({ type: "subscribe", id, channel: "vault", vault: VAULT });
    // s0 is being handled (waiting on the store); s1 to s4 filled the backlog; s5 was already read from the socket.
    expect(socket.flow).to.deep.equal(["pause"]);
    expect(connection.backlog).to.equal(5);
    release();
    await until(() => socket.sent.filter((m) => m.type === "subscribed").length === ids.length);
    expect(socket.sent.filter((m) => m.type === "subscribed").map((m) => m.id)).to.deep.equal(ids);
    expect(socket.flow).to.deep.equal(["pause", "resume"]);
    expect(connection.backlog).to.equal(0);
  });

  it("attack: a client that does not read: a message that would take its unsent bytes past WS_MAX_BUFFERED_BYTES is not queued, and it is closed with 4413", async function () {
    const { socket } = open({ maxBufferedBytes: 2_048 });
    socket.bufferedAmount = 2_000;
    socket.receive({ type: "ping" });
    await until(() => socket.sent.some((m) => m.type === "pong"));
    socket.receive({ type: "subscribe", id: "v", channel: "vault", vault: VAULT });
    await until(() => socket.closedWith !== undefined);
    expect(socket.closedWith).to.deep.equal([4413, "the client reads too slowly"]);
    expect(socket.sent.map((m) => m.type)).to.deep.equal(["welcome", "pong"]);
  });

  it("attack: keys multiply the per-IP socket budget: an authenticated socket still counts against its IP", async function () {
    caps = new SocketCaps(2, 50);
    const first = open();
    const second = open();
    expect(caps.ipHasRoom("10.0.0.1")).to.equal(false);
    first.socket.receive({ type: "auth", token: "napd-" + "a".repeat(32) });
    second.socket.receive({ type: "auth", token: "napd-" + "a".repeat(32) });
    await until(() => second.socket.sent.some((m) => m.type === "authenticated"));
    expect(caps.ipCount("10.0.0.1")).to.equal(2);
    expect(caps.keyCount("dk_1")).to.equal(2);
    expect(caps.ipHasRoom("10.0.0.1")).to.equal(false);
    expect(caps.openForIp("10.0.0.1")).to.equal(null);
    first.connection.close(1000, "done");
    expect(caps.ipCount("10.0.0.1")).to.equal(1);
    expect(caps.keyCount("dk_1")).to.equal(1);
  });

  it("attack: a revoked key subscribing to an unknown vault is told its key is revoked (not VAULT_NOT_FOUND) and closed with 4401", async function () {
    const { socket, connection } = open();
    socket.receive({ type: "auth", token: "napd-" + "a".repeat(32) });
    await until(() => socket.sent.some((m) => m.type === "authenticated"));
    keyValid = false;
    socket.receive({
      type: "subscribe",
      id: "x",
      channel: "vault",
      vault: "0x000000000000000000000000000000000000dEaD",
    });
    await until(() => socket.closedWith !== undefined);
    expect(socket.sent.slice(2)).to.deep.equal([
      { type: "error", code: "UNAUTHORIZED", message: "API key revoked at 2026-11-22T00:00:00.000Z", field: "token" },
    ]);
    expect(socket.closedWith).to.deep.equal([4401, "the key was revoked or expired"]);
    expect(connection.subscriptionCount).to.equal(0);
  });

  it("attack: entries come faster than their messages are made: the subscription's queue is bounded, and it ends with the seq to resume after", async function () {
    const { socket, connection } = open({ maxReplay: 2 });
    socket.receive({ type: "subscribe", id: "v", channel: "vault", vault: VAULT });
    await until(() => socket.sent.some((m) => m.type === "subscribed"));
    // Entries of a block the read model has not reached: their messages wait for it, and more keep coming.
    const first = (await store.readModel.lastEventSeq()) + 1;
    await store.readModel.appendEventLog(
      Array.from({ length: 150 }, (_, i) => ({ action: "added" as const, event: sampleEvent(6, i) })),
    );
    await until(() => socket.sent.some((m) => m.type === "error"));
    expect(socket.sent.at(-1)).to.deep.equal({
      type: "error",
      code: "UNAVAILABLE",
      message: `subscription v stopped: more than 100 entries waited for their messages to be made; subscribe again with afterSeq ${first - 1}`,
      id: "v",
      seq: first - 1,
    });
    expect(connection.subscriptionCount).to.equal(0);
    // The message being made when it stopped is not sent, nor a second error when it fails.
    await store.readModel.putVaults([{ ...vaultRecord, block: 6 }]);
    await store.readModel.setCursor({ height: 6, hash: "0x06" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(socket.sent.filter((m) => m.type === "vault" || m.type === "error").length).to.equal(1);
  });
});
