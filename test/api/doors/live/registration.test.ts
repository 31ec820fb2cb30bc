import { expect } from "chai";
import { createHash } from "node:crypto";
import { ethers } from "hardhat";
import { Wallet } from "ethers";
import { buildSignInMessage, REGISTRATION_STATEMENT } from "../../../../api/src/domain/signInMessage";
import type { MongoStore } from "../../../../api/src/store/mongo";
import { MockERC1271Wallet__factory } from "../../../../typechain-types";
import { registerAgent, request, startTestApp, type TestApp } from "../../helpers/app";
import { dropMongoStore, freshMongoStore } from "../../helpers/mongo";

const NONCE_PATH = "/api/v1/agent/auth/nonce";
const REGISTER_PATH = "/api/v1/agent/auth/register";

function newWallet(): Wallet {
  return Wallet.createRandom() as unknown as Wallet;
}

describe("API registration (HTTP, MongoDB store, Hardhat chain)", function () {
  let api: TestApp;
  let store: MongoStore;
  let now: number;

  before(async function () {
    store = await freshMongoStore("registration");
    now = Date.UTC(2026, 10, 22, 2, 0, 0);
    api = await startTestApp({ store, clock: () => new Date(now) });
  });

  after(async function () {
    await api.close();
    await dropMongoStore(store);
  });

  async function nonceFor(address: string): Promise<{ nonce: string; message: string; expires_in_seconds: number }> {
    const response = await request<{ nonce: string; message: string; expires_in_seconds: number }>(
      api.url,
      "GET",
      `${NONCE_PATH}?wallet=${address}`,
    );
    expect(response.status).to.equal(200);
    return response.body;
  }

  function registration(wallet: Wallet, nonce: string, signature: string, extra: Record<string, unknown> = {}) {
    return {
      wallet_address: wallet.address,
      signature,
      nonce,
      agent_name: "alpha agent",
      operator_address: "0x000000000000000000000000000000000000dEaD",
      ...extra,
    };
  }

  async function signedRegistration(wallet: Wallet, extra: Record<string, unknown> = {}) {
    const issued = await nonceFor(wallet.address);
    return registration(wallet, issued.nonce, await wallet.signMessage(issued.message), extra);
  }

  describe("GET /api/v1/agent/auth/nonce", function () {
    it("issues a 32-hex nonce valid 600 s and the exact EIP-4361 message", async function () {
      const wallet = newWallet();
      const issued = await nonceFor(wallet.address.toLowerCase());
      expect(issued.nonce).to.match(/^[0-9a-f]{32}$/);
      expect(issued.expires_in_seconds).to.equal(600);
      const issuedAt = new Date(now);
      expect(issued.message).to.equal(
        buildSignInMessage({
          domain: "api.nap.test",
          uri: "http://api.nap.test",
          chainId: 31337,
          walletAddress: wallet.address,
          nonce: issued.nonce,
          issuedAt,
          expiresAt: new Date(now + 600_000),
        }),
      );
      expect(issued.message).to.equal(
        [
          "api.nap.test wants you to sign in with your Ethereum account:",
          wallet.address,
          "",
          REGISTRATION_STATEMENT,
          "",
          "URI: http://api.nap.test",
          "Version: 1",
          "Chain ID: 31337",
          `Nonce: ${issued.nonce}`,
          "Issued At: 2026-11-22T02:00:00Z",
          "Expiration Time: 2026-11-22T02:10:00Z",
          `Request ID: ${Math.floor(now / 1000)}`,
        ].join("\n"),
      );
    });

    it("issues a different nonce every time", async function () {
      const wallet = newWallet();
      const a = await nonceFor(wallet.address);
      const b = await nonceFor(wallet.address);
      expect(a.nonce).to.not.equal(b.nonce);
    });

    for (const [query, error] of [
      ["", "wallet: is required"],
      ["?wallet=0x123", "wallet: must be a 0x-prefixed 42-character hex address"],
      ["?wallet=5FbDB2315678afecb367f032d93F642f64180aa3ab", "wallet: must be a 0x-prefixed 42-character hex address"],
      ["?wallet=0x5FbDB2315678afecb367f032d93F642f64180aA3", "wallet: has an invalid EIP-55 checksum"],
      [
        "?wallet=0x5FbDB2315678afecb367f032d93F642f64180aa3&wallet=0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "wallet: must be given once",
      ],
      ["?wallet=0x5FbDB2315678afecb367f032d93F642f64180aa3&extra=1", "unknown field extra"],
    ]) {
      it(`answers 400 "${error}" for query "${query}"`, async function () {
        const response = await request(api.url, "GET", `${NONCE_PATH}${query}`);
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({ error: error });
      });
    }
  });

  describe("POST /api/v1/agent/auth/register", function () {
    it("registers an ethers wallet, returns the key once, and stores only its hash and prefix", async function () {
      const wallet = newWallet();
      const body = await signedRegistration(wallet, {
        description: "market making",
        operator_email: "ops@example.org",
        operator_name: "Ops Ltd",
        framework: "eliza",
        repo_url: "https://github.com/example/agent",
      });
      const response = await request(api.url, "POST", REGISTER_PATH, { body });
      expect(response.status).to.equal(200);
      const apiKey = response.body.api_key as string;
      expect(apiKey).to.match(/^nap-[0-9A-Za-z]{32}$/);
      expect(response.body).to.deep.equal({
        success: true,
        agent_id: response.body.agent_id,
        agent_name: "alpha agent",
        api_key: apiKey,
        api_key_prefix: apiKey.slice(0, 12),
        tier: "unverified",
        message: "Agent registered. Store the API key now: it is shown only once.",
      });
      expect(response.body.agent_id).to.match(/^[0-9a-f-]{36}$/);

      const stored = await store.agents.findByWallet(wallet.address);
      expect(stored).to.not.equal(null);
      expect(stored!.apiKeyHash).to.equal(createHash("sha256").update(apiKey).digest("hex"));
      expect(stored!.apiKeyPrefix).to.equal(apiKey.slice(0, 12));
      expect(stored!.agentType).to.equal("custom");
      expect(stored!.operatorEmail).to.equal("ops@example.org");
      expect(stored!.repoUrl).to.equal("https://github.com/example/agent");
      const raw = await store.db.collection("agents").findOne({ _id: stored!.agentId } as never);
      expect(JSON.stringify(raw)).to.not.include(apiKey);
      expect(JSON.stringify(raw)).to.not.include(apiKey.slice(12));

      const lookup = await request(api.url, "GET", `/api/v1/agent/auth/lookup?wallet=${wallet.address}`);
      expect(lookup.status).to.equal(200);
      expect(lookup.body).to.deep.equal({
        registered: true,
        agent_name: "alpha agent",
        tier: "unverified",
        status: "active",
        strategies_submitted: 0,
        performance_score: 0,
        api_key_prefix: apiKey.slice(0, 12),
        created_at: new Date(now).toISOString(),
      });
    });

    it("answers registered:false for an unregistered wallet", async function () {
      const lookup = await request(api.url, "GET", `/api/v1/agent/auth/lookup?wallet=${newWallet().address}`);
      expect(lookup.status).to.equal(200);
      expect(lookup.body).to.deep.equal({ registered: false });
    });

    it("accepts a contract wallet through EIP-1271 isValidSignature on the service chain", async function () {
      const [deployer] = await ethers.getSigners();
      const owner = newWallet();
      const contractWallet = await new MockERC1271Wallet__factory(deployer).deploy(owner.address);
      const address = await contractWallet.getAddress();
      const issued = await nonceFor(address);
      const asWallet = { address } as Wallet;
      const response = await request(api.url, "POST", REGISTER_PATH, {
        body: registration(asWallet, issued.nonce, await owner.signMessage(issued.message)),
      });
      expect(response.status).to.equal(200);
      expect((await store.agents.findByWallet(address))?.walletAddress).to.equal(address);

      const issued2 = await nonceFor(
        await (await new MockERC1271Wallet__factory(deployer).deploy(owner.address)).getAddress(),
      );
      const stranger = newWallet();
      const refused = await request(api.url, "POST", REGISTER_PATH, {
        body: {
          ...registration(asWallet, issued2.nonce, await stranger.signMessage(issued2.message)),
          wallet_address: (await store.nonces.find(issued2.nonce))!.walletAddress,
        },
      });
      expect(refused.status).to.equal(400);
      expect(refused.body).to.deep.equal({
        error: "signature: not a valid signature by wallet_address of the message issued with this nonce",
      });
    });

    it("rejects a replayed nonce", async function () {
      const wallet = newWallet();
      const body = await signedRegistration(wallet);
      expect((await request(api.url, "POST", REGISTER_PATH, { body })).status).to.equal(200);
      const replay = await request(api.url, "POST", REGISTER_PATH, { body });
      expect(replay.status).to.equal(400);
      expect(replay.body).to.deep.equal({ error: "nonce: already used; request a new nonce" });
    });

    it("rejects an expired nonce (600 s), and accepts it one second before", async function () {
      const late = newWallet();
      const body = await signedRegistration(late);
      const early = newWallet();
      const earlyBody = await signedRegistration(early);
      const issuedAt = now;
      try {
        now = issuedAt + 599_000;
        expect((await request(api.url, "POST", REGISTER_PATH, { body: earlyBody })).status).to.equal(200);
        now = issuedAt + 600_000;
        const response = await request(api.url, "POST", REGISTER_PATH, { body });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({
          error: "nonce: expired (valid for 600 seconds); request a new nonce",
        });
      } finally {
        now = issuedAt;
      }
    });

    it("rejects a nonce issued for another wallet", async function () {
      const owner = newWallet();
      const thief = newWallet();
      const issued = await nonceFor(owner.address);
      const response = await request(api.url, "POST", REGISTER_PATH, {
        body: registration(thief, issued.nonce, await thief.signMessage(issued.message)),
      });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({ error: "nonce: issued for another wallet than wallet_address" });
      // The nonce is not burnt by the foreign attempt: its owner can still use it.
      const ok = await request(api.url, "POST", REGISTER_PATH, {
        body: registration(owner, issued.nonce, await owner.signMessage(issued.message)),
      });
      expect(ok.status).to.equal(200);
    });

    it("rejects an unknown nonce", async function () {
      const wallet = newWallet();
      const response = await request(api.url, "POST", REGISTER_PATH, {
        body: registration(wallet, "0".repeat(32), await wallet.signMessage("anything")),
      });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({
        error: "nonce: unknown nonce; request one from GET /api/v1/agent/auth/nonce",
      });
    });

    for (const nonce of ["abc", "g".repeat(32), "0".repeat(31), "0".repeat(33), ""]) {
      it(`rejects the malformed nonce "${nonce}"`, async function () {
        const wallet = newWallet();
        const response = await request(api.url, "POST", REGISTER_PATH, {
          body: registration(wallet, nonce, await wallet.signMessage("x")),
        });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({ error: "nonce: must be 32 hex characters" });
      });
    }

    it("rejects signatures by another key, of another message, or bound to another domain or chain", async function () {
      const wallet = newWallet();
      const issued = await nonceFor(wallet.address);
      const record = (await store.nonces.find(issued.nonce))!;
      const base = {
        walletAddress: wallet.address,
        nonce: issued.nonce,
        issuedAt: record.issuedAt,
        expiresAt: record.expiresAt,
      };
      const forged = [
        await newWallet().signMessage(issued.message),
        await wallet.signMessage(`${issued.message} `),
        await wallet.signMessage(
          buildSignInMessage({ ...base, domain: "evil.example", uri: "http://api.nap.test", chainId: 31337 }),
        ),
        await wallet.signMessage(
          buildSignInMessage({ ...base, domain: "api.nap.test", uri: "http://api.nap.test", chainId: 84532 }),
        ),
        await wallet.signMessage(issued.nonce),
      ];
      for (const signature of forged) {
        const response = await request(api.url, "POST", REGISTER_PATH, {
          body: registration(wallet, issued.nonce, signature),
        });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({
          error: "signature: not a valid signature by wallet_address of the message issued with this nonce",
        });
      }
      // None of the failures consumed the nonce.
      const ok = await request(api.url, "POST", REGISTER_PATH, {
        body: registration(wallet, issued.nonce, await wallet.signMessage(issued.message)),
      });
      expect(ok.status).to.equal(200);
    });

    for (const [signature, error] of [
      ["0x", "signature: must be 0x-prefixed hex bytes"],
      ["0xzz", "signature: must be 0x-prefixed hex bytes"],
      ["1234", "signature: must be 0x-prefixed hex bytes"],
      ["0x123", "signature: must be 0x-prefixed hex bytes"],
      [`0x${"ab".repeat(4097)}`, "signature: must be at most 4096 bytes"],
    ]) {
      it(`rejects the malformed signature ${signature.slice(0, 10)} (${signature.length} chars)`, async function () {
        const wallet = newWallet();
        const response = await request(api.url, "POST", REGISTER_PATH, {
          body: registration(wallet, "0".repeat(32), signature),
        });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({ error });
      });
    }

    it("rejects well-formed hex that is not a signature (truncated, zeroed)", async function () {
      const wallet = newWallet();
      const issued = await nonceFor(wallet.address);
      const good = await wallet.signMessage(issued.message);
      // (64 bytes would be a valid EIP-2098 compact signature half of the time, so truncate further.)
      for (const signature of [good.slice(0, 122), `0x${"00".repeat(65)}`, `${good.slice(0, 130)}1f`]) {
        const response = await request(api.url, "POST", REGISTER_PATH, {
          body: registration(wallet, issued.nonce, signature),
        });
        expect(response.status).to.equal(400);
        expect(response.body.error).to.match(/^signature: /);
      }
    });

    it("answers 409 for a second agent on the same wallet", async function () {
      const wallet = newWallet();
      expect(
        (await request(api.url, "POST", REGISTER_PATH, { body: await signedRegistration(wallet) })).status,
      ).to.equal(200);
      const again = await request(api.url, "POST", REGISTER_PATH, { body: await signedRegistration(wallet) });
      expect(again.status).to.equal(409);
      expect(again.body).to.deep.equal({ error: "wallet_address: an agent is already registered for this wallet" });
    });

    it("lets exactly one of 100 concurrent registrations with one nonce succeed", async function () {
      const wallet = newWallet();
      const body = await signedRegistration(wallet);
      const responses = await Promise.all(
        Array.from({ length: 100 }, () => request(api.url, "POST", REGISTER_PATH, { body })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(1);
      for (const response of responses.filter((r) => r.status !== 200)) {
        expect([400, 409]).to.include(response.status);
        expect([
          "nonce: already used; request a new nonce",
          "wallet_address: an agent is already registered for this wallet",
        ]).to.include(response.body.error);
      }
      const agents = await store.db.collection("agents").countDocuments({ walletKey: wallet.address.toLowerCase() });
      expect(agents).to.equal(1);
    });

    it("gives every agent a distinct wallet index", async function () {
      const results = await Promise.all(Array.from({ length: 10 }, () => registerAgent(api.url)));
      const indexes = await Promise.all(results.map(async (r) => (await store.agents.findById(r.agentId))!.agentIndex));
      expect(new Set(indexes).size).to.equal(10);
    });
  });

  describe("field bounds", function () {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["agent_name of 2 characters", { agent_name: "ab" }, "agent_name: must be at least 3 characters"],
      ["agent_name of 101 characters", { agent_name: "a".repeat(101) }, "agent_name: must be at most 100 characters"],
      ["agent_name with a newline", { agent_name: "abc\ndef" }, "agent_name: must not contain control characters"],
      ["agent_name as a number", { agent_name: 12345 }, "agent_name: must be a string"],
      [
        "description of 501 characters",
        { description: "d".repeat(501) },
        "description: must be at most 500 characters",
      ],
      [
        "unknown agent_type",
        { agent_type: "wizard" },
        "agent_type: must be one of trading, governance, analytics, custom, quant, cfo, research",
      ],
      [
        "malformed operator_address",
        { operator_address: "0xdead" },
        "operator_address: must be a 0x-prefixed 42-character hex address",
      ],
      ["malformed operator_email", { operator_email: "not-an-email" }, "operator_email: must be an email address"],
      ["empty operator_name", { operator_name: "" }, "operator_name: must be at least 1 characters"],
      [
        "operator_name of 101 characters",
        { operator_name: "n".repeat(101) },
        "operator_name: must be at most 100 characters",
      ],
      ["framework of 51 characters", { framework: "f".repeat(51) }, "framework: must be at most 50 characters"],
      ["ftp repo_url", { repo_url: "ftp://example.org/x" }, "repo_url: must be an http(s) URL"],
      ["unknown field", { api_key: "nap-x", tier: "core_contributor" }, "unknown fields api_key, tier"],
      ["null wallet_address", { wallet_address: null }, "wallet_address: must be a string"],
    ];
    for (const [name, patch, error] of cases) {
      it(`answers 400 for ${name}`, async function () {
        const wallet = newWallet();
        const body = { ...registration(wallet, "0".repeat(32), `0x${"11".repeat(65)}`), ...patch };
        const response = await request(api.url, "POST", REGISTER_PATH, { body });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({ error });
      });
    }

    for (const field of ["wallet_address", "signature", "nonce", "agent_name", "operator_address"]) {
      it(`answers 400 naming the missing required field ${field}`, async function () {
        const body: Record<string, unknown> = registration(newWallet(), "0".repeat(32), `0x${"11".repeat(65)}`);
        delete body[field];
        const response = await request(api.url, "POST", REGISTER_PATH, { body });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({ error: `${field}: is required` });
      });
    }

    it("accepts the bounds themselves: names of 3 and 100 characters, a 500-character description, every agent_type", async function () {
      const types = ["trading", "governance", "analytics", "custom", "quant", "cfo", "research"];
      for (const [i, agentType] of types.entries()) {
        const wallet = newWallet();
        const name = i % 2 === 0 ? "abc" : "x".repeat(100);
        const response = await request(api.url, "POST", REGISTER_PATH, {
          body: await signedRegistration(wallet, {
            agent_name: name,
            agent_type: agentType,
            description: "d".repeat(500),
          }),
        });
        expect(response.status, JSON.stringify(response.body)).to.equal(200);
        const stored = await store.agents.findByWallet(wallet.address);
        expect(stored?.agentType).to.equal(agentType);
        expect(stored?.agentName).to.equal(name);
      }
    });
  });

  describe("malformed requests", function () {
    it("answers 400 for malformed JSON", async function () {
      const response = await request(api.url, "POST", REGISTER_PATH, {
        rawBody: '{"wallet_address": ',
        headers: { "content-type": "application/json" },
      });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({ error: "body: malformed JSON" });
    });

    it("answers 400 for a wrong content type", async function () {
      const response = await request(api.url, "POST", REGISTER_PATH, {
        rawBody: "wallet_address=0x1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({ error: "body: Content-Type must be application/json" });
    });

    it("answers 413 for an oversized body (one body limit on every door)", async function () {
      const response = await request(api.url, "POST", REGISTER_PATH, {
        body: { agent_name: "x".repeat(70_000) },
      });
      expect(response.status).to.equal(413);
      expect(response.body).to.deep.equal({ error: "body: larger than the limit of 65536 bytes" });
    });

    it("answers 400 for a JSON array or scalar body", async function () {
      for (const rawBody of ["[]", "42", "null", '"x"']) {
        const response = await request(api.url, "POST", REGISTER_PATH, {
          rawBody,
          headers: { "content-type": "application/json" },
        });
        expect(response.status).to.equal(400);
        expect(response.body).to.deep.equal({ error: "body: must be a JSON object" });
      }
    });

    it("answers 400 naming the required fields for an empty body", async function () {
      const response = await request(api.url, "POST", REGISTER_PATH);
      expect(response.status).to.equal(400);
      expect(response.body.error).to.equal(
        "wallet_address: is required; signature: is required; nonce: is required; agent_name: is required; operator_address: is required",
      );
    });

    it("answers 404 with an error body for an unknown route and 405 for a wrong method", async function () {
      const missing = await request(api.url, "GET", "/api/v1/nothing");
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.equal({ error: "no route for GET /api/v1/nothing" });
      const wrongMethod = await request(api.url, "DELETE", "/api/v1/agents");
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.body).to.have.property("error");
      expect(wrongMethod.headers.get("allow")).to.equal("HEAD, GET");
    });
  });
});
