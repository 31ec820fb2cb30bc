import { expect } from "chai";
import { DuplicateKeyError } from "../../../api/src/errors";
import type { DataKeyRecord } from "../../../api/src/usecases/dataKeys/keys";
import type { NodeRecord } from "../../../api/src/usecases/nodes";
import type { Stores } from "../../../api/src/store";

/** The data API access layer's stores (data keys, nodes): part of the conformance suite every adapter passes. */

let sequence = 0;

export function sampleDataKey(overrides: Partial<DataKeyRecord> = {}): DataKeyRecord {
  sequence += 1;
  const created = new Date(Date.UTC(2026, 2, 1, 0, 0, sequence));
  return {
    keyId: `dk_${sequence.toString(16).padStart(16, "0")}`,
    keyHash: sequence.toString(16).padStart(64, "a"),
    keyPrefix: "napd-abcdefg",
    owner: "agent:one",
    name: `key ${sequence}`,
    tier: "authenticated",
    scopes: ["vaults:read", "users:read"],
    issuedBy: "agent:one",
    createdAt: created,
    expiresAt: new Date(created.getTime() + 86_400_000),
    ...overrides,
  };
}

function sampleNode(overrides: Partial<NodeRecord> = {}): NodeRecord {
  return {
    nodeId: "node-a",
    role: "api",
    version: "0.1.0",
    url: "http://a.nap.test",
    startedAt: new Date(Date.UTC(2026, 2, 1)),
    lastHeartbeatAt: new Date(Date.UTC(2026, 2, 1, 0, 0, 15)),
    registeredBy: "self",
    ...overrides,
  };
}

export function dataAccessConformance(current: () => Stores): void {
  describe("data keys", function () {
    it("finds an inserted key by hash and by id with every field intact, and only by its hash", async function () {
      const store = current();
      const key = sampleDataKey({ tier: "node_operator", scopes: ["nodes:write"] });
      await store.dataKeys.insert(key);
      expect(await store.dataKeys.findByHash(key.keyHash)).to.deep.equal(key);
      expect(await store.dataKeys.findById(key.keyId)).to.deep.equal(key);
      expect(await store.dataKeys.findByHash("f".repeat(64))).to.equal(null);
      expect(await store.dataKeys.findById("dk_ffffffffffffffff")).to.equal(null);
    });

    it("refuses a second key with the same id or the same hash", async function () {
      const store = current();
      const key = sampleDataKey();
      await store.dataKeys.insert(key);
      const sameId = await store.dataKeys.insert(sampleDataKey({ keyId: key.keyId })).catch((e: unknown) => e);
      expect(sameId).to.be.instanceOf(DuplicateKeyError);
      expect((sameId as DuplicateKeyError).field).to.equal("keyId");
      const sameHash = await store.dataKeys.insert(sampleDataKey({ keyHash: key.keyHash })).catch((e: unknown) => e);
      expect(sameHash).to.be.instanceOf(DuplicateKeyError);
      expect((sameHash as DuplicateKeyError).field).to.equal("keyHash");
    });

    it("lists an owner's keys newest first, and no one else's", async function () {
      const store = current();
      const older = sampleDataKey({ owner: "wallet:0xabc" });
      const other = sampleDataKey({ owner: "agent:two" });
      const newer = sampleDataKey({ owner: "wallet:0xabc" });
      for (const key of [older, other, newer]) await store.dataKeys.insert(key);
      expect(await store.dataKeys.listByOwner("wallet:0xabc")).to.deep.equal([newer, older]);
      expect(await store.dataKeys.listByOwner("nobody")).to.deep.equal([]);
    });

    it("revokes once: the first revocation time stays, an unknown id gives null", async function () {
      const store = current();
      const key = sampleDataKey();
      await store.dataKeys.insert(key);
      const first = new Date(Date.UTC(2026, 2, 2));
      expect(await store.dataKeys.revoke(key.keyId, first)).to.deep.equal({ ...key, revokedAt: first });
      expect(await store.dataKeys.revoke(key.keyId, new Date(Date.UTC(2026, 2, 3)))).to.deep.equal({
        ...key,
        revokedAt: first,
      });
      expect((await store.dataKeys.findByHash(key.keyHash))?.revokedAt).to.deep.equal(first);
      expect(await store.dataKeys.revoke("dk_0000000000000fff", first)).to.equal(null);
    });
  });

  describe("nodes", function () {
    it("keeps one record per node id, replaced by each heartbeat of its registrant", async function () {
      const store = current();
      await store.nodes.heartbeat(sampleNode());
      const later = sampleNode({ role: "api+indexer", lastHeartbeatAt: new Date(Date.UTC(2026, 2, 1, 0, 0, 30)) });
      await store.nodes.heartbeat(later);
      await store.nodes.heartbeat(sampleNode({ nodeId: "node-b", url: null, registeredBy: "operator:acme" }));
      expect(await store.nodes.list()).to.deep.equal([
        later,
        sampleNode({ nodeId: "node-b", url: null, registeredBy: "operator:acme" }),
      ]);
    });

    it("refuses a heartbeat for a node id another registrant holds (node id takeover)", async function () {
      const store = current();
      await store.nodes.heartbeat(sampleNode());
      const takeover = await store.nodes
        .heartbeat(sampleNode({ registeredBy: "operator:mallory", url: "http://evil.test" }))
        .catch((e: unknown) => e);
      expect(takeover).to.be.instanceOf(DuplicateKeyError);
      expect(await store.nodes.list()).to.deep.equal([sampleNode()]);
    });

    it("purges nodes silent since before a time, and only those", async function () {
      const store = current();
      await store.nodes.heartbeat(sampleNode({ nodeId: "old", lastHeartbeatAt: new Date(Date.UTC(2026, 1, 1)) }));
      await store.nodes.heartbeat(sampleNode({ nodeId: "new" }));
      expect(await store.nodes.purgeSilentSince(new Date(Date.UTC(2026, 2, 1)))).to.equal(1);
      expect((await store.nodes.list()).map((node) => node.nodeId)).to.deep.equal(["new"]);
    });
  });
}
