import { expect } from "chai";
import { Wallet } from "ethers";
import { generateApiKey, hashApiKey } from "../../../../api/src/domain/apiKeys";
import { AuthenticationError, ConflictError, RateLimitError, ValidationError } from "../../../../api/src/errors";
import { createMemoryStore } from "../../../../api/src/store/memory";
import { DataKeyService, type IssuanceGate } from "../../../../api/src/usecases/dataKeys/issuance";
import { sampleAgent } from "../../store/conformance";

/**
 * Key issuance as a use case: who may be issued a key (a live API key, a wallet's signature, an operator), in which
 * order the checks run, and what the issuance gate counts. The access route only passes the request's proof here.
 */

const OPERATOR_KEY = "operator-key-for-usecase-tests-01";
const NOW = new Date("2026-06-01T12:00:00Z");

function service(gate: IssuanceGate, store = createMemoryStore()) {
  return new DataKeyService({
    store: store.dataKeys,
    nonces: store.nonces,
    verifySignature: async () => true,
    signIn: { domain: "api.nap.test", uri: "http://api.nap.test", chainId: 31337 },
    operatorApiKeys: [OPERATOR_KEY],
    agents: { byApiKey: (apiKey) => store.agents.findByKeyHash(hashApiKey(apiKey)) },
    gate,
    clock: () => NOW,
  });
}

const request = { name: "k", scopes: ["vaults:read" as const], lifetimeDays: 30 };

/** A gate that records what it counts, and refuses once `limit` admissions of a kind are used. */
function countingGate(limit = Infinity) {
  const admitted: string[] = [];
  const gate: IssuanceGate = {
    async admit(kind, subject) {
      if (admitted.filter((entry) => entry.startsWith(kind)).length >= limit) {
        throw new RateLimitError(`key issuance limit reached for ${subject}`, 60);
      }
      admitted.push(`${kind} ${subject}`);
    },
  };
  return { gate, admitted };
}

describe("usecases/dataKeys: issuing a data key", function () {
  it("refuses a request with no proof as UNAUTHENTICATED, counting nothing", async function () {
    const { gate, admitted } = countingGate();
    const thrown = await service(gate)
      .issueKey({ ip: "10.0.0.1" }, request)
      .catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(AuthenticationError);
    expect((thrown as AuthenticationError).code).to.equal("UNAUTHENTICATED");
    expect(admitted).to.deep.equal([]);
  });

  it("refuses both proofs at once as INVALID_BODY before any count", async function () {
    const { gate, admitted } = countingGate();
    const thrown = await service(gate)
      .issueKey({ apiKey: OPERATOR_KEY, wallet: Wallet.createRandom().address, ip: "10.0.0.1" }, request)
      .catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(ValidationError);
    expect((thrown as ValidationError).reason).to.equal("INVALID_BODY");
    expect((thrown as ValidationError).message).to.equal(
      "body: give either X-API-Key or wallet, nonce and signature, not both",
    );
    expect(admitted).to.deep.equal([]);
  });

  it("names the missing part of a wallet proof (INVALID_NONCE) before counting the IP", async function () {
    const { gate, admitted } = countingGate();
    const thrown = await service(gate)
      .issueKey({ wallet: Wallet.createRandom().address, signature: "0x00", ip: "10.0.0.1" }, request)
      .catch((error: unknown) => error);
    expect((thrown as ValidationError).reason).to.equal("INVALID_NONCE");
    expect((thrown as ValidationError).details).to.deep.equal({ field: "nonce" });
    expect(admitted).to.deep.equal([]);
  });

  it("counts an agent's key on its IP and its owner; an operator's on neither", async function () {
    const store = createMemoryStore();
    const agentKey = generateApiKey();
    const agent = sampleAgent({ apiKeyHash: hashApiKey(agentKey) });
    await store.agents.insert(agent);
    const { gate, admitted } = countingGate();
    const keys = service(gate, store);
    const issued = await keys.issueKey({ apiKey: agentKey, ip: "10.0.0.7" }, request);
    expect(issued.record.owner).to.equal(`agent:${agent.agentId}`);
    expect(issued.record.tier).to.equal("authenticated");
    const operator = await keys.issueKey(
      { apiKey: OPERATOR_KEY, ip: "10.0.0.7" },
      { ...request, scopes: ["nodes:write"], ownerLabel: "acme" },
    );
    expect([operator.record.owner, operator.record.tier]).to.deep.equal(["operator:acme", "node_operator"]);
    expect(admitted).to.deep.equal(["ip ip:10.0.0.7", `owner agent:${agent.agentId}`]);
  });

  it("stores nothing when the gate refuses the owner's count", async function () {
    const store = createMemoryStore();
    const agentKey = generateApiKey();
    const agent = sampleAgent({ apiKeyHash: hashApiKey(agentKey) });
    await store.agents.insert(agent);
    const refusing: IssuanceGate = {
      async admit(kind) {
        if (kind === "owner") throw new RateLimitError("key issuance limit reached", 60);
      },
    };
    const thrown = await service(refusing, store)
      .issueKey({ apiKey: agentKey, ip: "10.0.0.8" }, request)
      .catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(RateLimitError);
    expect(await store.dataKeys.listByOwner(`agent:${agent.agentId}`)).to.deep.equal([]);
  });

  it("refuses an unknown X-API-Key as UNAUTHENTICATED", async function () {
    const thrown = await service(countingGate().gate)
      .issueKey({ apiKey: generateApiKey(), ip: "10.0.0.1" }, request)
      .catch((error: unknown) => error);
    expect((thrown as AuthenticationError).message).to.equal(
      "unknown X-API-Key: send a live API agent key or an operator key",
    );
  });

  it("key flooding stops at the owner's limit with CONFLICT KEY_LIMIT_REACHED", async function () {
    const keys = service(countingGate().gate);
    const operator = { apiKey: OPERATOR_KEY, ip: "10.0.0.1" };
    for (let i = 0; i < 10; i++) await keys.issueKey(operator, { ...request, ownerLabel: "flood" });
    const thrown = await keys.issueKey(operator, { ...request, ownerLabel: "flood" }).catch((error: unknown) => error);
    expect(thrown).to.be.instanceOf(ConflictError);
    expect((thrown as ConflictError).reason).to.equal("KEY_LIMIT_REACHED");
    expect((thrown as ConflictError).details).to.deep.equal({ owner: "operator:flood", limit: 10 });
  });
});
