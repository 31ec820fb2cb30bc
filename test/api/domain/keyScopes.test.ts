import { expect } from "chai";
import fc from "fast-check";
import {
  fitsDailyLimit,
  KEY_OPERATIONS,
  nextUtcMidnight,
  scopeAllows,
  utcDay,
  type KeyScope,
} from "../../../api/src/domain/keyScopes";
import { keyOperationSchema } from "../../../packages/wire/src/live";

const scope = (operations: KeyScope["operations"], readOnly = false): KeyScope => ({
  readOnly,
  operations,
  usdcPerDay: null,
});

describe("Scoped keys: what a scope allows and when a day's limit resets", function () {
  it("a read-only scope reaches reads only; no scope reaches a full-key route", function () {
    const readOnly = scope([], true);
    expect(scopeAllows(readOnly, "read")).to.equal(true);
    for (const operation of KEY_OPERATIONS) expect(scopeAllows(readOnly, operation), operation).to.equal(false);
    expect(scopeAllows(scope([...KEY_OPERATIONS]), "full_key")).to.equal(false);
  });

  it("property: an operation scope reaches reads and exactly the operations it names", function () {
    fc.assert(
      fc.property(fc.subarray([...KEY_OPERATIONS]), fc.constantFrom(...KEY_OPERATIONS), (named, operation) => {
        expect(scopeAllows(scope(named), operation)).to.equal(named.includes(operation));
        expect(scopeAllows(scope(named), "read")).to.equal(true);
      }),
    );
  });

  it("attack: an operation name in another letter case, padded or with a wildcard is no operation", function () {
    for (const name of ["Vault.Deposit", "VAULT.DEPOSIT", " vault.deposit", "vault.*", "*", "vault.deposit "]) {
      expect(keyOperationSchema.safeParse(name).success, name).to.equal(false);
    }
    for (const name of KEY_OPERATIONS) expect(keyOperationSchema.parse(name)).to.equal(name);
  });

  it("property: a reservation fits exactly when spent + amount <= limit", function () {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        (spent, amount, limit) => {
          expect(fitsDailyLimit(spent, amount, limit)).to.equal(spent + amount <= limit);
        },
      ),
    );
  });

  it("the UTC day and the next 00:00 UTC, across a month's and a year's end", function () {
    expect(utcDay(new Date("2026-11-26T23:59:59.999Z"))).to.equal("2026-11-26");
    expect(nextUtcMidnight(new Date("2026-11-26T23:59:59.999Z")).toISOString()).to.equal("2026-11-27T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2026-11-30T00:00:00.000Z")).toISOString()).to.equal("2026-12-01T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2026-12-31T12:00:00.000Z")).toISOString()).to.equal("2027-01-01T00:00:00.000Z");
  });
});
