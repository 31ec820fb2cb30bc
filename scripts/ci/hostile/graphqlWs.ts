import fc from "fast-check";
import { ALLOWED_CLOSE_CODES, BOUNDS, VOLUME } from "./bounds";
import { fanOut, operations, shapedOperations } from "./documents";
import { pool, runCategory, type Context } from "./graphqlHttp";
import { openSocket, type TestSocket } from "./socket";
import type { Door } from "./record";

/**
 * graphql-ws (graphql-transport-ws) under generated message sequences: connection_init with and without a payload
 * or key, subscribe with generated documents, complete, ping/pong, malformed JSON, unknown types, duplicate ids,
 * binary frames; then oversized frames and floods. After each sequence the socket answers a ping or has closed
 * with an allowed code within the bound; no message carries INTERNAL_ERROR.
 */

const DOOR: Door = "graphql-ws";
const PROTOCOL = "graphql-transport-ws";

type Step = { label: string; data: string | Buffer; binary?: boolean };

function steps(ctx: Context): fc.Arbitrary<Step[]> {
  const vaults = ctx.stack.vaults;
  const json = (label: string, value: unknown): Step => ({ label, data: JSON.stringify(value) });
  const id = fc.oneof(fc.constantFrom("1", "2", "a"), fc.string({ maxLength: 10 }));
  const document = fc.oneof(
    { arbitrary: operations(ctx.schema, "subscription", vaults), weight: 5 },
    { arbitrary: operations(ctx.schema, "query", vaults), weight: 3 },
    { arbitrary: shapedOperations(vaults).map((s) => s.op), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 12 }).map((n) => ({ query: fanOut(n, 2) })), weight: 1 },
  );
  const init = fc
    .oneof(
      fc.constant(undefined),
      fc.constant({}),
      fc.constant({ authorization: `Bearer ${ctx.stack.key}` }),
      fc.constant({ Authorization: "Bearer napd-not-a-key" }),
      fc.jsonValue(),
    )
    .map((payload) =>
      json(
        "connection_init",
        payload === undefined ? { type: "connection_init" } : { type: "connection_init", payload },
      ),
    );
  const step: fc.Arbitrary<Step> = fc.oneof(
    { arbitrary: init, weight: 2 },
    {
      arbitrary: fc.tuple(id, document).map(([i, payload]) => json("subscribe", { type: "subscribe", id: i, payload })),
      weight: 5,
    },
    { arbitrary: id.map((i) => json("complete", { type: "complete", id: i })), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        json("ping", { type: "ping" }),
        json("pong", { type: "pong" }),
        json("ping with payload", { type: "ping", payload: { a: 1 } }),
      ),
      weight: 2,
    },
    { arbitrary: fc.string({ maxLength: 100 }).map((s) => ({ label: "not JSON", data: s })), weight: 1 },
    { arbitrary: fc.jsonValue().map((v) => json("any JSON", v)), weight: 1 },
    { arbitrary: fc.string({ maxLength: 12 }).map((t) => json("unknown type", { type: t, id: "1" })), weight: 1 },
    {
      arbitrary: fc
        .jsonValue()
        .map((p) => json("subscribe with any payload", { type: "subscribe", id: "9", payload: p })),
      weight: 1,
    },
    {
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((b) => ({ label: "binary frame", data: Buffer.from(b), binary: true })),
      weight: 1,
    },
  );
  // Most sequences begin as a client does, with connection_init carrying the key or nothing.
  const first = fc.oneof(
    { arbitrary: fc.constant([json("connection_init", { type: "connection_init" })]), weight: 3 },
    {
      arbitrary: fc.constant([
        json("connection_init with key", {
          type: "connection_init",
          payload: { authorization: `Bearer ${ctx.stack.key}` },
        }),
      ]),
      weight: 3,
    },
    { arbitrary: fc.constant<Step[]>([]), weight: 1 },
  );
  return fc.tuple(first, fc.array(step, { minLength: 1, maxLength: 12 })).map(([a, b]) => [...a, ...b]);
}

