import { expect } from "chai";
import { ConflictError } from "../../../api/src/errors";
import { createMemoryStore } from "../../../api/src/store/memory";
import { NodeRegistry } from "../../../api/src/usecases/nodes";

/** External node heartbeats as a use case: a node id belongs to its registrant, and its start time is kept. */
describe("usecases/nodes: external node heartbeats", function () {
  const T0 = new Date("2026-06-01T12:00:00Z");

  it("keeps the first heartbeat's start time across later beats", async function () {
    let now = T0;
    const registry = new NodeRegistry(createMemoryStore().nodes, () => now);
    await registry.heartbeat("operator:acme", { nodeId: "node-1", version: "1.0.0", url: null });
    now = new Date(T0.getTime() + 15_000);
    const { record } = await registry.heartbeat("operator:acme", { nodeId: "node-1", version: "1.0.1", url: null });
    expect(record).to.deep.equal({
      nodeId: "node-1",
      role: "external",
      version: "1.0.1",
      url: null,
      startedAt: T0,
      lastHeartbeatAt: now,
      registeredBy: "operator:acme",
    });
    expect((await registry.list()).nodes).to.have.length(1);
  });

  it("node id takeover: another registrant's id is refused as CONFLICT NODE_ID_TAKEN", async function () {
    const registry = new NodeRegistry(createMemoryStore().nodes, () => T0);
    await registry.heartbeat("operator:acme", { nodeId: "node-1", version: "1.0.0", url: null });
    const thrown = await registry
      .heartbeat("operator:mallory", { nodeId: "node-1", version: "6.6.6", url: "https://evil.example" })
      .catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(ConflictError);
    expect((thrown as ConflictError).reason).to.equal("NODE_ID_TAKEN");
    expect((thrown as ConflictError).details).to.deep.equal({ node_id: "node-1" });
    const [kept] = (await registry.list()).nodes;
    expect([kept.registeredBy, kept.version]).to.deep.equal(["operator:acme", "1.0.0"]);
  });
});
