/**
 * Handler-based invariant tests: random sequences in which honest holders deposit, exit, request, cancel and claim
 * while hostile actors act on the same vault, compared with the model of ../model.ts after every step and checked
 * against the invariants of docs/invariants.md:
 *
 * - a griefer (the last holder) makes 1-unit requests for others, cancels, claims and fills others' requests, and
 *   redeems others' shares without allowance;
 * - donors send assets to the vault and to the escrow, and shares to the vault;
 * - the harvester reports gains (the vault has no loss path), the admin changes fees and the cap and revokes and
 *   grants FULFILLER_ROLE, the guardian pauses and unpauses;
 * - empty periods: every holder leaves, time passes, then anyone may enter again.
 *
 * After every step: the chain equals the model; the escrow holds every claimable asset; no step changes another
 * controller's pending or claimable amounts or ready time (only a fill of a ready request moves it whole); the fees
 * each holder paid stay within the bound of docs/vaults.md; claims never exceed assets.
 *
 * VAULT_INVARIANT_RUNS (default 300, split between a synchronous and an asynchronous vault), VAULT_INVARIANT_STEPS
 * (longest sequence, default 16) and VAULT_INVARIANT_SEED (replay).
 */
import { expect } from "chai";
import fc from "fast-check";
import { DAY, HOUR } from "../fixtures";
import {
  checkOthersUntouched,
  deployHarness,
  feesArb,
  runSequence,
  snapshotRestorer,
  type Action,
  type Amount,
  type Harness,
} from "../harness";
import { recordFigure } from "../../../helpers/figures";

const TOTAL_RUNS = Number(process.env.VAULT_INVARIANT_RUNS ?? 300);
const RUNS = Math.ceil(TOTAL_RUNS / 2);
const MAX_STEPS = Number(process.env.VAULT_INVARIANT_STEPS ?? 16);
const SEED = process.env.VAULT_INVARIANT_SEED === undefined ? undefined : Number(process.env.VAULT_INVARIANT_SEED);
/** Holders 0..2 are honest; holder 3 is the griefer. */
const HOLDERS = 4;
const GRIEFER = 3;

const amountArb: fc.Arbitrary<Amount> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ mode: fc.constant("part" as const), value: fc.integer({ min: 0, max: 1_000 }) }),
  },
  { weight: 2, arbitrary: fc.record({ mode: fc.constant("raw" as const), value: fc.integer({ min: 0, max: 5_000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ mode: fc.constant("over" as const), value: fc.integer({ min: 0, max: 1_000 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ mode: "all" as const, value: 0 }) },
);
const oneUnit: Amount = { mode: "raw", value: 1 };

function actionArb(async: boolean): fc.Arbitrary<Action> {
  const honest = fc.integer({ min: 0, max: GRIEFER - 1 });
  const victim = honest;
  const own = <K extends "withdraw" | "redeem" | "request">(kind: K) =>
    honest.chain((i) =>
      fc.record({ kind: fc.constant(kind), actor: fc.constant(i), controller: fc.constant(i), amount: amountArb }),
    );
  const options: fc.WeightedArbitrary<Action>[] = [
    // Honest holders.
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constantFrom("deposit" as const, "mint" as const),
        actor: fc.integer({ min: 0, max: HOLDERS - 1 }),
        amount: amountArb,
      }),
    },
    { weight: 2, arbitrary: own("withdraw") },
    { weight: 2, arbitrary: own("redeem") },
    // The griefer: others' requests, claims and shares.
    {
      weight: 3,
      arbitrary: victim.chain((i) =>
        fc.oneof(
          fc.constant<Action>({ kind: "request", actor: GRIEFER, controller: i, amount: oneUnit }),
          fc.constant<Action>({ kind: "cancel", actor: GRIEFER, controller: i }),
          fc.constant<Action>({ kind: "claimCancel", actor: GRIEFER, controller: i }),
          fc.constant<Action>({ kind: "redeem", actor: GRIEFER, controller: i, amount: oneUnit }),
          fc.constant<Action>({ kind: "withdraw", actor: GRIEFER, controller: i, amount: oneUnit }),
          fc.constant<Action>({ kind: "fulfil", byFulfiller: false, actor: GRIEFER, controller: i }),
        ),
      ),
    },
    // Donors.
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.record({ kind: fc.constant("donate" as const), value: fc.integer({ min: 1, max: 1_000_000 }) }),
        fc.record({ kind: fc.constant("donateToEscrow" as const), value: fc.integer({ min: 1, max: 1_000_000 }) }),
        fc.record({
          kind: fc.constant("giveShares" as const),
          actor: fc.integer({ min: 0, max: HOLDERS - 1 }),
          amount: amountArb,
        }),
      ),
    },
    // Roles: harvester, admin, guardian.
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("report" as const), value: fc.integer({ min: 0, max: 1_000_000 }) }),
    },
    {
      weight: 1,
      arbitrary: feesArb,
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("cap" as const), tokens: fc.integer({ min: -1, max: 3_000_000 }) }),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Action>(
        { kind: "pause" },
        { kind: "unpause" },
        { kind: "revokeFulfiller" },
        { kind: "grantFulfiller" },
        { kind: "accrue" },
        { kind: "claimFees" },
      ),
    },
    // Time, and empty periods.
    // Waits around the fulfilment delay and the grace period (an hour each here) as well as long ones.
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("wait" as const),
        seconds: fc.oneof(
          fc.integer({ min: 1, max: 600 }),
          fc.integer({ min: HOUR - 60, max: 2 * HOUR + 60 }),
          fc.integer({ min: 1, max: 2 * DAY }),
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("emptyPeriod" as const),
        seconds: fc.integer({ min: 1, max: 30 * DAY }),
      }),
    },
  ];
  if (async) {
    options.push(
      { weight: 3, arbitrary: own("request") },
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant("fulfil" as const),
          byFulfiller: fc.boolean(),
          actor: honest,
          controller: fc.integer({ min: 0, max: HOLDERS - 1 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("keeper" as const), byFulfiller: fc.boolean() }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant("leave" as const),
          actor: honest,
          amount: amountArb,
          byFulfiller: fc.boolean(),
        }),
      },
      {
        weight: 2,
        arbitrary: honest.chain((i) =>
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
  describe(`NapVault invariants under hostile actors (${asyncRedeem ? "asynchronous" : "synchronous"} vault)`, function () {
    this.timeout(0);
    let h: Harness;
    let restore: () => Promise<void>;

    before(async () => {
      h = await deployHarness(asyncRedeem, HOLDERS);
      restore = await snapshotRestorer();
    });

    it(`keeps every money invariant over ${RUNS} random sequences of up to ${MAX_STEPS} steps`, async () => {
      let sequences = 0;
      let steps = 0;
      let fills = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(actionArb(asyncRedeem), { minLength: 1, maxLength: MAX_STEPS, size: "max" }),
          async (actions) => {
            sequences += 1;
            await runSequence(h, actions, restore, (action, before, after) => {
              steps += 1;
              checkOthersUntouched(action, before, after);
              if (
                action.kind === "fulfil" &&
                after.requests[action.controller].claimableShares > before.requests[action.controller].claimableShares
              )
                fills += 1;
            });
          },
        ),
        { numRuns: RUNS, seed: SEED, verbose: 1 },
      );
      expect(sequences).to.be.gte(RUNS);
      recordFigure(
        "NapVault invariant",
        `${sequences} sequences, ${steps} steps, ${fills} fills (${asyncRedeem ? "asynchronous" : "synchronous"} vault)`,
      );
    });
  });
}
