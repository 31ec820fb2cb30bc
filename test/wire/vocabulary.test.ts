import { expect } from "chai";
import { INTERVALS, PERIODS } from "../../packages/wire/src/data";
import { DATA_ERROR_STATUS, LIVE_ERROR_CODES } from "../../packages/wire/src/codes";
import * as wireData from "../../packages/wire/src/data";
import * as live from "../../packages/wire/src/live";
import { RISK_PARAMS, VAULT_IDS } from "../../packages/wire/src/live";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../../packages/wire/src/idempotency";
import * as model from "../../api/src/domain/model";
import * as strategyRules from "../../api/src/domain/strategyRules";
import { DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS } from "../../api/src/usecases/dataKeys/keys";
import { DEFAULT_SCOPES, SCOPES } from "../../api/src/usecases/dataKeys/scopes";
import { NONCE_TTL_SECONDS } from "../../api/src/usecases/registration";
import { ERROR_CODES } from "../../api/src/errors";

/**
 * The names, value sets and bounds are defined once, in the wire package (which needs nothing from the service), and
 * the service's domain and use cases take them from it: these tests fail the moment either side holds its own copy.
 */
describe("wire vocabulary against the service", () => {
  it("is the very list the service's domain uses, not a copy", () => {
    for (const name of [
      "VAULT_IDS",
      "TIERS",
      "AGENT_TYPES",
      "AGENT_STATUSES",
      "STRATEGY_STATUSES",
      "PROPOSAL_STATES",
      "MILESTONES",
      "VOTE_SUPPORT",
    ] as const) {
      expect(model[name], name).to.equal(live[name]);
    }
    expect(strategyRules.RISK_PARAMS).to.equal(live.RISK_PARAMS);
    expect(strategyRules.TEXT_BYTES).to.equal(live.TEXT_BYTES);
    expect(NONCE_TTL_SECONDS).to.equal(live.NONCE_TTL_SECONDS);
    expect(SCOPES).to.equal(wireData.SCOPES);
    expect(DEFAULT_SCOPES).to.equal(wireData.DEFAULT_SCOPES);
    expect(DEFAULT_KEY_LIFETIME_DAYS).to.equal(wireData.DEFAULT_KEY_LIFETIME_DAYS);
    expect(MAX_KEY_LIFETIME_DAYS).to.equal(wireData.MAX_KEY_LIFETIME_DAYS);
  });

  it("names the vaults the service knows, in its order", () => {
    expect([...VAULT_IDS]).to.deep.equal([
      "conservative",
      "moderate",
      "aggressive",
      "inverse",
      "hedged",
      "configurable",
    ]);
  });

  it("bounds and defaults each risk parameter as the registry and the spec do", () => {
    expect(RISK_PARAMS).to.deep.equal({
      max_position_size_percent: { min: 1, max: 100, fallback: 10, description: "percent of AUM" },
      max_leverage: { min: 100, max: 1000, fallback: 200, description: "100 = 1x" },
      stop_loss_percent: { min: 50, max: 5000, fallback: 500, description: "basis points" },
      slippage_tolerance_bps: { min: 1, max: 1000, fallback: 100, description: "basis points" },
      correlation_threshold: { min: 0, max: 100, fallback: 70, description: "70 = 0.7" },
      velocity_limit: {
        min: 1000,
        max: 9007199254740991,
        fallback: 1000000,
        description: "max capital movement per period, USDC base units",
      },
    });
    expect(live.TEXT_BYTES).to.deep.equal({ name: { min: 3, max: 100 }, description: { min: 10, max: 2000 } });
  });

  it("lists the tiers, agent types and lifecycle states in the order the service and the contracts use", () => {
    expect([...live.TIERS]).to.deep.equal(["unverified", "registered", "established", "core_contributor"]);
    expect([...live.AGENT_TYPES]).to.deep.equal([
      "trading",
      "governance",
      "analytics",
      "custom",
      "quant",
      "cfo",
      "research",
    ]);
    expect([...live.AGENT_STATUSES]).to.deep.equal(["active", "suspended"]);
    expect([...live.STRATEGY_STATUSES]).to.deep.equal([
      "shadow",
      "guardian_review",
      "paper_trading",
      "pending_oracle_approval",
      "live",
      "paused",
      "deprecated",
    ]);
    expect([...live.PROPOSAL_STATES]).to.deep.equal([
      "pending",
      "active",
      "canceled",
      "defeated",
      "succeeded",
      "queued",
      "expired",
      "executed",
    ]);
    expect([...live.MILESTONES]).to.deep.equal(["registered", "established", "core_contributor"]);
    expect([...live.VOTE_SUPPORT]).to.deep.equal(["against", "for", "abstain"]);
    expect(live.CAMPAIGN_ID).to.equal("nap-galaxy-season-1");
    expect([...live.CAMPAIGN_CRITERIA]).to.deep.equal([
      "registered",
      "tier_registered",
      "strategy_submitted",
      "vault_deposit",
    ]);
    expect(live.NONCE_TTL_SECONDS).to.equal(600);
  });

  it("gives data keys their scopes, default scopes and lifetimes", () => {
    expect([...wireData.SCOPES]).to.deep.equal([
      "vaults:read",
      "vaults:write",
      "users:read",
      "nodes:read",
      "nodes:write",
      "keys:manage",
    ]);
    expect([...wireData.DEFAULT_SCOPES]).to.deep.equal(["vaults:read", "users:read", "nodes:read"]);
    expect(wireData.DEFAULT_KEY_LIFETIME_DAYS).to.equal(90);
    expect(wireData.MAX_KEY_LIFETIME_DAYS).to.equal(365);
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
    // The signed writes' codes (issue 30).
    expect(DATA_ERROR_STATUS.SIGNATURE_EXPIRED).to.equal(400);
    expect(DATA_ERROR_STATUS.INVALID_SIGNATURE).to.equal(400);
    expect(DATA_ERROR_STATUS.NONCE_USED).to.equal(409);
    expect(DATA_ERROR_STATUS.INSUFFICIENT_BALANCE).to.equal(400);
    expect(DATA_ERROR_STATUS.INSUFFICIENT_ALLOWANCE).to.equal(400);
    expect(DATA_ERROR_STATUS.RELAY_NOT_FOUND).to.equal(404);
    expect(DATA_ERROR_STATUS.IDEMPOTENCY_KEY_REUSED).to.equal(409);
    expect(Object.keys(DATA_ERROR_STATUS)).to.have.length(38);
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
