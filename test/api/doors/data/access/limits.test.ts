import { expect } from "chai";
import fc from "fast-check";
import Redis from "ioredis";
import { randomBytes } from "node:crypto";
import {
  WINDOW_MS,
  createTierLimiter,
  type DataTier,
  type LimitDecision,
  type TierLimit,
} from "../../../../../api/src/doors/data/access/limits";
import { testRedisUrl } from "../../../helpers/redis";

/**
 * The tier limiter against a model: for any interleaving of requests from several callers (IPs on the Public tier,
 * keys on the Authenticated and Node Operator tiers) and any movement of the clock, a request is admitted exactly
 * when every window of its tier has room, nobody is admitted beyond a budget in any window, refused requests count
 * nowhere, and the headers' window is consistent with the counts.
 */

const LIMITS: Record<DataTier, TierLimit> = {
  public: { minute: 3, day: 7 },
  authenticated: { minute: 5, day: 9 },
  node_operator: { minute: 4, day: null },
};

const CALLERS: Array<{ tier: DataTier; subject: string }> = [
  { tier: "public", subject: "ip:10.0.0.1" },
  { tier: "public", subject: "ip:10.0.0.2" },
  { tier: "authenticated", subject: "key:dk_a" },
  { tier: "node_operator", subject: "key:dk_op" },
];

const START = Date.UTC(2026, 5, 1, 23, 58, 0);

type Step = { kind: "requests"; callers: number[]; together: boolean } | { kind: "advance"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("requests" as const),
      callers: fc.array(fc.integer({ min: 0, max: CALLERS.length - 1 }), { minLength: 1, maxLength: 6 }),
      together: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 26 * 3_600_000 })),
    }),
  },
);

/** Admitted requests per caller and window index: what the model says has been used. */
class Model {
  readonly used = new Map<string, number>();

  private key(caller: number, window: string, index: number): string {
    return `${caller}:${window}:${index}`;
  }

  windows(
    caller: number,
    nowMs: number,
  ): Array<{ window: "minute" | "day"; limit: number; index: number; used: number }> {
    const rule = LIMITS[CALLERS[caller].tier];
    const list: Array<{ window: "minute" | "day"; limit: number }> = [{ window: "minute", limit: rule.minute }];
    if (rule.day !== null) list.push({ window: "day", limit: rule.day });
    return list.map(({ window, limit }) => {
      const index = Math.floor(nowMs / WINDOW_MS[window]);
      return { window, limit, index, used: this.used.get(this.key(caller, window, index)) ?? 0 };
    });
  }

  admit(caller: number, nowMs: number): void {
    for (const w of this.windows(caller, nowMs)) this.used.set(this.key(caller, w.window, w.index), w.used + 1);
  }
}

function checkHeaders(decision: LimitDecision, nowMs: number): void {
  for (const state of decision.windows) {
    expect(state.remaining).to.be.within(0, state.limit);
    expect(state.reset * 1000).to.be.greaterThan(nowMs);
    expect(state.reset * 1000 - nowMs).to.be.at.most(WINDOW_MS[state.window]);
  }
  expect(decision.windows).to.deep.include(decision.binding);
  if (decision.allowed) {
    expect(decision.binding.remaining).to.equal(Math.min(...decision.windows.map((w) => w.remaining)));
  } else {
    expect(decision.binding.remaining).to.equal(0);
    expect(decision.retryAfterSeconds).to.equal(Math.max(1, Math.ceil(decision.binding.reset - nowMs / 1000)));
  }
}

async function runModel(steps: Step[], redis?: Redis): Promise<void> {
  let nowMs = START;
  const limiter = createTierLimiter({
    clock: () => new Date(nowMs),
    limits: LIMITS,
    redis,
    prefix: `prop-${randomBytes(4).toString("hex")}`,
  });
  const model = new Model();
  for (const current of steps) {
    if (current.kind === "advance") {
      nowMs += current.ms;
      continue;
    }
    if (!current.together) {
      // One at a time: the model predicts every answer exactly.
      for (const caller of current.callers) {
        const expected = model.windows(caller, nowMs);
        const admitted = expected.every((w) => w.used < w.limit);
        const decision = await limiter.consume(CALLERS[caller].tier, CALLERS[caller].subject);
        expect(decision.allowed).to.equal(admitted);
        if (admitted) {
          model.admit(caller, nowMs);
          expect(decision.windows.map((w) => w.remaining)).to.deep.equal(expected.map((w) => w.limit - w.used - 1));
        } else {
          expect(decision.windows.map((w) => w.remaining)).to.deep.equal(
            expected.map((w) => (w.used >= w.limit ? 0 : w.limit - w.used)),
          );
        }
        checkHeaders(decision, nowMs);
      }
      continue;
    }
    // All at once: a request may be refused early while another's point is given back, never admitted beyond a budget.
    const decisions = await Promise.all(
      current.callers.map((caller) => limiter.consume(CALLERS[caller].tier, CALLERS[caller].subject)),
    );
    current.callers.forEach((caller, i) => {
      checkHeaders(decisions[i], nowMs);
      if (decisions[i].allowed) model.admit(caller, nowMs);
    });
    for (const caller of new Set(current.callers)) {
      for (const w of model.windows(caller, nowMs)) expect(w.used).to.be.at.most(w.limit);
    }
    // The counts the limiter holds agree with the model's: the next single request of each caller is predicted.
    for (const caller of new Set(current.callers)) {
      const expected = model.windows(caller, nowMs);
      const admitted = expected.every((w) => w.used < w.limit);
      const decision = await limiter.consume(CALLERS[caller].tier, CALLERS[caller].subject);
      expect(decision.allowed).to.equal(admitted);
      if (admitted) model.admit(caller, nowMs);
    }
  }
}

describe("data API tier limiter (property)", function () {
  it("admits exactly what the model admits, never beyond a budget, in memory", async function () {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => runModel(steps)),
      { numRuns: 150 },
    );
  });

  it("admits exactly what the model admits, never beyond a budget, in Redis", async function () {
    const redis = new Redis(await testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => runModel(steps, redis)),
        { numRuns: 25 },
      );
    } finally {
      await redis.quit();
    }
  });

  it("gives its point back to the day when the minute refuses (a refused request costs no day budget)", async function () {
    let nowMs = START;
    const limiter = createTierLimiter({ clock: () => new Date(nowMs), limits: LIMITS });
    for (let i = 0; i < 3; i += 1) expect((await limiter.consume("public", "ip:x")).allowed).to.equal(true);
    for (let i = 0; i < 50; i += 1) expect((await limiter.consume("public", "ip:x")).allowed).to.equal(false);
    nowMs += 60_000;
    const next = await limiter.consume("public", "ip:x");
    expect(next.windows).to.deep.equal([
      { window: "minute", limit: 3, remaining: 2, reset: (START + 120_000) / 1000 },
      { window: "day", limit: 7, remaining: 3, reset: Date.UTC(2026, 5, 2) / 1000 },
    ]);
  });
});
