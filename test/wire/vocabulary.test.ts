import { expect } from "chai";
import { INTERVALS, PERIODS } from "../../packages/wire/src/data";
import { DATA_ERROR_STATUS, LIVE_ERROR_CODES } from "../../packages/wire/src/codes";
import { RISK_PARAMS, VAULT_IDS } from "../../packages/wire/src/live";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../../packages/wire/src/idempotency";
import { VAULT_IDS as DOMAIN_VAULT_IDS } from "../../api/src/domain/model";
import { RISK_PARAMS as DOMAIN_RISK_PARAMS } from "../../api/src/domain/strategyRules";
import { ERROR_CODES } from "../../api/src/errors";

/**
 * The wire package carries its own copy of the names a client sends (it needs nothing from the service): these
 * tests fail the moment the service's lists and the package's differ.
 */
describe("wire vocabulary against the service", () => {
  it("names the vaults the service knows, in its order", () => {
    expect([...VAULT_IDS]).to.deep.equal([...DOMAIN_VAULT_IDS]);
    expect([...VAULT_IDS]).to.deep.equal([
      "conservative",
      "moderate",
      "aggressive",
      "inverse",
      "hedged",
      "configurable",
    ]);
  });

  it("bounds and defaults each risk parameter as the service's domain does", () => {
    expect(RISK_PARAMS).to.deep.equal(DOMAIN_RISK_PARAMS);
  });

  it("lists the live API's error codes the service throws", () => {
    expect([...LIVE_ERROR_CODES]).to.deep.equal([...ERROR_CODES]);
  });

  it("gives each data API code its HTTP status", () => {
    expect(DATA_ERROR_STATUS.VAULT_NOT_FOUND).to.equal(404);
    expect(DATA_ERROR_STATUS.NOT_YET_INDEXED).to.equal(503);
    expect(DATA_ERROR_STATUS.PAYLOAD_TOO_LARGE).to.equal(413);
    expect(DATA_ERROR_STATUS.INSUFFICIENT_SCOPE).to.equal(401);
    expect(DATA_ERROR_STATUS.KEY_LIMIT_REACHED).to.equal(409);
    expect(Object.keys(DATA_ERROR_STATUS)).to.have.length(26);
  });

  it("keeps the history windows and the Idempotency-Key rule", () => {
    expect([...PERIODS]).to.deep.equal(["7d", "30d", "90d", "1y", "all"]);
    expect([...INTERVALS]).to.deep.equal(["1h", "4h", "1d", "1w"]);
    expect(IDEMPOTENCY_HEADER).to.equal("Idempotency-Key");
    expect(IDEMPOTENCY_KEY_PATTERN.test("a".repeat(255))).to.equal(true);
    expect(IDEMPOTENCY_KEY_PATTERN.test("a".repeat(256))).to.equal(false);
    expect(IDEMPOTENCY_KEY_PATTERN.test("with space")).to.equal(false);
  });
});
