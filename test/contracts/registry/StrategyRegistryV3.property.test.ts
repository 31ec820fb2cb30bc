/**
 * Handler-based invariant test: random transition attempts by random accounts, mixed with hostile role changes
 * (the admin revoking and granting guardians and oracles mid-review, holders renouncing), threshold changes,
 * griefing voters (random accounts voting either way) and permissionless `settleReview` calls. Each attempt
 * succeeds exactly when the transition table and the review rules allow it, and otherwise fails with the error they
 * imply; after every attempt the chain matches the model: status, pausedFrom, lastStatusChange, the tallies of
 * current holders, every account's current ballot and the review rounds, the guardian motions (deprecation and
 * resume votes of current guardians, the pauser) and the paper-trading time. The review rules of the model: only
 * ballots of current holders in the current round count; k rejections deprecate (checked first), k approvals
 * advance, and a tally neither side can complete with the outstanding holders starts a new round. Guardian
 * motions: one guardian pauses; the pauser resumes alone, anyone else's resume and every deprecation is a vote that
 * k current guardians carry (deprecation votes count in the lifecycle state they were cast in, resume votes in their
 * pause); paper trading completes after PERIOD seconds spent in it, paused time excluded.
 * Runs: REGISTRY_PROPERTY_RUNS, else PROPERTY_RUNS (default 60 sequences of 15 to 40 attempts).
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { StrategyRegistryV3 } from "../../../typechain-types";
import { Status, type StatusValue, defaultParams } from "./helpers";
import { recordFigure } from "../../helpers/figures";

const RUNS = Number(process.env.REGISTRY_PROPERTY_RUNS ?? process.env.PROPERTY_RUNS ?? 60);
const PERIOD = 100;
const K = 2;

const OPS = [
  "passScreening",
  "failScreening",
  "guardianVote",
  "completePaperTrading",
  "oracleVote",
  "pause",
  "resume",
  "deprecate",
] as const;
/** Hostile or administrative moves that change who votes and how many votes decide. */
const ADMIN_OPS = ["revoke", "renounce", "grant", "setThreshold", "settleReview"] as const;
type LifecycleOp = (typeof OPS)[number];
type Op = LifecycleOp | (typeof ADMIN_OPS)[number];
type RoleName = "SCREENER" | "GUARDIAN" | "MANAGER" | "ORACLE";
type VoterRole = "GUARDIAN" | "ORACLE";
const ROLE_OF: Record<LifecycleOp, RoleName> = {
  passScreening: "SCREENER",
  failScreening: "SCREENER",
  guardianVote: "GUARDIAN",
  completePaperTrading: "MANAGER",
  oracleVote: "ORACLE",
  pause: "GUARDIAN",
  resume: "GUARDIAN",
  deprecate: "GUARDIAN",
};

interface Attempt {
  op: Op;
  /** "holder": an account holding the op's role (picked by `pick`); a number: that account of all ten. */
  actor: "holder" | number;
  pick: number;
  strategy: number;
  approve: boolean;
  /** Seconds to move the clock before the attempt (besides Hardhat's one second per block). */
  jump: number;
  /** For role changes and thresholds: guardians (true) or oracles (false). */
  guardians: boolean;
}

interface ModelStrategy {
  id: string;
  status: StatusValue;
  pausedFrom: StatusValue;
  lastStatusChange: number;
  /** Ballots of the current round, by voter (true: approve), whether or not the voter still holds the role. */
  guardianVotes: Map<string, boolean>;
  oracleVotes: Map<string, boolean>;
  guardianRound: number;
  oracleRound: number;
  /** The guardian of the last pause (the zero address before any). */
  pausedBy: string;
  /** Resume votes cast in the current pause. */
  resumeVotes: Set<string>;
  /** Deprecation votes: the lifecycle state each was cast in (a paused strategy is in the state it paused in). */
  deprecationVotes: Map<string, StatusValue>;
  /** Seconds spent in paper_trading in stays that have ended. */
  paperTime: number;
}

/** The lifecycle state deprecation votes belong to. */
function stageOf(s: ModelStrategy): StatusValue {
  return s.status === Status.Paused ? s.pausedFrom : s.status;
}

/** Current guardians among `voters`. */
function countCurrent(voters: Iterable<string>, holders: Set<string>): number {
  let n = 0;
  for (const v of voters) if (holders.has(v)) n++;
  return n;
}

