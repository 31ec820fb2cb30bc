import fc from "fast-check";
import { BOUNDS, VOLUME } from "./bounds";
import { pool, runCategory, type Context } from "./graphqlHttp";
import { settle } from "./graphqlWs";
import type { Door } from "./record";
import { openSocket } from "./socket";

/**
 * The WebSocket channel /ws under generated message sequences (docs/websocket.md, api/src/doors/ws/protocol.ts):
 * valid and broken auth, subscribe and unsubscribe, pings, malformed and foreign messages, binary frames; then
 * oversized frames (close 1009), floods of small messages, and the per-IP socket cap.
 */

const DOOR: Door = "ws";
const PING = JSON.stringify({ type: "ping" });
/**
 * The pong of the closing ping: /ws pongs carry nothing to tell them apart, and messages are answered in order, so
 * it is the pong after those of the `pingsBefore` plain pings the socket sent first.
 */
function closingPong(pingsBefore: number): (m: unknown) => boolean {
  let seen = 0;
  return (m) => (m as { type?: string } | null)?.type === "pong" && ++seen > pingsBefore;
}

function messages(ctx: Context): fc.Arbitrary<string[]> {
  const vaults = ctx.stack.vaults.length > 0 ? ctx.stack.vaults : ["0x0000000000000000000000000000000000000000"];
  const address = fc.oneof(
    { arbitrary: fc.constantFrom(...vaults, ...vaults.map((v) => v.toLowerCase())), weight: 4 },
    {
      arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}`),
      weight: 1,
    },
    { arbitrary: fc.string({ maxLength: 120 }), weight: 1 },
  );
  const id = fc.option(fc.oneof(fc.constantFrom("a", "b", "1"), fc.string({ maxLength: 70 })), { nil: undefined });
  const afterSeq = fc.option(
    fc.oneof(fc.integer({ min: -2, max: 50 }), fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER)),
    { nil: undefined, freq: 3 },
  );
  const extra = fc.option(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue(), { maxKeys: 1 }), {
    nil: undefined,
    freq: 6,
  });
  const subscribeVault = fc.record(
    { type: fc.constant("subscribe"), channel: fc.constant("vault"), id, vault: address, afterSeq },
    { requiredKeys: ["type", "channel"] },
  );
  const subscribeTransactions = fc.record(
    {
      type: fc.constant("subscribe"),
      channel: fc.constant("transactions"),
      id,
      vault: address,
      user: address,
      afterSeq,
    },
    { requiredKeys: ["type", "channel"] },
  );
  const auth = fc.oneof(
    fc.constant({ type: "auth", token: ctx.stack.key }),
    fc.constant({ type: "auth", token: "napd-not-a-key" }),
    fc.constant({ type: "auth", token: "" }),
    fc.constant({ type: "auth" }),
    fc.string({ maxLength: 300 }).map((token) => ({ type: "auth", token })),
  );
  const message = fc.oneof(
    {
      arbitrary: fc
        .tuple(fc.oneof(subscribeVault, subscribeTransactions), extra)
        .map(([m, e]) => JSON.stringify({ ...m, ...e })),
      weight: 6,
    },
    { arbitrary: auth.map((m) => JSON.stringify(m)), weight: 2 },
    { arbitrary: id.map((i) => JSON.stringify({ type: "unsubscribe", id: i })), weight: 2 },
    { arbitrary: fc.constant(PING), weight: 2 },
    { arbitrary: fc.string({ maxLength: 200 }), weight: 1 },
    { arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: fc.string({ maxLength: 12 }).map((type) => JSON.stringify({ type })), weight: 1 },
  );
  return fc.array(message, { minLength: 1, maxLength: 15 });
}

function category(ctx: Context, name: string, run: () => Promise<void>): Promise<void> {
  return runCategory(ctx, `ws / ${name}`, run);
}

export async function attackWs(ctx: Context): Promise<void> {
  const { record, stack } = ctx;
  const open = async (category: string) => {
    const opened = await openSocket(`${stack.wsUrl}/ws`, undefined);
    if (!opened.socket) {
      record.outcome(DOOR, `upgrade ${opened.refusedStatus}`);
      record.violation({
        door: DOOR,
        category,
        kind: "upgrade refused",
        what: `upgrade answered ${opened.refusedStatus}`,
      });
      return undefined;
    }
    record.socket(DOOR);
    return opened.socket;
  };

  await category(ctx, "generated sequences", async () => {
    const sequences = fc.sample(messages(ctx), { seed: ctx.seed + 21, numRuns: VOLUME.wsSequences });
    await pool(sequences, VOLUME.concurrency, async (sequence) => {
      const generation = stack.restarts;
      const socket = await open("generated sequences");
      if (!socket) return stack.restarts !== generation || stack.restartIfDown();
      // Binary frames are INVALID_BODY; one in ten sequences carries one.
      if (sequence.length % 10 === 0) socket.send(Buffer.from(sequence[0]), true);
      for (const text of sequence) socket.send(text);
      const stop = await settle(
        ctx,
        DOOR,
        "generated sequences",
        socket,
        PING,
        closingPong(sequence.filter((text) => text === PING).length),
        BOUNDS.socketSettleMs,
        sequence.join(" | "),
      );
      await socket.end();
      return stop || stack.restarts !== generation;
    });
  });

  await category(ctx, "oversized frames", async () => {
    for (const bytes of [BOUNDS.wsMessageBytes + 1, 1024 * 1024, 16 * 1024 * 1024]) {
      const socket = await open("oversized frames");
      if (!socket) return;
      socket.send(JSON.stringify({ type: "ping", pad: "a".repeat(bytes) }));
      const closed = await socket.waitClosed(BOUNDS.socketSettleMs + (bytes > 1024 * 1024 ? 3_000 : 0));
      record.messages(DOOR, 1);
      record.outcome(DOOR, closed ? `close ${socket.closeCode}` : "oversized frame taken");
      const input = `a ping padded past ${bytes} bytes`;
      if (!closed)
        record.violation({
          door: DOOR,
          category: "oversized frames",
          kind: "oversized frame taken",
          what: "the socket stayed open",
          input,
        });
      else if (socket.closeCode !== 1009)
        record.violation({
          door: DOOR,
          category: "oversized frames",
          kind: `close ${socket.closeCode}`,
          what: `closed with ${socket.closeCode}, expected 1009`,
          input,
        });
      await socket.end();
    }
  });

  await category(ctx, "floods", async () => {
    // Messages just under the size bound: a ping with an unknown field (refused, so each one makes an answer too),
    // between plain pings and unknown unsubscribes.
    const padded = JSON.stringify({ type: "ping", pad: "a".repeat(BOUNDS.wsMessageBytes - 40) });
    const rssBefore = stack.rssNowMb();
    await Promise.all(
      Array.from({ length: VOLUME.floodSockets }, async (_, n) => {
        const socket = await open("floods");
        if (!socket) return;
        for (let i = 0; i < VOLUME.wsFloodMessages; i++) {
          // A turn of the event loop now and then, so that this client reads the server's close as a real one
          // would; sending on past it would only meet the reset that follows the close handshake's timeout (1006).
          if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
          if (socket.closeCode !== null) break;
          if (i % 4 === 3) socket.send(PING);
          else if (i % 4 === 2) socket.send(JSON.stringify({ type: "unsubscribe", id: `x${i}` }));
          else socket.send(padded);
        }
        await settle(
          ctx,
          DOOR,
          "floods",
          socket,
          PING,
          closingPong(Math.floor((VOLUME.wsFloodMessages + 1) / 4)),
          BOUNDS.floodSettleMs,
          `socket ${n}: ${VOLUME.wsFloodMessages} messages of up to 4 KB`,
        );
        await socket.end();
      }),
    );
    console.log(`    /ws flood: API RSS ${Math.round(rssBefore)} MB before, ${Math.round(stack.rssNowMb())} MB after`);
  });

  await category(ctx, "sockets per IP", async () => {
    const count = BOUNDS.wsSocketsPerIp + 5;
    const opened = await Promise.all(Array.from({ length: count }, () => openSocket(`${stack.wsUrl}/ws`, undefined)));
    const accepted = opened.filter((o) => o.socket).length;
    const refused = opened.filter((o) => o.refusedStatus === 429).length;
    for (const o of opened) record.outcome(DOOR, o.socket ? "upgrade 101" : `upgrade ${o.refusedStatus}`);
    record.request(DOOR, 0, `${count} sockets`);
    if (accepted > BOUNDS.wsSocketsPerIp || accepted + refused !== count) {
      record.violation({
        door: DOOR,
        category: "sockets per IP",
        kind: "cap",
        what: `${count} sockets of one IP: ${accepted} accepted, ${refused} refused with 429 (cap ${BOUNDS.wsSocketsPerIp})`,
      });
    }
    await Promise.all(opened.map((o) => o.socket?.end()));

    // A key must not lift the IP's cap: the IP's sockets, once authenticated, still count.
    const keyed = await Promise.all(
      Array.from({ length: BOUNDS.wsSocketsPerIp }, () => openSocket(`${stack.wsUrl}/ws`, undefined)),
    );
    await Promise.all(
      keyed.map(async (o) => {
        o.socket?.send(JSON.stringify({ type: "auth", token: stack.key }));
        await o.socket?.waitFor(
          (m) => ["authenticated", "error"].includes(String((m as { type?: string })?.type)),
          BOUNDS.answerMs,
        );
      }),
    );
    const more = await Promise.all(Array.from({ length: 5 }, () => openSocket(`${stack.wsUrl}/ws`, undefined)));
    for (const o of more) record.outcome(DOOR, o.socket ? "upgrade 101 past the cap" : `upgrade ${o.refusedStatus}`);
    const past = more.filter((o) => o.socket).length;
    if (past > 0) {
      record.violation({
        door: DOOR,
        category: "sockets per IP",
        kind: "cap with a key",
        what: `after ${BOUNDS.wsSocketsPerIp} sockets of one IP authenticated with a key, ${past} of 5 more were accepted`,
      });
    }
    await Promise.all([...keyed, ...more].map((o) => o.socket?.end()));
  });
}
