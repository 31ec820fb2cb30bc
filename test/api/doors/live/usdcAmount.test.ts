import { expect } from "chai";
import fc from "fast-check";
import { usdcAmountSchema } from "../../../../packages/wire/src/live";

/** `amount_usdc`: whole USDC as a JSON number, greater than 0, at most 6 decimals; parsed to exact 6-decimal units. */
describe("USDC amounts (amount_usdc)", function () {
  it("refuses 5e-324: positive, but no whole unit (schemathesis deposited 0 with it)", function () {
    const result = usdcAmountSchema.safeParse(5e-324);
    expect(result.success).to.equal(false);
    expect(result.error?.issues.map((issue) => issue.message)).to.deep.equal([
      "must be a number of USDC with at most 6 decimal places",
    ]);
  });

  it("refuses amounts not above 0 with one reason", function () {
    for (const value of [0, -1]) {
      const result = usdcAmountSchema.safeParse(value);
      expect(result.error?.issues, String(value)).to.have.length(1);
    }
  });

  it("refuses more than 6 decimals, float noise included, and amounts not above 0", function () {
    for (const value of [1e-7, 0.0000015, 1.0000001, 0.30000000000000004, 0, -1, 1e12 + 1]) {
      expect(usdcAmountSchema.safeParse(value).success, String(value)).to.equal(false);
    }
  });

  it("accepts what JSON writes for 6-decimal amounts and parses them exactly", function () {
    const cases: Array<[number, bigint]> = [
      [0.000001, 1n],
      [0.3, 300_000n],
      [100.5, 100_500_000n],
      [123456.654321, 123_456_654_321n],
      [1e12, 1_000_000_000_000_000_000n],
    ];
    for (const [value, units] of cases) expect(usdcAmountSchema.parse(value), String(value)).to.equal(units);
  });

  it("parses every amount of at most 6 decimals, as JSON gives it, to its units (property)", function () {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), (units) => {
        const text = `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`;
        expect(usdcAmountSchema.parse(JSON.parse(text))).to.equal(units);
      }),
      { numRuns: 2000 },
    );
  });
});