/** Deprecation votes of current guardians in the strategy's lifecycle state. */
function deprecationCount(s: ModelStrategy, holders: Set<string>): number {
  const stage = stageOf(s);
  return countCurrent(
    [...s.deprecationVotes].filter(([, at]) => at === stage).map(([v]) => v),
    holders,
  );
}

interface Model {
  holders: Record<VoterRole, Set<string>>;
  threshold: Record<VoterRole, number>;
}

type Outcome = { ok: true; to?: StatusValue } | { ok: false; error: string; args: (string | number | bigint)[] };

async function deployForProperty() {
  const signers = await ethers.getSigners();
  const [admin, screener, g1, g2, g3, manager, o1, o2, owner, stranger] = signers;
  const registry = (await ethers.deployContract("StrategyRegistryV3", [
    admin.address,
    K,
    K,
    PERIOD,
  ])) as unknown as StrategyRegistryV3;
  const holders: Record<RoleName, HardhatEthersSigner[]> = {
    SCREENER: [screener],
    GUARDIAN: [g1, g2, g3],
    MANAGER: [manager],
    ORACLE: [o1, o2],
  };
  // Accounts the admin may make guardians or oracles besides the initial ones (and revoke again).
  const pools: Record<VoterRole, HardhatEthersSigner[]> = {
    GUARDIAN: [g1, g2, g3, signers[10]],
    ORACLE: [o1, o2, signers[11]],
  };
  const roleIds: Record<RoleName, string> = {
    SCREENER: await registry.SCREENER_ROLE(),
    GUARDIAN: await registry.GUARDIAN_ROLE(),
    MANAGER: await registry.MANAGER_ROLE(),
    ORACLE: await registry.ORACLE_ROLE(),
  };
  for (const role of Object.keys(holders) as RoleName[]) {
    for (const h of holders[role]) await registry.grantRole(roleIds[role], h.address);
  }
  const ids: string[] = [];
  for (const dna of ["a", "b", "c"]) {
    await registry.connect(owner).submit(`Strategy ${dna}`, "Property-test strategy", ethers.id(dna), defaultParams());
  }
  ids.push(...(await registry.strategyIdsOf(owner.address, 0, 10)));
  // Start the three strategies in different places of the table (shadow, pending_oracle_approval, live), so that
  // short random sequences explore every state.
  for (const id of ids.slice(1)) {
    await registry.connect(screener).passScreening(id);
    await registry.connect(g1).guardianVote(id, true);
    await registry.connect(g2).guardianVote(id, true);
  }
  await time.increase(PERIOD);
  for (const id of ids.slice(1)) await registry.connect(manager).completePaperTrading(id);
  await registry.connect(o1).oracleVote(ids[2], true);
  await registry.connect(o2).oracleVote(ids[2], true);
  const accounts = [screener, g1, g2, g3, manager, o1, o2, owner, stranger, admin];
  return { registry, holders, pools, roleIds, ids, accounts, admin };
}

/** Biased toward moves that advance a strategy (votes, the right role, mostly one strategy) so that sequences reach
 *  the deep states; every op, account and strategy keeps a fair chance. */
const attemptArb: fc.Arbitrary<Attempt> = fc.record({
  op: fc.constantFrom<Op>(
    ...OPS,
    ...ADMIN_OPS,
    "settleReview",
    "resume",
    "deprecate",
    "deprecate",
    "passScreening",
    "guardianVote",
    "guardianVote",
    "guardianVote",
    "completePaperTrading",
    "completePaperTrading",
    "oracleVote",
    "oracleVote",
    "oracleVote",
  ),
  actor: fc.oneof({ arbitrary: fc.constant("holder" as const), weight: 5 }, { arbitrary: fc.nat(9), weight: 1 }),
  pick: fc.nat(2),
  strategy: fc.nat(2),
  approve: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
  jump: fc.constantFrom(0, 40, 100),
  guardians: fc.boolean(),
});

/** Approvals, rejections and outstanding holders of a stage, counting only current holders' ballots. */
function tally(votes: Map<string, boolean>, holders: Set<string>) {
  let approvals = 0;
  let rejections = 0;
  for (const [voter, approve] of votes) {
    if (!holders.has(voter)) continue;
    if (approve) approvals++;
    else rejections++;
  }
  return { approvals, rejections, outstanding: holders.size - approvals - rejections };
}

