import { expect } from "chai";
import { verifyMessage, Wallet } from "ethers";
import fc from "fast-check";
import { request as httpRequest } from "node:http";
import { createDataAccess, SCOPES, type DataAccess, type Scope } from "../../../../../api/src/doors/data/access";
import { createLogger } from "../../../../../api/src/logger";
import { createMemoryStore } from "../../../../../api/src/store/memory";
import { hashApiKey } from "../../../../../api/src/domain/apiKeys";
import { startTestApp, type TestApp } from "../../../helpers/app";

/**
 * Scopes decided from the route that answers, on the whole app (the doors' dispatcher, the access layer, the data
 * door's and the access layer's routers): path spellings (letter case, slashes, escapes, dot segments, HEAD) never
 * reach a route whose scope the key lacks.
 */

const OPERATOR_KEY = "operator-key-for-route-scope-tests-01";
const USER = "0x00000000000000000000000000000000000000aa";
const VAULT = "0x00000000000000000000000000000000000000bb";

interface Raw {
  status: number;
  body: { error?: { code: string; details: Record<string, unknown> } } & Record<string, unknown>;
}

/** A request with the path sent byte for byte as given (fetch would normalise dot segments and escapes). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const url = new URL(base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<Raw>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(payload !== undefined && { "content-type": "application/json" }) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          let parsed: Raw["body"];
          try {
            parsed = text === "" ? {} : JSON.parse(text);
          } catch {
            parsed = { text };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function startWithAccess(env: Record<string, string> = {}): Promise<{ app: TestApp; access: DataAccess }> {
  const store = createMemoryStore();
  const logger = createLogger("silent");
  const access = createDataAccess({
    stores: store,
    config: {
      operatorApiKeys: [OPERATOR_KEY],
      serviceDomain: "api.nap.test",
      publicUrl: "http://api.nap.test",
      rateLimitsDisabled: true,
      bodyLimitBytes: 65_536,
    },
    chainId: 31337,
    logger,
    agents: { byApiKey: (apiKey) => store.agents.findByKeyHash(hashApiKey(apiKey)) },
    verifySignature: async (wallet, message, signature) => {
      try {
        return verifyMessage(message, signature).toLowerCase() === wallet.toLowerCase();
      } catch {
        return false;
      }
    },
  });
  const app = await startTestApp({ store, env, extra: { dataAccess: access } });
  return { app, access };
}

async function operatorKey(base: string, scopes: readonly Scope[]): Promise<string> {
  const issued = await raw(base, "POST", "/v1/auth/keys", { "X-API-Key": OPERATOR_KEY }, { owner: "ops", scopes });
  expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
  return issued.body.key as string;
}

async function walletKey(base: string, scopes?: Scope[]): Promise<string> {
  const wallet = Wallet.createRandom();
  const nonce = await raw(base, "GET", `/v1/auth/nonce?wallet=${wallet.address}`);
  const issued = await raw(
    base,
    "POST",
    "/v1/auth/keys",
    {},
    {
      ...(scopes && { scopes }),
      wallet: wallet.address,
      nonce: nonce.body.nonce,
      signature: await wallet.signMessage(nonce.body.message as string),
    },
  );
  expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
  return issued.body.key as string;
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** One way of writing a path otherwise. */
const spelling = fc.oneof(
  fc.record({ kind: fc.constant("case" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("trailing slash" as const) }),
  fc.record({ kind: fc.constant("double slash" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("escape" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("dot segment" as const), at: fc.nat(), dots: fc.constantFrom(".", "..", "%2e") }),
);

function respell(path: string, change: { kind: string; at?: number; dots?: string }): string {
  const at = 1 + ((change.at ?? 0) % (path.length - 1));
  switch (change.kind) {
    case "case": {
      const char = path[at];
      const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
      return path.slice(0, at) + flipped + path.slice(at + 1);
    }
    case "trailing slash":
      return `${path}/`;
    case "double slash": {
      const slash = path.indexOf("/", at);
      return slash < 0 ? `${path}/` : `${path.slice(0, slash)}/${path.slice(slash)}`;
    }
    case "escape": {
      const code = path.charCodeAt(at).toString(16).toUpperCase().padStart(2, "0");
      return `${path.slice(0, at)}%${code}${path.slice(at + 1)}`;
    }
    default: {
      const slash = path.indexOf("/", at);
      return slash < 0 ? `${path}/${change.dots}` : `${path.slice(0, slash)}/${change.dots}${path.slice(slash)}`;
    }
  }
}

describe("data keys: the scope comes from the route that answers", function () {
  this.timeout(120_000);

  describe("the attacks of issue 26, with the real handlers", function () {
    let app: TestApp;
    before(async function () {
      ({ app } = await startWithAccess());
    });
    after(async function () {
      await app?.close();
    });

    it("scopes by letter case: 250 POST /v1/NODES/heartbeat with a wallet key register no node", async function () {
      const key = await walletKey(app.url);
      for (let i = 0; i < 250; i += 1) {
        const reply = await raw(app.url, "POST", i % 2 ? "/v1/NODES/heartbeat" : "/v1/Nodes/Heartbeat", bearer(key), {
          node_id: `rogue-${i}`,
          version: "1.0.0",
          url: `https://phishing-${i}.example/claim`,
        });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(404);
        expect(reply.body.error?.code).to.equal("NOT_FOUND");
      }
      // The exact spelling reaches the route, whose scope the key lacks.
      const exact = await raw(app.url, "POST", "/v1/nodes/heartbeat", bearer(key), {
        node_id: "rogue",
        version: "1.0.0",
      });
      expect(exact.status).to.equal(401);
      expect(exact.body.error?.code).to.equal("INSUFFICIENT_SCOPE");
      expect(exact.body.error?.details.required_scope).to.equal("nodes:write");
      const nodes = await raw(app.url, "GET", "/v1/nodes");
      expect((nodes.body.nodes as Array<{ external: boolean }>).filter((node) => node.external)).to.deep.equal([]);
    });

    it("scopes by letter case: a nodes:read key reads nothing through /v1/Users, /v1/USERS, /v1/Vaults, escapes or dot segments", async function () {
      const key = await walletKey(app.url, ["nodes:read"]);
      for (const path of [
        `/v1/Users/${USER}/positions`,
        `/v1/USERS/${USER}/transactions`,
        `/v1/users/${USER}/POSITIONS`,
        "/v1/Vaults",
        `/v1/VAULTS/${VAULT}`,
        `/v1/%75sers/${USER}/positions`,
        `/v1/users%2F${USER}/positions`,
        `/v1//users/${USER}/positions`,
        `/v1/./users/${USER}/positions`,
        `/v1/nodes/../users/${USER}/positions`,
        "/v1/%6Eodes",
      ]) {
        const reply = await raw(app.url, "GET", path, bearer(key));
        expect(reply.status, path).to.equal(404);
        expect(reply.body.error?.code, path).to.equal("NOT_FOUND");
      }
      for (const [method, path, scope] of [
        ["GET", `/v1/users/${USER}/positions/`, "users:read"],
        ["HEAD", `/v1/users/${USER}/transactions`, "users:read"],
        ["GET", "/v1/vaults/", "vaults:read"],
      ] as const) {
        const reply = await raw(app.url, method, path, bearer(key));
        expect(reply.status, `${method} ${path}`).to.equal(401);
        if (method === "GET") expect(reply.body.error?.details.required_scope).to.equal(scope);
      }
    });

    it("managing keys: a vaults:read key neither lists nor revokes its owner's keys; a keys:manage key does", async function () {
      const wallet = Wallet.createRandom();
      const issue = async (scopes: Scope[]) => {
        const nonce = await raw(app.url, "GET", `/v1/auth/nonce?wallet=${wallet.address}`);
        const issued = await raw(
          app.url,
          "POST",
          "/v1/auth/keys",
          {},
          {
            scopes,
            wallet: wallet.address,
            nonce: nonce.body.nonce,
            signature: await wallet.signMessage(nonce.body.message as string),
          },
        );
        expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
        return issued.body as { key: string; key_id: string };
      };
      const reader = await issue(["vaults:read"]);
      const manager = await issue(["keys:manage"]);
      const listed = await raw(app.url, "GET", "/v1/auth/keys", bearer(reader.key));
      expect(listed.status).to.equal(401);
      expect(listed.body.error?.code).to.equal("INSUFFICIENT_SCOPE");
      expect(listed.body.error?.details.required_scope).to.equal("keys:manage");
      const revoked = await raw(app.url, "DELETE", `/v1/auth/keys/${manager.key_id}`, bearer(reader.key));
      expect(revoked.status).to.equal(401);
      expect(revoked.body.error?.code).to.equal("INSUFFICIENT_SCOPE");
      expect((await raw(app.url, "GET", "/v1/auth/token-info", bearer(manager.key))).body.state).to.equal("active");
      const byManager = await raw(app.url, "GET", "/v1/auth/keys", bearer(manager.key));
      expect(byManager.status).to.equal(200);
      expect((byManager.body.keys as unknown[]).length).to.equal(2);
      const revokedByManager = await raw(app.url, "DELETE", `/v1/auth/keys/${reader.key_id}`, bearer(manager.key));
      expect(revokedByManager.status).to.equal(200);
      expect(revokedByManager.body.state).to.equal("revoked");
    });
  });

  describe("generated path spellings", function () {
    let app: TestApp;
    let access: DataAccess;
    /** A key of every scope but one, by the scope it lacks; and one of every scope. */
    const lacking = new Map<Scope, string>();
    let everything: string;

    before(async function () {
      ({ app, access } = await startWithAccess());
      everything = await operatorKey(app.url, SCOPES);
      for (const scope of SCOPES) {
        lacking.set(
          scope,
          await operatorKey(
            app.url,
            SCOPES.filter((other) => other !== scope),
          ),
        );
      }
      // Then each route answers with its own scope instead of running: what is checked is which route a request reached.
      for (const { layer, scope } of access.scopes.routes()) {
        layer.stack[layer.stack.length - 1] = (ctx: { body: unknown }) => {
          ctx.body = { answered_by: layer.path, scope };
        };
      }
    });
    after(async function () {
      await app?.close();
    });

    /** Every route as documented, with the scope it is documented to need. */
    const routes: Array<[string, string, Scope | null]> = [
      ["GET", "/v1/vaults", "vaults:read"],
      ["POST", "/v1/vaults/batch", "vaults:read"],
      ["GET", `/v1/vaults/${VAULT}`, "vaults:read"],
      ["GET", `/v1/vaults/${VAULT}/history`, "vaults:read"],
      ["GET", "/v1/strategies", "vaults:read"],
      ["GET", "/v1/strategies/s1/performance", "vaults:read"],
      ["GET", `/v1/users/${USER}/positions`, "users:read"],
      ["GET", `/v1/users/${USER}/transactions`, "users:read"],
      ["GET", "/v1/protocol/stats", "vaults:read"],
      ["GET", "/v1/status", "vaults:read"],
      ["GET", "/v1/nodes", "nodes:read"],
      ["POST", "/v1/nodes/heartbeat", "nodes:write"],
      ["GET", "/v1/auth/keys", "keys:manage"],
      ["DELETE", "/v1/auth/keys/dk_0123456789abcdef", "keys:manage"],
      ["GET", "/v1/auth/token-info", null],
      ["GET", "/v1/rate-limit-status", null],
      ["GET", "/v1/openapi.json", null],
    ];

    it("path spellings: the scope checked is always that of the route that answers, or nothing answers", async function () {
      let reached = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes),
          fc.array(spelling, { minLength: 0, maxLength: 3 }),
          fc.constantFrom<string | undefined>(undefined, "GET", "HEAD", "POST", "DELETE", "PUT", "OPTIONS"),
          fc.boolean(),
          fc.constantFrom(...SCOPES),
          async ([method, path, scope], changes, otherMethod, lackOwn, other) => {
            // Half the time the key lacks the route's own scope: the case an attacker's spelling is for.
            const missing = lackOwn && scope ? scope : other;
            const spelled = changes.reduce(respell, path);
            const verb = otherMethod ?? method;
            const reply = await raw(
              app.url,
              verb,
              spelled,
              bearer(lacking.get(missing)!),
              verb === "POST" ? {} : undefined,
            );
            const where = `${verb} ${spelled} without ${missing}: ${reply.status} ${JSON.stringify(reply.body)}`;
            expect(reply.status, where).to.be.below(500);
            if (reply.body.answered_by !== undefined) {
              reached += 1;
              // A route ran: the key holds the scope it declares.
              expect(reply.body.scope, where).to.not.equal(missing);
            }
            if (reply.body.error?.code === "INSUFFICIENT_SCOPE") {
              refused += 1;
              expect(reply.body.error.details.required_scope, where).to.equal(missing);
              // The route that would have answered is one that needs exactly that scope.
              const full = await raw(app.url, verb, spelled, bearer(everything), verb === "POST" ? {} : undefined);
              expect(full.body.scope, where).to.equal(missing);
            }
          },
        ),
        { numRuns: 400, seed: 26 },
      );
      // The generator reaches routes and gets refusals, not only 404s.
      expect(reached, `${reached} reached, ${refused} refused`).to.be.above(15);
      expect(refused, `${reached} reached, ${refused} refused`).to.be.above(15);
    });
  });

  describe("the live API's routes", function () {
    let app: TestApp;
    before(async function () {
      ({ app } = await startWithAccess({ AGENT_API_KEYS: OPERATOR_KEY }));
    });
    after(async function () {
      await app?.close();
    });

    it("path spellings: an agent or operator route answers any spelling its router accepts with that route's own auth", async function () {
      // Each live route carries its auth in its own chain, found by the same router (or exact table) that answers.
      const routes: Array<[string, string]> = [
        ["GET", "/api/v1/agent/wallet"],
        ["GET", "/api/v1/agent/vault/positions"],
        ["POST", "/api/v1/agent/vault/deposit"],
        ["GET", "/api/v1/agent/transactions"],
        ["POST", "/api/v1/operator/agents/agent-1/tier"],
      ];
      let reached = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes),
          fc.array(spelling, { minLength: 0, maxLength: 3 }),
          async ([method, path], changes) => {
            const spelled = changes.reduce(respell, path);
            const reply = await raw(
              app.url,
              method,
              spelled,
              { "X-API-Key": "nap-00000000000000000000000000000000" },
              method === "POST" ? {} : undefined,
            );
            const where = `${method} ${spelled}: ${reply.status} ${JSON.stringify(reply.body)}`;
            expect([401, 404, 405], where).to.include(reply.status);
            if (reply.status === 401) reached += 1;
          },
        ),
        { numRuns: 200, seed: 26 },
      );
      expect(reached).to.be.above(20);
    });
  });
});
