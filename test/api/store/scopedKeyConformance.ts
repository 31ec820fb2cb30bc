import { expect } from "chai";
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { DuplicateKeyError } from "../../../api/src/errors";
import type { Stores } from "../../../api/src/store";
import type { ScopedKeyRecord } from "../../../api/src/usecases/custody/scopedKeys";

/**
 * The scoped keys' part of the store contract (memory and MongoDB): keys by hash, id and agent, revocation and last
 * use, and the daily USDC ledger, whose one rule (a reservation fits when spent + amount <= limit, a claim counts
 * once) must hold however many reservations race.
 */

let sequence = 0;

export function sampleScopedKey(overrides: Partial<ScopedKeyRecord> = {}): ScopedKeyRecord {
  sequence += 1;
  const agentId = overrides.agentId ?? randomUUID();
  const prefix = `nap-${sequence.toString(36).padStart(8, "0")}`;
  const created = new Date(Date.UTC(2026, 10, 26, 12, 0, sequence));
  return {
    keyId: `${agentId}:${prefix}`,
    agentId,
    keyHash: randomUUID().replace(/-/g, "").padEnd(64, "0"),
    keyPrefix: prefix,
    label: "research-llm",
    scope: { readOnly: false, operations: ["vault.deposit", "exit"], usdcPerDay: 25_000_000n },
    issuedBy: "full_key",
    createdAt: created,
    expiresAt: new Date(created.getTime() + 30 * 86_400_000),
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

export function scopedKeyConformance(current: () => Stores): void {
  describe("scoped keys", function () {
    it("returns an inserted key by hash and id with every field intact; a read-only key keeps a null limit", async function () {
      const store = current();
      const key = sampleScopedKey();
      const readOnly = sampleScopedKey({ scope: { readOnly: true, operations: [], usdcPerDay: null }, label: null });
      await store.scopedKeys.insert(key);
      await store.scopedKeys.insert(readOnly);
      expect(await store.scopedKeys.findByHash(key.keyHash)).to.deep.equal(key);
      expect(await store.scopedKeys.findById(key.keyId)).to.deep.equal(key);
      expect(await store.scopedKeys.findById(readOnly.keyId)).to.deep.equal(readOnly);
      expect(await store.scopedKeys.findByHash("f".repeat(64))).to.equal(null);
    });

    it("refuses a second key with the same id or hash (DuplicateKeyError naming which)", async function () {
      const store = current();
      const key = sampleScopedKey();
      await store.scopedKeys.insert(key);
      const sameId = sampleScopedKey({ keyId: key.keyId });
      const sameHash = sampleScopedKey({ keyHash: key.keyHash });
      for (const [record, field] of [
        [sameId, "keyId"],
        [sameHash, "keyHash"],
      ] as const) {
        const error = await store.scopedKeys.insert(record).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(error).to.be.instanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).field).to.equal(field);
      }
    });

    it("lists an agent's keys newest first, revoked ones included, and no other agent's", async function () {
      const store = current();
      const agentId = randomUUID();
      const first = sampleScopedKey({ agentId });
      const second = sampleScopedKey({ agentId });
      await store.scopedKeys.insert(first);
      await store.scopedKeys.insert(second);
      await store.scopedKeys.insert(sampleScopedKey());
      await store.scopedKeys.revoke(first.keyId, new Date(Date.UTC(2026, 10, 27)));
      const listed = await store.scopedKeys.listByAgent(agentId);
      expect(listed.map((key) => key.keyId)).to.deep.equal([second.keyId, first.keyId]);
      expect(listed[1].revokedAt).to.deep.equal(new Date(Date.UTC(2026, 10, 27)));
    });

    it("keeps the first revocation time, and records a later use only", async function () {
      const store = current();
      const key = sampleScopedKey();
      await store.scopedKeys.insert(key);
      const first = new Date(Date.UTC(2026, 10, 27, 1));
      expect((await store.scopedKeys.revoke(key.keyId, first))?.revokedAt).to.deep.equal(first);
      expect((await store.scopedKeys.revoke(key.keyId, new Date(Date.UTC(2026, 10, 28))))?.revokedAt).to.deep.equal(
        first,
      );
      expect(await store.scopedKeys.revoke("nobody:nap-00000000", first)).to.equal(null);
      const used = new Date(Date.UTC(2026, 10, 27, 2));
      await store.scopedKeys.touch(key.keyId, used);
      await store.scopedKeys.touch(key.keyId, new Date(Date.UTC(2026, 10, 27, 1)));
      expect((await store.scopedKeys.findById(key.keyId))?.lastUsedAt).to.deep.equal(used);
    });

    it("reserves USDC while spent + amount <= limit, per key and UTC day; a claim is counted once", async function () {
      const store = current();
      const keyId = `${randomUUID()}:nap-aaaaaaaa`;
      const reserve = (claim: string, amount: bigint, day = "2026-11-26") =>
        store.scopedKeys.reserveUsdc({ keyId, day, claim, amount, limit: 3_000_000n });
      expect(await reserve("a", 2_000_000n)).to.deep.equal({ reserved: true, spent: 2_000_000n });
      expect(await reserve("a", 2_000_000n)).to.deep.equal({ reserved: true, spent: 2_000_000n });
      expect(await reserve("b", 1_000_001n)).to.deep.equal({ reserved: false, spent: 2_000_000n });
      expect(await reserve("c", 1_000_000n)).to.deep.equal({ reserved: true, spent: 3_000_000n });
      expect(await reserve("d", 1n)).to.deep.equal({ reserved: false, spent: 3_000_000n });
      expect(await reserve("d", 1n, "2026-11-27")).to.deep.equal({ reserved: true, spent: 1n });
      expect(await store.scopedKeys.spentOn(keyId, "2026-11-26")).to.equal(3_000_000n);
      expect(await store.scopedKeys.spentOn(keyId, "2026-11-27")).to.equal(1n);
      expect(await store.scopedKeys.spentOn(`${randomUUID()}:nap-aaaaaaaa`, "2026-11-26")).to.equal(0n);
    });

    it("property: racing reservations never exceed the limit, and what is spent is the sum of those reserved", async function () {
      this.timeout(120_000);
      const store = current();
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 0n, max: 10_000_000n }),
          fc.array(
            fc.record({
              amount: fc.bigInt({ min: 1n, max: 4_000_000n }),
              claim: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"),
            }),
            { minLength: 1, maxLength: 12 },
          ),
          async (limit, requests) => {
            const keyId = `${randomUUID()}:nap-bbbbbbbb`;
            const day = "2026-11-26";
            // All at once: every reservation reads the ledger before the others have written.
            const results = await Promise.all(
              requests.map(({ amount, claim }) => store.scopedKeys.reserveUsdc({ keyId, day, claim, amount, limit })),
            );
            const spent = await store.scopedKeys.spentOn(keyId, day);
            expect(spent <= limit, `spent ${spent} over the limit ${limit}`).to.equal(true);
            // Each refusal saw a total that left no room for its amount.
            results.forEach((result, i) => {
              if (!result.reserved) expect(result.spent + requests[i].amount > limit).to.equal(true);
            });
            // The total is one granted amount per granted claim: a claim (one request's Idempotency-Key) counts once.
            const perClaim = new Map<string, bigint[]>();
            requests.forEach(({ claim, amount }, i) => {
              if (results[i].reserved) perClaim.set(claim, [...(perClaim.get(claim) ?? []), amount]);
            });
            const possible = [...perClaim.values()].reduce<bigint[]>(
              (sums, amounts) => sums.flatMap((sum) => amounts.map((amount) => sum + amount)),
              [0n],
            );
            expect(possible, `spent ${spent}`).to.include(spent);
          },
        ),
        { numRuns: 25 },
      );
    });
  });
}
