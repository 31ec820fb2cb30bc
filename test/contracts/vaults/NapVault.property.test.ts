/**
 * Model-based property tests: random sequences of deposits, mints, withdrawals, redemptions, requests, fills,
 * cancelations, claims, donations, reports, fee changes, fee accruals and claims and time jumps by three holders,
 * run against a vault and against the model of ./model.ts, compared after every step (./harness.ts), with the fee
 * bound of docs/vaults.md checked for every holder at every step.
 *
 * VAULT_PROPERTY_RUNS sets the number of sequences in all (default 300), split evenly between a synchronous and an
 * asynchronous vault; VAULT_PROPERTY_SEED replays a failing run. Each sequence starts from an EVM snapshot.
 */
import { expect } from "chai";
import fc from "fast-check";
import { DAY } from "./fixtures";
import {
  deployHarness,
  feesArb,
  runSequence,
  snapshotRestorer,
  type Action,
  type Amount,
  type Harness,
} from "./harness";
import { recordFigure } from "../../helpers/figures";

const TOTAL_RUNS = Number(process.env.VAULT_PROPERTY_RUNS ?? 300);
const RUNS = Math.ceil(TOTAL_RUNS / 2); // per vault kind
const SEED = process.env.VAULT_PROPERTY_SEED === undefined ? undefined : Number(process.env.VAULT_PROPERTY_SEED);
const MAX_STEPS = 12;
const HOLDERS = 3;

export const amountArb: fc.Arbitrary<Amount> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ mode: fc.constant("part" as const), value: fc.integer({ min: 0, max: 1_000 }) }),
  },
  { weight: 2, arbitrary: fc.record({ mode: fc.constant("raw" as const), value: fc.integer({ min: 0, max: 5_000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ mode: fc.constant("over" as const), value: fc.integer({ min: 0, max: 1_000 }) }),
  },
);

/** Honest steps: each holder acts on its own shares and requests; the fulfiller fills. */
function honestActionArb(async: boolean, holders: number): fc.Arbitrary<Action> {
  const actor = fc.integer({ min: 0, max: holders - 1 });
  const own = <K extends "withdraw" | "redeem" | "request">(kind: K) =>
    actor.chain((i) =>
      fc.record({ kind: fc.constant(kind), actor: fc.constant(i), controller: fc.constant(i), amount: amountArb }),
    );
  const options: fc.WeightedArbitrary<Action>[] = [
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constantFrom("deposit" as const, "mint" as const), actor, amount: amountArb }),
    },
    { weight: 2, arbitrary: own("withdraw") },
    { weight: 2, arbitrary: own("redeem") },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("donate" as const), value: fc.integer({ min: 1, max: 1_000_000 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("report" as const), value: fc.integer({ min: 0, max: 1_000_000 }) }),
    },
    {
      weight: 1,
      arbitrary: feesArb,
    },
    { weight: 1, arbitrary: fc.constantFrom({ kind: "accrue" as const }, { kind: "claimFees" as const }) },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("wait" as const), seconds: fc.integer({ min: 1, max: 2 * DAY }) }),
    },
  ];
  if (async) {
    options.push(
      { weight: 3, arbitrary: own("request") },
      {
        weight: 3,
        arbitrary: actor.map((i) => ({ kind: "fulfil" as const, byFulfiller: true, actor: i, controller: i })),
      },
      {
        weight: 1,
        arbitrary: actor.chain((i) =>
          fc.record({
            kind: fc.constantFrom("cancel" as const, "claimCancel" as const),
            actor: fc.constant(i),
            controller: fc.constant(i),
          }),
        ),
      },
    );
  }
  return fc.oneof(...options);
}

for (const asyncRedeem of [false, true]) {
  describe(`NapVault model-based properties (${asyncRedeem ? "asynchronous" : "synchronous"} vault)`, function () {
    this.timeout(0);
    let h: Harness;
    let restore: () => Promise<void>;

    before(async () => {
      h = await deployHarness(asyncRedeem, HOLDERS);
      restore = await snapshotRestorer();
    });

    it(`matches the model, keeps the fee bound and the invariants over ${RUNS} random sequences`, async () => {
      let sequences = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(honestActionArb(asyncRedeem, HOLDERS), { minLength: 1, maxLength: MAX_STEPS }),
          async (actions) => {
            sequences += 1;
            await runSequence(h, actions, restore);
          },
        ),
        { numRuns: RUNS, seed: SEED, verbose: 1 },
      );
      expect(sequences).to.be.gte(RUNS);
      recordFigure(
        "NapVault property",
        `${sequences} sequences run (${asyncRedeem ? "asynchronous" : "synchronous"} vault)`,
      );
    });
  });
}