/** The review rule: what the tally does to a stage (undefined: nothing). */
function settleOutcome(
  role: VoterRole,
  t: { approvals: number; rejections: number; outstanding: number },
  k: number,
): StatusValue | "reset" | undefined {
  if (t.rejections >= k) return Status.Deprecated;
  if (t.approvals >= k) return role === "GUARDIAN" ? Status.PaperTrading : Status.Live;
  if (t.approvals + t.outstanding < k && t.rejections + t.outstanding < k) return "reset";
  return undefined;
}

type Prediction = Outcome & {
  reset?: boolean;
  /** A guardian motion's vote: which, whether the caller's ballot is new (then the event is emitted), the count. */
  motion?: { kind: "resume" | "deprecation"; fresh: boolean; votes: number };
};

/** A vote in a guardian motion: the count with the caller's ballot, carried at k, `StrategyAlreadyVoted` for a
 *  repeated ballot that does not carry it. */
function motionVote(
  s: ModelStrategy,
  kind: "resume" | "deprecation",
  voted: boolean,
  votersWithCaller: string[],
  actor: string,
  to: StatusValue,
  m: Model,
): Prediction {
  const votes = countCurrent(new Set(votersWithCaller), m.holders.GUARDIAN);
  const carried = votes >= m.threshold.GUARDIAN;
  if (voted && !carried) return { ok: false, error: "StrategyAlreadyVoted", args: [s.id, actor] };
  return { ok: true, to: carried ? to : undefined, motion: { kind, fresh: !voted, votes } };
}

function predict(
  s: ModelStrategy,
  a: Attempt,
  actor: string,
  hasRole: boolean,
  roleId: string,
  now: number,
  m: Model,
): Prediction {
  if (!hasRole) return { ok: false, error: "AccessControlUnauthorizedAccount", args: [actor, roleId] };
  const illegal = (to: StatusValue): Outcome => ({
    ok: false,
    error: "StrategyIllegalTransition",
    args: [s.id, s.status, to],
  });
  switch (a.op) {
    case "passScreening":
      return s.status === Status.Shadow ? { ok: true, to: Status.GuardianReview } : illegal(Status.GuardianReview);
    case "failScreening":
      return s.status === Status.Shadow ? { ok: true, to: Status.Deprecated } : illegal(Status.Deprecated);
    case "guardianVote":
    case "oracleVote": {
      const guardian = a.op === "guardianVote";
      const target = a.approve ? (guardian ? Status.PaperTrading : Status.Live) : Status.Deprecated;
      const stage = guardian ? Status.GuardianReview : Status.PendingOracleApproval;
      if (s.status !== stage) return illegal(target);
      const votes = guardian ? s.guardianVotes : s.oracleVotes;
      if (votes.has(actor)) return { ok: false, error: "StrategyAlreadyVoted", args: [s.id, actor] };
      const role: VoterRole = guardian ? "GUARDIAN" : "ORACLE";
      const after = new Map(votes).set(actor, a.approve);
      const outcome = settleOutcome(role, tally(after, m.holders[role]), m.threshold[role]);
      if (outcome === "reset") return { ok: true, reset: true };
      return { ok: true, to: outcome };
    }
    case "completePaperTrading": {
      if (s.status !== Status.PaperTrading) return illegal(Status.PendingOracleApproval);
      const spent = s.paperTime + now - s.lastStatusChange;
      if (spent < PERIOD) {
        return { ok: false, error: "StrategyPaperTradingTooShort", args: [s.id, now + PERIOD - spent, now] };
      }
      return { ok: true, to: Status.PendingOracleApproval };
    }
    case "pause":
      return s.status === Status.Paused || s.status === Status.Deprecated
        ? illegal(Status.Paused)
        : { ok: true, to: Status.Paused };
    case "resume":
      if (s.status !== Status.Paused) return illegal(s.status);
      if (actor === s.pausedBy) return { ok: true, to: s.pausedFrom };
      return motionVote(s, "resume", s.resumeVotes.has(actor), [...s.resumeVotes, actor], actor, s.pausedFrom, m);
    case "deprecate": {
      if (s.status === Status.Deprecated) return illegal(Status.Deprecated);
      const stage = stageOf(s);
      const voters = [...s.deprecationVotes].filter(([, at]) => at === stage).map(([v]) => v);
      return motionVote(s, "deprecation", voters.includes(actor), [...voters, actor], actor, Status.Deprecated, m);
    }
    default:
      throw new Error(`not a lifecycle op: ${a.op}`);
  }
}

