import { expect } from "chai";
import { buildSchema, specifiedRules, validate, type ValidationRule } from "graphql";
import { DocumentCache } from "../../../../api/src/doors/graphql/documentCache";

describe("GraphQL document cache", function () {
  const schema = buildSchema(`type Query { a: Int b(n: Int): [Int] }`);

  it("parses a text once and answers the same document for it", function () {
    const cache = new DocumentCache();
    const first = cache.parse("{ a }");
    expect(cache.parse("{ a }")).to.equal(first);
    expect(cache.parse("{ b }")).to.not.equal(first);
  });

  it("keeps texts up to its size, dropping the oldest first, and keeps no text that does not parse", function () {
    const cache = new DocumentCache(12);
    const a = cache.parse("{ a }");
    const b = cache.parse("{ b }");
    cache.parse("{ a b }");
    expect(cache.parse("{ b }")).to.equal(b);
    expect(cache.parse("{ a }")).to.not.equal(a);
    expect(() => cache.parse("{ a")).to.throw("Syntax Error");
    expect(() => cache.parse("{ a")).to.throw("Syntax Error");
  });

  it("answers what graphql's validate answers, runs the standard rules once per document and the others every time", function () {
    const cache = new DocumentCache();
    let runs = 0;
    const counting: ValidationRule = () => ((runs += 1), {});
    const valid = cache.parse("{ a b(n: 2) }");
    for (let i = 0; i < 3; i++) expect(cache.validate(schema, valid, [...specifiedRules, counting])).to.deep.equal([]);
    expect(runs).to.equal(3);

    const invalid = cache.parse("{ c }");
    const errors = cache.validate(schema, invalid, [...specifiedRules, counting]);
    expect(errors.map((e) => e.message)).to.deep.equal(validate(schema, invalid, specifiedRules).map((e) => e.message));
    expect(errors.map((e) => e.message)).to.deep.equal([
      'Cannot query field "c" on type "Query". Did you mean "a" or "b"?',
    ]);
    // The standard rules' answer is kept: the same errors, not computed again.
    expect(cache.validate(schema, invalid, specifiedRules)).to.equal(errors);
  });
});