/** A server message that reports an unexpected error of the server. */
function internalError(message: unknown): boolean {
  return JSON.stringify(message ?? "").includes("INTERNAL_ERROR");
}

/**
 * After a sequence: the socket answers the closing `ping` (`answers` picks its answer out of everything received
 * since the socket opened), or has closed (or closes) with an allowed code, within `settleMs`. Records the outcome
 * and any violation; answers whether the category should stop.
 */
export async function settle(
  ctx: Context,
  door: Door,
  category: string,
  socket: TestSocket,
  ping: string,
  answers: (m: unknown) => boolean,
  settleMs: number,
  input: string,
): Promise<boolean> {
  const { record, stack } = ctx;
  const violation = (kind: string, what: string) => record.violation({ door, category, kind, what, input });
  const started = performance.now();
  socket.send(ping);
  const pong = await socket.waitFor(answers, settleMs, 0);
  const ms = performance.now() - started;
  record.messages(door, socket.sent);
  for (const message of socket.received)
    if (internalError(message)) violation("INTERNAL_ERROR", `the server sent ${JSON.stringify(message).slice(0, 200)}`);
  if (pong !== undefined) {
    record.request(door, ms, `ping after: ${input}`);
    record.outcome(door, "open, answers ping");
    return false;
  }
  if (socket.closeCode !== null) {
    record.request(door, ms, `close after: ${input}`);
    record.outcome(door, `close ${socket.closeCode}`);
    if (!ALLOWED_CLOSE_CODES.has(socket.closeCode)) {
      violation(`close ${socket.closeCode}`, `closed with ${socket.closeCode} ${socket.closeReason}`);
      if (socket.closeCode === 1006) return stack.restartIfDown();
    }
    return false;
  }
  record.outcome(door, "hangs");
  violation("hangs", `neither answered a ping nor closed within ${settleMs} ms`);
  return stack.restartIfDown();
}

/** The closing ping of a sequence, told apart from the sequence's own pings by the payload its pong echoes. */
const PROBE = JSON.stringify({ type: "ping", payload: { probe: "settle" } });
const isProbePong = (m: unknown) => {
  const message = m as { type?: string; payload?: { probe?: string } } | null;
  return message?.type === "pong" && message.payload?.probe === "settle";
};

function category(ctx: Context, name: string, run: () => Promise<void>): Promise<void> {
  return runCategory(ctx, `graphql-ws / ${name}`, run);
}

/** Opens a socket and waits for connection_ack after connection_init (with `key` when given). */
async function acknowledged(ctx: Context, key?: string): Promise<TestSocket | undefined> {
  const opened = await openSocket(`${ctx.stack.wsUrl}/graphql`, PROTOCOL);
  if (!opened.socket) {
    ctx.record.violation({
      door: DOOR,
      category: ctx.stack.category,
      kind: "refused",
      what: `the upgrade was refused (${opened.refusedStatus})`,
    });
    if (opened.refusedStatus === 0) await ctx.stack.restartIfDown();
    return undefined;
  }
  ctx.record.socket(DOOR);
  opened.socket.send(
    JSON.stringify({
      type: "connection_init",
      ...(key ? { payload: { authorization: `Bearer ${key}` } } : {}),
    }),
  );
  await opened.socket.waitFor((m) => (m as { type?: string })?.type === "connection_ack", BOUNDS.answerMs);
  return opened.socket;
}

