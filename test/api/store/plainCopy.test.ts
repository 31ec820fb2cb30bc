import { expect } from "chai";
import fc from "fast-check";
import { plainCopy } from "../../../api/src/store/memory/plainCopy";

/** A value with its structure spelled out: key order, Dates by time, -0 apart from 0 (deep.equal alone checks none). */
function spelled(value: unknown): unknown {
  if (value instanceof Date) return { date: value.getTime() };
  if (Array.isArray(value)) return { array: value.map(spelled) };
  if (typeof value === "object" && value !== null) {
    return {
      prototype: Object.getPrototypeOf(value) === Object.prototype ? "Object" : "other",
      entries: Object.keys(value).map((key) => [key, spelled((value as Record<string, unknown>)[key])]),
    };
  }
  if (Object.is(value, -0)) return { negativeZero: true };
  return { [typeof value]: value };
}

/** Every object and array inside `value` (itself included). */
function objectsOf(value: unknown, into: object[] = []): object[] {
  if (typeof value !== "object" || value === null) return into;
  into.push(value);
  for (const inner of Object.values(value)) objectsOf(inner, into);
  return into;
}

/** Trees of what the read model's records hold: JSON values, bigints, undefined and Dates at any depth. */
const { tree } = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.date(),
  ),
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    fc.array(tie("tree"), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "0", "10", "constructor")), tie("tree"), {
      maxKeys: 5,
    }),
  ),
}));

describe("plainCopy (the memory read model's copy)", function () {
  it("gives what structuredClone gives for any record tree, and shares no object with the original", function () {
    fc.assert(
      fc.property(tree, (value) => {
        const copied = plainCopy(value);
        expect(spelled(copied)).to.deep.equal(spelled(structuredClone(value)));
        const originals = new Set(objectsOf(value));
        expect(objectsOf(copied).filter((inner) => originals.has(inner))).to.deep.equal([]);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps an own __proto__ key as a key, as structuredClone does", function () {
    const record = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copied = plainCopy(record);
    expect(Object.keys(copied)).to.deep.equal(["__proto__", "a"]);
    expect(Object.getPrototypeOf(copied)).to.equal(Object.prototype);
    expect((copied as { polluted?: boolean }).polluted).to.equal(undefined);
  });

  it("refuses objects that are not plain records instead of copying them into something else", function () {
    expect(() => plainCopy({ positions: new Map([["a", 1]]) })).to.throw(TypeError, "only plain records are copied");
    expect(() => plainCopy([new Set([1])])).to.throw(TypeError, "only plain records are copied");
  });
});