function predictSettle(s: ModelStrategy, m: Model): Prediction {
  const role: VoterRole | undefined =
    s.status === Status.GuardianReview ? "GUARDIAN" : s.status === Status.PendingOracleApproval ? "ORACLE" : undefined;
  if (!role) return { ok: false, error: "StrategyNotInReview", args: [s.id, s.status] };
  const t = tally(role === "GUARDIAN" ? s.guardianVotes : s.oracleVotes, m.holders[role]);
  const outcome = settleOutcome(role, t, m.threshold[role]);
  if (outcome === undefined) {
    return {
      ok: false,
      error: "StrategyReviewUndecided",
      args: [s.id, t.approvals, t.rejections, t.outstanding, m.threshold[role]],
    };
  }
  return outcome === "reset" ? { ok: true, reset: true } : { ok: true, to: outcome };
}

function send(registry: StrategyRegistryV3, signer: HardhatEthersSigner, a: Attempt, id: string) {
  const r = registry.connect(signer);
  switch (a.op) {
    case "guardianVote":
      return r.guardianVote(id, a.approve);
    case "oracleVote":
      return r.oracleVote(id, a.approve);
    case "settleReview":
      return r.settleReview(id);
    default:
      return r[a.op as Exclude<LifecycleOp, "guardianVote" | "oracleVote">](id);
  }
}

/** A walk of strategy 0 through every state with wrong steps on the way; fast-check runs it besides random ones. */
const WALK: Attempt[] = (
  [
    ["passScreening", "holder", 0, true, 0],
    ["guardianVote", "holder", 0, true, 0],
    ["guardianVote", "holder", 0, true, 0], // same guardian again: StrategyAlreadyVoted
    ["guardianVote", "holder", 1, true, 0], // second approval: paper_trading
    ["completePaperTrading", "holder", 0, true, 0], // too early
    ["completePaperTrading", "holder", 0, true, 100],
    ["oracleVote", "holder", 0, true, 0],
    ["oracleVote", 8, 0, true, 0], // a stranger: AccessControlUnauthorizedAccount
    ["oracleVote", "holder", 1, true, 0], // live
    ["pause", "holder", 2, true, 0],
    ["passScreening", "holder", 0, true, 0], // illegal from paused
    ["resume", "holder", 0, true, 0], // another guardian: one resume vote
    ["resume", "holder", 0, true, 0], // the same again: StrategyAlreadyVoted
    ["resume", "holder", 2, true, 0], // the pauser: back to live
    ["deprecate", "holder", 1, true, 0], // one deprecation vote
    ["deprecate", "holder", 1, true, 0], // the same again: StrategyAlreadyVoted
    ["deprecate", "holder", 0, true, 0], // the k-th: deprecated
    ["resume", "holder", 1, true, 0], // illegal: deprecated is terminal
  ] as const
).map(([op, actor, pick, approve, jump]) => ({ op, actor, pick, strategy: 0, approve, jump, guardians: true }));

