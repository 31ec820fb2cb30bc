import { expect } from "chai";
import { AgentService } from "../../../api/src/usecases/agents";
import { performanceScore } from "../../../api/src/domain/performance";
import { earnedTier, promotedTier, tierAtLeast } from "../../../api/src/domain/tiers";
import { createMemoryStore } from "../../../api/src/store/memory";
import { sampleAgent } from "../store/conformance";

describe("tiers and performance score", function () {
  it("earns tiers at the documented thresholds", function () {
    expect(earnedTier({ strategiesSubmitted: 0, strategiesPassedScreening: 0 })).to.equal("unverified");
    expect(earnedTier({ strategiesSubmitted: 1, strategiesPassedScreening: 0 })).to.equal("registered");
    expect(earnedTier({ strategiesSubmitted: 3, strategiesPassedScreening: 2 })).to.equal("registered");
    expect(earnedTier({ strategiesSubmitted: 3, strategiesPassedScreening: 3 })).to.equal("established");
    expect(earnedTier({ strategiesSubmitted: 10, strategiesPassedScreening: 9 })).to.equal("established");
    expect(earnedTier({ strategiesSubmitted: 10, strategiesPassedScreening: 10 })).to.equal("core_contributor");
  });

  it("never lowers a tier automatically", function () {
    expect(promotedTier("core_contributor", { strategiesSubmitted: 0, strategiesPassedScreening: 0 })).to.equal(
      "core_contributor",
    );
    expect(promotedTier("registered", { strategiesSubmitted: 5, strategiesPassedScreening: 4 })).to.equal(
      "established",
    );
  });

  it("orders tiers", function () {
    expect(tierAtLeast("established", "established")).to.equal(true);
    expect(tierAtLeast("core_contributor", "established")).to.equal(true);
    expect(tierAtLeast("registered", "established")).to.equal(false);
  });

  it("scores 10 per strategy that passed screening plus submissions capped at 20", function () {
    expect(performanceScore({ strategiesSubmitted: 0, strategiesPassedScreening: 0 })).to.equal(0);
    expect(performanceScore({ strategiesSubmitted: 5, strategiesPassedScreening: 2 })).to.equal(25);
    expect(performanceScore({ strategiesSubmitted: 500, strategiesPassedScreening: 0 })).to.equal(20);
    expect(performanceScore({ strategiesSubmitted: 500, strategiesPassedScreening: 3 })).to.equal(50);
  });

  it("promotes through recorded activity and keeps score, tier and statistics in step", async function () {
    const store = createMemoryStore();
    const agents = new AgentService(store.agents, () => new Date(Date.UTC(2026, 10, 22)));
    const agent = sampleAgent();
    await store.agents.insert(agent);
    let updated = await agents.recordActivity(agent.agentId, { strategiesSubmitted: 1 });
    expect([updated.tier, updated.performanceScore]).to.deep.equal(["registered", 1]);
    updated = await agents.recordActivity(agent.agentId, { strategiesSubmitted: 2, strategiesPassedScreening: 3 });
    expect([updated.tier, updated.performanceScore]).to.deep.equal(["established", 33]);
    updated = await agents.recordActivity(agent.agentId, { depositsMicroUsdc: 2_500_000n });
    expect(updated.tier).to.equal("established");
    expect((await agents.stats()).depositsMicroUsdc).to.equal(2_500_000n);
    const demoted = await agents.grantTier(agent.agentId, "unverified", "operator:1");
    expect(demoted.tier).to.equal("unverified");
    // The next activity re-earns what the counters justify.
    updated = await agents.recordActivity(agent.agentId, { strategiesSubmitted: 1 });
    expect(updated.tier).to.equal("established");
  });
});
