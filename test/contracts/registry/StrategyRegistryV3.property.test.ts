/**
 * Property: random transition attempts by random accounts succeed exactly when the transition table allows them,
 * and otherwise fail with the error the table implies; after every attempt the chain matches a model of the table.
 * Runs: REGISTRY_PROPERTY_RUNS, else PROPERTY_RUNS (default 60 sequences of 15 to 40 attempts).
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { StrategyRegistryV3 } from "../../../typechain-types";
import { Status, type StatusValue, defaultParams } from "./helpers";

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
type Op = (typeof OPS)[number];
type RoleName = "SCREENER" | "GUARDIAN" | "MANAGER" | "ORACLE";
const ROLE_OF: Record<Op, RoleName> = {
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
}

interface ModelStrategy {
  id: string;
  status: StatusValue;
  pausedFrom: StatusValue;
  lastStatusChange: number;
  guardianVotes: Map<string, boolean>;
  oracleVotes: Map<string, boolean>;
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
  return { registry, holders, roleIds, ids, accounts };
}

/** Biased toward moves that advance a strategy (votes, the right role, mostly one strategy) so that sequences reach
 *  the deep states; every op, account and strategy keeps a fair chance. */
const attemptArb: fc.Arbitrary<Attempt> = fc.record({
  op: fc.constantFrom<Op>(
    ...OPS,
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
});

function predict(s: ModelStrategy, a: Attempt, actor: string, hasRole: boolean, roleId: string, now: number): Outcome {
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
      const same = [...votes.values()].filter((v) => v === a.approve).length + 1;
      return { ok: true, to: same >= K ? target : undefined };
    }
    case "completePaperTrading":
      if (s.status !== Status.PaperTrading) return illegal(Status.PendingOracleApproval);
      if (now < s.lastStatusChange + PERIOD) {
        return { ok: false, error: "StrategyPaperTradingTooShort", args: [s.id, s.lastStatusChange + PERIOD, now] };
      }
      return { ok: true, to: Status.PendingOracleApproval };
    case "pause":
      return s.status === Status.Paused || s.status === Status.Deprecated
        ? illegal(Status.Paused)
        : { ok: true, to: Status.Paused };
    case "resume":
      return s.status === Status.Paused ? { ok: true, to: s.pausedFrom } : illegal(s.status);
    case "deprecate":
      return s.status === Status.Deprecated ? illegal(Status.Deprecated) : { ok: true, to: Status.Deprecated };
  }
}

function send(registry: StrategyRegistryV3, signer: HardhatEthersSigner, a: Attempt, id: string) {
  const r = registry.connect(signer);
  switch (a.op) {
    case "guardianVote":
      return r.guardianVote(id, a.approve);
    case "oracleVote":
      return r.oracleVote(id, a.approve);
    default:
      return r[a.op](id);
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
    ["resume", "holder", 2, true, 0], // back to live
    ["deprecate", "holder", 1, true, 0],
    ["resume", "holder", 1, true, 0], // illegal: deprecated is terminal
  ] as const
).map(([op, actor, pick, approve, jump]) => ({ op, actor, pick, strategy: 0, approve, jump }));

describe("StrategyRegistryV3 transition table (property)", () => {
  it(`accepts exactly the moves the table allows (${RUNS} sequences: a fixed walk, then random ones)`, async function () {
    this.timeout(0);
    const reached = new Set<number>();
    let successes = 0;
    let failures = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(attemptArb, { minLength: 15, maxLength: 40 }), async (attempts) => {
        const { registry, holders, roleIds, ids, accounts } = await loadFixture(deployForProperty);
        const model: ModelStrategy[] = [];
        for (const id of ids) {
          const view = await registry.getStrategy(id);
          const votes = async (read: (voter: string) => Promise<bigint>, voters: HardhatEthersSigner[]) => {
            const map = new Map<string, boolean>();
            for (const v of voters) {
              const vote = await read(v.address);
              if (vote !== 0n) map.set(v.address, vote === 1n);
            }
            return map;
          };
          model.push({
            id,
            status: Number(view.status) as StatusValue,
            pausedFrom: Number(view.pausedFrom) as StatusValue,
            lastStatusChange: Number(view.lastStatusChange),
            guardianVotes: await votes((v) => registry.guardianVoteOf(id, v), holders.GUARDIAN),
            oracleVotes: await votes((v) => registry.oracleVoteOf(id, v), holders.ORACLE),
          });
        }
        for (const a of attempts) {
          const role = ROLE_OF[a.op];
          const signer = a.actor === "holder" ? holders[role][a.pick % holders[role].length] : accounts[a.actor];
          const hasRole = holders[role].some((h) => h.address === signer.address);
          const s = model[a.strategy];
          const now = (await time.latest()) + 1 + a.jump;
          await time.setNextBlockTimestamp(now);
          const expected = predict(s, a, signer.address, hasRole, roleIds[role], now);
          if (expected.ok) {
            await expect(send(registry, signer, a, s.id)).not.to.be.reverted;
            successes++;
            if (a.op === "guardianVote") s.guardianVotes.set(signer.address, a.approve);
            if (a.op === "oracleVote") s.oracleVotes.set(signer.address, a.approve);
            if (expected.to !== undefined) {
              if (expected.to === Status.Paused) s.pausedFrom = s.status;
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
          const onchain = await registry.getStrategy(s.id);
          expect(onchain.status).to.equal(BigInt(s.status));
          expect(onchain.pausedFrom).to.equal(BigInt(s.pausedFrom));
          expect(onchain.lastStatusChange).to.equal(BigInt(s.lastStatusChange));
          const count = (votes: Map<string, boolean>, v: boolean) => [...votes.values()].filter((x) => x === v).length;
          expect(onchain.guardianApprovals).to.equal(BigInt(count(s.guardianVotes, true)));
          expect(onchain.guardianRejections).to.equal(BigInt(count(s.guardianVotes, false)));
          expect(onchain.oracleApprovals).to.equal(BigInt(count(s.oracleVotes, true)));
          expect(onchain.oracleRejections).to.equal(BigInt(count(s.oracleVotes, false)));
        }
      }),
      { numRuns: RUNS, examples: [[WALK]] },
    );
    // The walk guarantees every state is reached at least once; random sequences add the rest.
    expect(successes).to.be.greaterThan(0);
    expect(failures).to.be.greaterThan(0);
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
    console.log(
      `      ${RUNS} sequences, ${successes} accepted and ${failures} refused attempts; ` +
        `states reached: ${[...reached].sort().join(", ")}`,
    );
  });
});
