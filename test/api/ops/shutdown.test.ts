import { expect } from "chai";
import { WebSocket } from "ws";
import { loadConfig } from "../../../api/src/config";
import { createLogger } from "../../../api/src/logger";
import { startServer } from "../../../api/src/server";

/**
 * The graceful shutdown seen from the sockets and the metrics listener: open WebSockets are closed with 1001 (going
 * away, so clients reconnect elsewhere and resume), and the metrics listener stops with the server.
 */
describe("Ops: graceful shutdown of a running server", function () {
  it("closes /ws and GraphQL subscription sockets with 1001 and stops within the bound", async function () {
    const config = loadConfig({
      PORT: "0",
      METRICS_PORT: "0",
      CHAIN_ID: "31337",
      RPC_URL: "http://127.0.0.1:9",
      DEPLOYMENT_FILE: "/nonexistent/31337.json",
      SHUTDOWN_TIMEOUT_MS: "3000",
      LOG_LEVEL: "silent",
    });
    const running = await startServer(config, createLogger("silent"));
    const base = running.url.replace("http", "ws");
    const sockets = [new WebSocket(`${base}/ws`), new WebSocket(`${base}/graphql`, "graphql-transport-ws")];
    await Promise.all(sockets.map((socket) => new Promise((open) => socket.once("open", open))));
    const closes = sockets.map(
      (socket) => new Promise<number>((closed) => socket.once("close", (code: number) => closed(code))),
    );
    const started = Date.now();
    await running.close();
    expect(Date.now() - started).to.be.below(3_000);
    expect(await Promise.all(closes)).to.deep.equal([1001, 1001]);
    const metrics = await fetch(running.metricsUrl as string).then(
      () => "answered",
      () => "refused",
    );
    expect(metrics).to.equal("refused");
  });
});
