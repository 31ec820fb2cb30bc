import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { loadConfig } from "../../api/src/config";
import { createLogger } from "../../api/src/logger";
import { startServer } from "../../api/src/server";
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
    const running = await startServer(config, createLogger("silent"));
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
    } finally {
      await running.close();
      await running.close(); // idempotent
    }
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