describe("StrategyRegistryV3 transition table and reviews under hostile role changes (invariant)", () => {
  it(`accepts exactly the moves the table and the review rules allow (${RUNS} sequences: a fixed walk, then random ones)`, async function () {
    this.timeout(0);
    const reached = new Set<number>();
    let successes = 0;
    let failures = 0;
    let resets = 0;
    let roleChanges = 0;
    let motions = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(attemptArb, { minLength: 15, maxLength: 40 }), async (attempts) => {
        const { registry, holders, pools, roleIds, ids, accounts, admin } = await loadFixture(deployForProperty);
        const m: Model = {
          holders: {
            GUARDIAN: new Set(holders.GUARDIAN.map((h) => h.address)),
            ORACLE: new Set(holders.ORACLE.map((h) => h.address)),
          },
          threshold: { GUARDIAN: K, ORACLE: K },
        };
        const everyone = [...new Set([...pools.GUARDIAN, ...pools.ORACLE, ...accounts].map((a) => a.address))];
        const model: ModelStrategy[] = [];
        for (const id of ids) {
          const view = await registry.getStrategy(id);
          const votes = async (read: (voter: string) => Promise<bigint>) => {
            const map = new Map<string, boolean>();
            for (const v of everyone) {
              const vote = await read(v);
              if (vote !== 0n) map.set(v, vote === 1n);
            }
            return map;
          };
          model.push({
            id,
            status: Number(view.status) as StatusValue,
            pausedFrom: Number(view.pausedFrom) as StatusValue,
            lastStatusChange: Number(view.lastStatusChange),
            guardianVotes: await votes((v) => registry.guardianVoteOf(id, v)),
            oracleVotes: await votes((v) => registry.oracleVoteOf(id, v)),
            guardianRound: 0,
            oracleRound: 0,
            pausedBy: ethers.ZeroAddress,
            resumeVotes: new Set(),
            deprecationVotes: new Map(),
            // The fixture's strategies are not in paper_trading: the time they traded is fixed (read like the votes).
            paperTime: Number(await registry.paperTradingTime(id)),
          });
        }
        for (const a of attempts) {
          const s = model[a.strategy];
          const now = (await time.latest()) + 1 + a.jump;
          await time.setNextBlockTimestamp(now);
          const voterRole: VoterRole = a.guardians ? "GUARDIAN" : "ORACLE";
          const pool = pools[voterRole];
          const target = pool[a.pick % pool.length];

          // Role and threshold changes by the admin, or a holder renouncing: they touch no strategy directly.
          if (a.op === "revoke" || a.op === "grant" || a.op === "renounce" || a.op === "setThreshold") {
            if (a.op === "revoke") {
              await registry.connect(admin).revokeRole(roleIds[voterRole], target.address);
              m.holders[voterRole].delete(target.address);
            } else if (a.op === "renounce") {
              await registry.connect(target).renounceRole(roleIds[voterRole], target.address);
              m.holders[voterRole].delete(target.address);
            } else if (a.op === "grant") {
              await registry.connect(admin).grantRole(roleIds[voterRole], target.address);
              m.holders[voterRole].add(target.address);
            } else {
              const k = 1 + (a.pick % 3);
              if (a.guardians) await registry.connect(admin).setGuardianThreshold(k);
              else await registry.connect(admin).setOracleThreshold(k);
              m.threshold[voterRole] = k;
            }
            roleChanges++;
            // A role change moves the tallies of every open review at once.
            for (const each of model) await check(each, []);
            continue;
          }

          let signer: HardhatEthersSigner;
          let expected: Prediction;
          if (a.op === "settleReview") {
            signer = accounts[typeof a.actor === "number" ? a.actor : 8];
            expected = predictSettle(s, m);
          } else {
            const role = ROLE_OF[a.op];
            const live =
              role === "GUARDIAN" || role === "ORACLE" ? [...m.holders[role]] : holders[role].map((h) => h.address);
            const candidates = role === "GUARDIAN" || role === "ORACLE" ? pools[role] : holders[role];
            // "holder": a current holder if any (else a pool member who lost the role); a number: any account.
            const holderAddress = live.length > 0 ? live[a.pick % live.length] : candidates[0].address;
            signer = a.actor === "holder" ? await ethers.getSigner(holderAddress) : accounts[a.actor];
            const hasRole = live.includes(signer.address);
            expected = predict(s, a, signer.address, hasRole, roleIds[role], now, m);
          }
          if (expected.ok) {
            const tx = send(registry, signer, a, s.id);
            if (expected.reset) {
              const stage = s.status as typeof Status.GuardianReview | typeof Status.PendingOracleApproval;
              await expect(tx).to.emit(registry, "ReviewReset");
              const votes = stage === Status.GuardianReview ? s.guardianVotes : s.oracleVotes;
              votes.clear();
              if (stage === Status.GuardianReview) s.guardianRound++;
              else s.oracleRound++;
              resets++;
            } else if (expected.motion?.fresh) {
              const event = expected.motion.kind === "resume" ? "ResumeVoteCast" : "DeprecationVoteCast";
              await expect(tx).to.emit(registry, event).withArgs(s.id, signer.address, expected.motion.votes);
            } else {
              await expect(tx).not.to.be.reverted;
              if (a.op === "guardianVote") s.guardianVotes.set(signer.address, a.approve);
              if (a.op === "oracleVote") s.oracleVotes.set(signer.address, a.approve);
            }
            if (expected.motion?.kind === "resume") s.resumeVotes.add(signer.address);
            if (expected.motion?.kind === "deprecation") s.deprecationVotes.set(signer.address, stageOf(s));
            if (expected.motion) motions++;
            successes++;
            if (expected.to !== undefined) {
              if (s.status === Status.PaperTrading) s.paperTime += now - s.lastStatusChange;
              if (expected.to === Status.Paused) {
                s.pausedFrom = s.status;
                s.pausedBy = signer.address;
                s.resumeVotes.clear();
              }
              s.status = expected.to;
              s.lastStatusChange = now;
              reached.add(expected.to);
            }
          } else {
            await expect(send(registry, signer, a, s.id))
              .to.be.revertedWithCustomError(registry, expected.error)
              .withArgs(...expected.args);
            failures++;
          }
          await check(
            s,
            a.op === "guardianVote" || a.op === "pause" || a.op === "resume" || a.op === "deprecate"
              ? pools.GUARDIAN
              : a.op === "oracleVote"
                ? pools.ORACLE
                : [],
          );
        }

        /** The strategy's status, times, tallies of current holders, rounds and the ballots of `voters` equal the
         *  model's. */
        async function check(s: ModelStrategy, voters: HardhatEthersSigner[]) {
          {
            const onchain = await registry.getStrategy(s.id);
            expect(onchain.status).to.equal(BigInt(s.status));
            expect(onchain.pausedFrom).to.equal(BigInt(s.pausedFrom));
            expect(onchain.lastStatusChange).to.equal(BigInt(s.lastStatusChange));
            const g = tally(s.guardianVotes, m.holders.GUARDIAN);
            const o = tally(s.oracleVotes, m.holders.ORACLE);
            expect([onchain.guardianApprovals, onchain.guardianRejections]).to.deep.equal([
              BigInt(g.approvals),
              BigInt(g.rejections),
            ]);
            expect([onchain.oracleApprovals, onchain.oracleRejections]).to.deep.equal([
              BigInt(o.approvals),
              BigInt(o.rejections),
            ]);
            expect(await registry.reviewRounds(s.id)).to.deep.equal([BigInt(s.guardianRound), BigInt(s.oracleRound)]);
            const resumeVotes = s.status === Status.Paused ? countCurrent(s.resumeVotes, m.holders.GUARDIAN) : 0;
            expect(await registry.guardianMotions(s.id)).to.deep.equal([
              BigInt(deprecationCount(s, m.holders.GUARDIAN)),
              BigInt(resumeVotes),
              s.pausedBy,
            ]);
            // Outside paper_trading the time is fixed (inside it, it depends on the time of the read).
            if (s.status !== Status.PaperTrading) {
              expect(await registry.paperTradingTime(s.id)).to.equal(BigInt(s.paperTime));
            }
            for (const v of voters) {
              expect(await registry.deprecationVoteOf(s.id, v.address)).to.equal(
                s.deprecationVotes.get(v.address) === stageOf(s) && s.status !== Status.Deprecated,
              );
              expect(await registry.resumeVoteOf(s.id, v.address)).to.equal(
                s.status === Status.Paused && s.resumeVotes.has(v.address),
              );
              const g = s.guardianVotes.get(v.address);
              const o = s.oracleVotes.get(v.address);
              expect(await registry.guardianVoteOf(s.id, v.address)).to.equal(g === undefined ? 0n : g ? 1n : 2n);
              expect(await registry.oracleVoteOf(s.id, v.address)).to.equal(o === undefined ? 0n : o ? 1n : 2n);
            }
          }
        }
      }),
      { numRuns: RUNS, examples: [[WALK]] },
    );
    // The walk guarantees every state is reached at least once; random sequences add the rest.
    expect(successes).to.be.greaterThan(0);
    expect(failures).to.be.greaterThan(0);
    expect(roleChanges).to.be.greaterThan(0);
    expect(motions).to.be.greaterThan(0);
    for (const status of [
      Status.GuardianReview,
      Status.PaperTrading,
      Status.PendingOracleApproval,
      Status.Live,
      Status.Paused,
      Status.Deprecated,
    ]) {
      expect(reached.has(status), `reached status ${status}`).to.equal(true);
    }
    recordFigure(
      "StrategyRegistryV3 property",
      `${RUNS} sequences, ${successes} accepted and ${failures} refused attempts, ${roleChanges} role or ` +
        `threshold changes, ${resets} review resets, ${motions} deprecation or resume votes; states reached: ${[...reached].sort().join(", ")}`,
    );
  });
});