export async function attackGraphqlWs(ctx: Context): Promise<void> {
  const { record, stack } = ctx;

  await category(ctx, "generated sequences", async () => {
    const sequences = fc.sample(steps(ctx), { seed: ctx.seed + 11, numRuns: VOLUME.graphqlWsSequences });
    await pool(sequences, VOLUME.concurrency, async (sequence) => {
      const generation = stack.restarts;
      const opened = await openSocket(`${stack.wsUrl}/graphql`, PROTOCOL);
      const input = sequence.map((s) => (s.binary ? "<binary>" : String(s.data))).join(" | ");
      if (!opened.socket) {
        if (stack.restarts !== generation) return true;
        record.outcome(DOOR, `upgrade ${opened.refusedStatus}`);
        record.violation({
          door: DOOR,
          category: "generated sequences",
          kind: "upgrade refused",
          what: `upgrade answered ${opened.refusedStatus}`,
          input,
        });
        return opened.refusedStatus === 0 ? stack.restartIfDown() : false;
      }
      record.socket(DOOR);
      const socket = opened.socket;
      for (const s of sequence) socket.send(s.data, s.binary);
      const stop = await settle(
        ctx,
        DOOR,
        "generated sequences",
        socket,
        PROBE,
        isProbePong,
        BOUNDS.socketSettleMs,
        input,
      );
      await socket.end();
      return stop || stack.restarts !== generation;
    });
  });

  await category(ctx, "generated operations on an acknowledged socket", async () => {
    // Five operations a socket, each subscribed, given a moment to answer, then completed.
    const ops = fc.sample(
      fc.tuple(
        fc.oneof(
          { arbitrary: operations(ctx.schema, "subscription", ctx.stack.vaults), weight: 3 },
          { arbitrary: operations(ctx.schema, "query", ctx.stack.vaults), weight: 1 },
        ),
        fc.option(fc.integer({ min: -1, max: 40 }), { nil: undefined }),
      ),
      { seed: ctx.seed + 12, numRuns: VOLUME.graphqlWsSequences },
    );
    const groups = Array.from({ length: Math.ceil(ops.length / 5) }, (_, i) => ops.slice(i * 5, i * 5 + 5));
    await pool(groups, VOLUME.concurrency, async (group) => {
      const generation = stack.restarts;
      // Groups take turns: no key, the full key, the nodes:read key (whose every operation must be refused).
      const turn = groups.indexOf(group) % 3;
      const key = [undefined, stack.key, stack.narrowKey][turn];
      const socket = await acknowledged(ctx, key);
      if (!socket) return stack.restartIfDown();
      const input: string[] = [];
      for (const [i, [op, afterSeq]] of group.entries()) {
        if (!socket.open) break;
        const query =
          afterSeq === undefined
            ? String(op.query)
            : String(op.query).replace(/\(address: /, `(afterSeq: ${afterSeq}, address: `);
        input.push(query);
        const from = socket.received.length;
        socket.send(JSON.stringify({ type: "subscribe", id: `op${i}`, payload: { query } }));
        const narrow = key === stack.narrowKey;
        const answer = (await socket.waitFor(
          (m) => (m as { id?: string })?.id === `op${i}`,
          narrow ? BOUNDS.answerMs : 300,
          from,
        )) as { type?: string } | undefined;
        // A refused operation gets its error at once (or the socket is closed); data is a breach of scope.
        if (narrow && (answer?.type === "next" || (socket.open && answer?.type !== "error"))) {
          record.violation({
            door: DOOR,
            category: "generated operations on an acknowledged socket",
            kind: "scope",
            what: `a key holding only nodes:read got ${answer ? JSON.stringify(answer).slice(0, 160) : "no refusal"}`,
            input: query,
          });
        }
        socket.send(JSON.stringify({ type: "complete", id: `op${i}` }));
      }
      const stop = await settle(
        ctx,
        DOOR,
        "generated operations on an acknowledged socket",
        socket,
        PROBE,
        isProbePong,
        BOUNDS.socketSettleMs,
        input.join(" | "),
      );
      await socket.end();
      return stop || stack.restarts !== generation;
    });
  });

  await category(ctx, "subscribe with a fan-out document", async () => {
    const socket = await acknowledged(ctx);
    if (!socket) return;
    // graphql-ws runs queries too, through the same validation as subscriptions.
    const query = fanOut(30, 2);
    socket.send(JSON.stringify({ type: "subscribe", id: "f", payload: { query } }));
    await settle(
      ctx,
      DOOR,
      "subscribe with a fan-out document",
      socket,
      PROBE,
      isProbePong,
      BOUNDS.socketSettleMs,
      query,
    );
    await socket.end();
  });

  await category(ctx, "oversized frames", async () => {
    for (const bytes of VOLUME.graphqlWsOversized) {
      const socket = await acknowledged(ctx);
      if (!socket) return;
      const head =
        '{"type":"subscribe","id":"big","payload":{"query":"subscription { transactionCreated { hash } }","extensions":{"pad":"';
      const frame = head + "a".repeat(bytes - head.length - 4) + '"}}}';
      const input = `a subscribe of ${bytes} bytes`;
      socket.send(frame);
      const closed = await socket.waitClosed(BOUNDS.socketSettleMs + (bytes > 1024 * 1024 ? 3_000 : 0));
      record.messages(DOOR, socket.sent);
      record.outcome(DOOR, closed ? `close ${socket.closeCode}` : "oversized frame taken");
      if (!closed) {
        record.violation({
          door: DOOR,
          category: "oversized frames",
          kind: "oversized frame taken",
          what: `a frame of ${bytes} bytes, past ${BOUNDS.graphqlWsMessageBytes}, left the socket open`,
          input,
        });
      } else if (socket.closeCode !== 1009 && socket.closeCode !== 1008) {
        record.violation({
          door: DOOR,
          category: "oversized frames",
          kind: `close ${socket.closeCode}`,
          what: `closed with ${socket.closeCode}, expected 1009 or 1008`,
          input,
        });
      }
      await socket.end();
      if (await stack.restartIfDown()) return;
    }
  });

  await category(ctx, "floods", async () => {
    const sockets = await Promise.all(Array.from({ length: VOLUME.floodSockets }, () => acknowledged(ctx)));
    await Promise.all(
      sockets.map(async (socket, n) => {
        if (!socket) return;
        for (let i = 0; i < VOLUME.graphqlWsFloodMessages; i++) {
          if (i % 3 === 0) socket.send('{"type":"ping"}');
          else if (i % 3 === 1)
            socket.send(
              JSON.stringify({
                type: "subscribe",
                id: `s${i}`,
                payload: { query: "subscription { transactionCreated { hash } }" },
              }),
            );
          else socket.send(JSON.stringify({ type: "complete", id: `s${i - 1}` }));
        }
        await settle(
          ctx,
          DOOR,
          "floods",
          socket,
          PROBE,
          isProbePong,
          BOUNDS.floodSettleMs,
          `socket ${n}: ${VOLUME.graphqlWsFloodMessages} pings, subscribes and completes`,
        );
        await socket.end();
      }),
    );
  });

  await category(ctx, "sockets per IP", async () => {
    const count = BOUNDS.graphqlWsSocketsPerIp + 10;
    const opened = await Promise.all(
      Array.from({ length: count }, () => openSocket(`${stack.wsUrl}/graphql`, PROTOCOL)),
    );
    const accepted = opened.filter((o) => o.socket).length;
    const refused = opened.filter((o) => o.refusedStatus === 429).length;
    for (const o of opened) record.outcome(DOOR, o.socket ? "upgrade 101" : `upgrade ${o.refusedStatus}`);
    record.request(DOOR, 0, `${count} sockets`);
    if (accepted > BOUNDS.graphqlWsSocketsPerIp || accepted + refused !== count) {
      record.violation({
        door: DOOR,
        category: "sockets per IP",
        kind: "cap",
        what: `${count} sockets of one IP: ${accepted} accepted, ${refused} refused with 429 (cap ${BOUNDS.graphqlWsSocketsPerIp})`,
      });
    }
    await Promise.all(opened.map((o) => o.socket?.end()));
  });
}
