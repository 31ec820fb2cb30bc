import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { loadConfig } from "../../api/src/config";
import { createLogger } from "../../api/src/logger";
import { defineRoute } from "../../api/src/doors/live/route";
import { startServer } from "../../api/src/server";
import { SERVICE_VERSION } from "../../api/src/version";
import { ensureMongo, ensureRedis } from "../helpers/services";

describe("API server (startServer)", function () {
  it("starts on MongoDB and Redis from the configuration, serves, and closes cleanly", async function () {
    const mongoUri = await ensureMongo();
    const redisUrl = await ensureRedis();
    const dbName = `nap_test_server_${randomBytes(4).toString("hex")}`;
    const config = loadConfig({
      PORT: "0",
      MONGODB_URI: mongoUri,
      MONGODB_DB: dbName,
      REDIS_URL: redisUrl,
      CHAIN_ID: "31337",
      RPC_URL: "http://127.0.0.1:9",
      DEPLOYMENT_FILE: "/nonexistent/31337.json",
      LOG_LEVEL: "silent",
    });
    let slowHandler = "not run";
    const running = await startServer(config, createLogger("silent"), {
      extraRoutes: (useCases) => [
        defineRoute({
          method: "get",
          path: "/api/v1/test/slow",
          tag: "test",
          summary: "a handler that outlives its client",
          auth: null,
          rateLimit: null,
          responses: { 200: { description: "ok" } },
          handler: async () => {
            slowHandler = "running";
            await new Promise((resolve) => setTimeout(resolve, 300));
            await useCases.agents.anyExists();
            slowHandler = "finished";
            return { ok: true };
          },
        }),
      ],
    });
    try {
      const response = await fetch(`${running.url}/health`);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.include({
        status: "degraded",
        chain_id: 31337,
        rpc_connected: false,
        store: { kind: "mongodb", connected: true },
      });
      expect(response.headers.get("x-ratelimit-limit")).to.equal("60");
      // The instance is a node of the network from its first heartbeat on.
      const nodes = await running.stores.nodes.list();
      expect(nodes.map(({ role, version, url, registeredBy }) => ({ role, version, url, registeredBy }))).to.deep.equal(
        [{ role: "api", version: SERVICE_VERSION, url: config.publicUrl, registeredBy: "self" }],
      );
      // A client that hangs up mid-request; shutdown starts while its handler still runs.
      const aborted = new AbortController();
      const pending = fetch(`${running.url}/api/v1/test/slow`, { signal: aborted.signal }).catch(() => "aborted");
      while (slowHandler !== "running") await new Promise((resolve) => setTimeout(resolve, 10));
      aborted.abort();
      expect(await pending).to.equal("aborted");
    } finally {
      await running.close();
      await running.close(); // idempotent
    }
    expect(slowHandler).to.equal("finished");
    const refused = await fetch(`${running.url}/health`).then(
      () => "answered",
      () => "refused",
    );
    expect(refused).to.equal("refused");
    const client = await MongoClient.connect(mongoUri);
    await client.db(dbName).dropDatabase();
    await client.close();
  });
});
