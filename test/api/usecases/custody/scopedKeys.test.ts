import { expect } from "chai";
import { AuthenticationError, ConflictError, PermissionError } from "../../../../api/src/errors";
import { createMemoryStore, type MemoryStore } from "../../../../api/src/store/memory";
import { AgentService } from "../../../../api/src/usecases/agents";
import {
  MAX_LIVE_SCOPED_KEYS,
  ScopedKeys,
  type ScopedKeyRequest,
} from "../../../../api/src/usecases/custody/scopedKeys";
import { SignedNonces } from "../../../../api/src/usecases/custody/signedNonces";
import { sampleAgent } from "../../store/conformance";

const DAY = 86_400;
const depositKey: ScopedKeyRequest = {
  label: "llm",
  scope: { readOnly: false, operations: ["vault.deposit"], usdcPerDay: 5_000_000n },
  lifetimeSeconds: 30 * DAY,
};

/** Scoped keys against the memory store with a clock the test moves: the UTC day's reset, expiry, the key cap. */
describe("Scoped keys: the daily reset, expiry and the cap, on a clock the test sets", function () {
  let now: Date;
  let store: MemoryStore;
  let keys: ScopedKeys;
  const agent = sampleAgent();

  beforeEach(async function () {
    now = new Date("2026-11-26T23:59:59.000Z");
    store = createMemoryStore();
    const clock = () => now;
    await store.agents.insert(agent);
    const agents = new AgentService(store.agents, clock, 0);
    const signed = new SignedNonces(
      store.nonces,
      { domain: "api.nap.test", uri: "http://api.nap.test", chainId: 31337 },
      async () => false,
      clock,
    );
    keys = new ScopedKeys(store.scopedKeys, agents, signed, clock);
  });

  async function refusal(action: Promise<unknown>): Promise<Error> {
    const error = await action.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error, "refused").to.be.instanceOf(Error);
    return error as Error;
  }

  it("the limit counts per UTC day: what was spent at 23:59:59 leaves the next day whole; the 403 names the reset", async function () {
    const { record } = await keys.issue(agent, depositKey);
    await keys.reserveUsdc(record, 5_000_000n, "vault.deposit:a");
    const over = await refusal(keys.reserveUsdc(record, 1n, "vault.deposit:b"));
    expect(over).to.be.instanceOf(PermissionError);
    expect(over.message).to.equal(
      `usdc_per_day: the scoped key ${record.keyPrefix} may move 5000000 USDC base units (5 USDC) out of the agent's ` +
        "wallet per UTC day; spent today: 5000000 (5 USDC); this request needs 1 (0.000001 USDC); the limit resets " +
        "at 2026-11-27T00:00:00.000Z. To raise it, issue a key with a higher usdc_per_day: POST /api/v1/agent/keys " +
        "with the full key, or by the agent's wallet signature (POST /api/v1/agents/{agent_id}/keys/nonce, then POST " +
        "/api/v1/agents/{agent_id}/keys)",
    );
    expect((over as PermissionError).details).to.deep.equal({
      api_key_prefix: record.keyPrefix,
      usdc_per_day: "5000000",
      spent_today: "5000000",
      needed: "1",
      resets_at: "2026-11-27T00:00:00.000Z",
    });
    now = new Date("2026-11-27T00:00:00.000Z");
    await keys.reserveUsdc(record, 5_000_000n, "vault.deposit:b");
    expect(await store.scopedKeys.spentOn(record.keyId, "2026-11-26")).to.equal(5_000_000n);
    expect(await store.scopedKeys.spentOn(record.keyId, "2026-11-27")).to.equal(5_000_000n);
  });

  it("a key without usdc_per_day reserves nothing", async function () {
    const { record } = await keys.issue(agent, { ...depositKey, scope: { ...depositKey.scope, usdcPerDay: null } });
    await keys.reserveUsdc(record, 10n ** 15n, "vault.deposit:a");
    expect(await store.scopedKeys.spentOn(record.keyId, "2026-11-26")).to.equal(0n);
  });

  it("a key works until its expires_at, then answers 401 naming the moment; the list shows it expired", async function () {
    const { record, apiKey } = await keys.issue(agent, { ...depositKey, lifetimeSeconds: 60 });
    expect(record.expiresAt.toISOString()).to.equal("2026-11-27T00:00:59.000Z");
    now = new Date("2026-11-27T00:00:58.999Z");
    expect((await keys.authenticate(apiKey))?.key.keyId).to.equal(record.keyId);
    now = new Date("2026-11-27T00:00:59.000Z");
    const expired = await refusal(keys.authenticate(apiKey));
    expect(expired).to.be.instanceOf(AuthenticationError);
    expect(expired.message).to.equal(
      `API key ${record.keyPrefix} expired at 2026-11-27T00:00:59.000Z; issue a new scoped key: POST ` +
        "/api/v1/agent/keys with the full key",
    );
    expect(keys.stateOf(record)).to.equal("expired");
    expect(await keys.authenticate("nap-" + "0".repeat(32))).to.equal(null);
  });

  it(`an agent holds at most ${MAX_LIVE_SCOPED_KEYS} live scoped keys; revoked and expired ones leave room`, async function () {
    const issued = [];
    for (let i = 0; i < MAX_LIVE_SCOPED_KEYS; i++) issued.push(await keys.issue(agent, depositKey));
    const full = await refusal(keys.issue(agent, depositKey));
    expect(full).to.be.instanceOf(ConflictError);
    expect(full.message).to.equal(
      `the agent holds ${MAX_LIVE_SCOPED_KEYS} live scoped keys, the most allowed (${MAX_LIVE_SCOPED_KEYS}); revoke ` +
        "one first: DELETE /api/v1/agent/keys/{prefix}",
    );
    await keys.revoke(agent, issued[0].record.keyPrefix);
    await keys.issue(agent, { ...depositKey, lifetimeSeconds: 60 });
    now = new Date(now.getTime() + 60_000);
    await keys.issue(agent, depositKey);
    expect((await keys.list(agent.agentId)).length).to.equal(MAX_LIVE_SCOPED_KEYS + 2);
  });
});
