import { expect } from "chai";
import { registerAgent, request } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { client, startE2eApp, type E2eSystem } from "./helpers";

/** The spec's limits on the onchain endpoints: 10/min/key on writes, 5/min/key on the faucet, 60/min/IP public. */
describe("E2E: rate limits of the onchain endpoints", function () {
  this.timeout(120_000);
  let system: E2eSystem;

  before(async function () {
    system = await startE2eApp("limits", await deployTestSystem(), { RATE_LIMITS_DISABLED: "false" });
  });
  after(async function () {
    await system?.close();
  });

  it("allows 10 writes per minute per key over submit, deposit and vote together, then 429", async function () {
    const { apiKey } = await registerAgent(system.app.url);
    const call = client(system.app.url, apiKey);
    // Invalid bodies: the limit counts before validation, and nothing reaches the chain.
    for (let i = 0; i < 4; i++) expect((await call("POST", "/api/v1/agent/strategy/submit", {})).status).to.equal(400);
    for (let i = 0; i < 6; i++) expect((await call("POST", "/api/v1/agent/vault/deposit", {})).status).to.equal(400);
    const limited = await call("POST", "/api/v1/agent/strategy/submit", {});
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get("retry-after"))).to.be.within(1, 60);
    expect(limited.body.error).to.match(/^rate limit exceeded: 10 requests per minute/);
    // Reads have their own budget.
    expect((await call("GET", "/api/v1/agent/strategy/list")).status).to.equal(200);
  });

  it("allows 5 faucet requests per minute per key, then 429", async function () {
    const { apiKey } = await registerAgent(system.app.url);
    const call = client(system.app.url, apiKey);
    const responses = [];
    for (let i = 0; i < 6; i++) responses.push(await call("POST", "/api/v1/agent/faucet"));
    // The first drips, the next four meet the cooldown, the sixth the limit.
    expect(responses.map((r) => r.status)).to.deep.equal([200, 429, 429, 429, 429, 429]);
    for (const cooldown of responses.slice(1, 5)) expect(cooldown.body.success).to.equal(false);
    expect(responses[5].body.error).to.match(/^rate limit exceeded: 5 requests per minute/);
  });

  it("counts the public lookups in the 60 per minute per IP budget", async function () {
    // Two registrations above used 4 requests of this IP's budget (nonce + register each).
    const statuses: number[] = [];
    for (let i = 0; i < 57; i++) {
      const path = i % 2 === 0 ? "/api/v1/positions" : "/api/v1/nfts";
      statuses.push((await request(system.app.url, "POST", path, { body: { wallet_address: "0x1" } })).status);
    }
    expect(statuses.slice(0, 56).every((s) => s === 400)).to.equal(true);
    expect(statuses[56]).to.equal(429);
  });
});
