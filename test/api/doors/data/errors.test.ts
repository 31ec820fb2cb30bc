import { expect } from "chai";
import {
  AuthenticationError,
  ConflictError,
  RateLimiterUnavailableError,
  StoreUnavailableError,
  ValidationError,
  invalidField,
} from "../../../../api/src/errors";
import { dataErrorAnswer, insufficientScope } from "../../../../api/src/doors/data/errors";
import { WsError } from "../../../../api/src/doors/ws/protocol";
import { TxRevertedError } from "../../../../api/src/tx/errors";

/**
 * The one error hierarchy as the data API renders it: a reason wins over the kind's code, the status follows the
 * code, and what the service did not raise on purpose is INTERNAL_ERROR with nothing of its internals.
 */
describe("data API error renderer", function () {
  it("names an error by its reason, with the status of that code", function () {
    expect(dataErrorAnswer(new ConflictError("full", { limit: 10 }, { reason: "KEY_LIMIT_REACHED" }))).to.deep.equal({
      status: 409,
      code: "KEY_LIMIT_REACHED",
      message: "full",
      details: { limit: 10 },
      headers: {},
    });
    expect(dataErrorAnswer(invalidField("expires_in_days", "must be at most 365"))).to.deep.equal({
      status: 400,
      code: "INVALID_EXPIRES_IN_DAYS",
      message: "expires_in_days: must be at most 365",
      details: { field: "expires_in_days" },
      headers: {},
    });
  });

  it("names an error without a reason by its kind", function () {
    expect(dataErrorAnswer(new ValidationError("body: malformed JSON")).code).to.equal("INVALID_BODY");
    const store = dataErrorAnswer(new StoreUnavailableError());
    expect([store.status, store.code, store.headers]).to.deep.equal([
      503,
      "SERVICE_UNAVAILABLE",
      { "Retry-After": "2" },
    ]);
    const limiter = dataErrorAnswer(new RateLimiterUnavailableError());
    expect([limiter.status, limiter.code]).to.deep.equal([503, "UNAVAILABLE"]);
  });

  it("challenges a refused credential (WWW-Authenticate), naming the missing scope", function () {
    expect(dataErrorAnswer(new AuthenticationError("unknown API key")).headers).to.deep.equal({
      "WWW-Authenticate": 'Bearer realm="nap-data"',
    });
    const scope = dataErrorAnswer(insufficientScope("this key lacks nodes:write", { required_scope: "nodes:write" }));
    expect([scope.status, scope.code, scope.headers]).to.deep.equal([
      401,
      "INSUFFICIENT_SCOPE",
      { "WWW-Authenticate": 'Bearer realm="nap-data", error="insufficient_scope", scope="nodes:write"' },
    ]);
  });

  it("leaks nothing of a transaction error or a bug: INTERNAL_ERROR, internal error", function () {
    const internal = { status: 500, code: "INTERNAL_ERROR", message: "internal error", details: {}, headers: {} };
    expect(dataErrorAnswer(new Error("connect ECONNREFUSED 10.0.0.5:8545"))).to.deep.equal(internal);
    expect(dataErrorAnswer(TxRevertedError.create(null, "Pausable: paused"))).to.deep.equal(internal);
  });

  it("renders a /ws refusal as one of the service's errors, its /ws code the reason", function () {
    const refusal = new WsError("SUBSCRIPTION_LIMIT_REACHED", "at most 20 subscriptions", { retryAfterSeconds: 3 });
    expect([refusal.code, refusal.reason, refusal.retryAfterSeconds]).to.deep.equal([
      "RATE_LIMITED",
      "SUBSCRIPTION_LIMIT_REACHED",
      3,
    ]);
    expect(refusal.toMessage()).to.deep.equal({
      type: "error",
      code: "SUBSCRIPTION_LIMIT_REACHED",
      message: "at most 20 subscriptions",
      retryAfterSeconds: 3,
    });
  });
});
