import { expect } from "chai";
import { WebSocket } from "ws";
import { loadConfig } from "../../../api/src/config";
import { createLogger } from "../../../api/src/logger";
import { ServiceMetrics } from "../../../api/src/observability/metrics";
import { startServer } from "../../../api/src/server";
import { request, startTestApp, type TestApp } from "../helpers/app";

/**
 * Prometheus metrics: served on the operators' own listener only (never on the public doors), with requests
 * recorded by route template (a bounded label set whatever the paths asked), refusals by door, and the open sockets.
 */

const count = (text: string, labels: string) =>
  Number(new RegExp(`^nap_http_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);

describe("Ops: Prometheus metrics", function () {
  describe("the metrics listener (METRICS_PORT, METRICS_HOST)", function () {
    it("serves GET /metrics on loopback by default, nothing else there, and no /metrics on the public port", async function () {
      const config = loadConfig({
        PORT: "0",
        METRICS_PORT: "0",
        CHAIN_ID: "31337",
        RPC_URL: "http://127.0.0.1:9",
        DEPLOYMENT_FILE: "/nonexistent/31337.json",
        LOG_LEVEL: "silent",
      });
      expect(config.metrics).to.deep.equal({ port: 0, host: "127.0.0.1" });
      const running = await startServer(config, createLogger("silent"));
      const metricsUrl = running.metricsUrl as string;
      try {
        expect(metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        const scraped = await fetch(metricsUrl);
        expect(scraped.status).to.equal(200);
        expect(scraped.headers.get("content-type")).to.equal("text/plain; version=0.0.4; charset=utf-8");
        const text = await scraped.text();
        for (const name of [
          "nap_process_cpu_user_seconds_total",
          "nap_nodejs_eventloop_lag_seconds",
          "nap_open_sockets",
          "nap_tx_queue_depth",
          "nap_indexer_lag_blocks",
          "nap_http_request_duration_seconds",
          "nap_limiter_refusals_total",
          "nap_indexer_step_duration_seconds",
          "nap_tx_retries_total",
          "nap_tx_failures_total",
        ]) {
          expect(text, name).to.include(`# TYPE ${name} `);
        }
        expect((await fetch(metricsUrl, { method: "POST" })).status).to.equal(405);
        expect((await fetch(metricsUrl.replace(/\/metrics$/, "/health"))).status).to.equal(404);
        expect((await fetch(`${running.url}/metrics`)).status).to.equal(404);
      } finally {
        await running.close();
      }
      const after = await fetch(metricsUrl).then(
        () => "answered",
        () => "refused",
      );
      expect(after).to.equal("refused");
    });

    it("is off unless METRICS_PORT is set", async function () {
      expect(loadConfig({}).metrics).to.equal(undefined);
      expect(loadConfig({ METRICS_PORT: "9464", METRICS_HOST: "10.0.0.7" }).metrics).to.deep.equal({
        port: 9464,
        host: "10.0.0.7",
      });
      expect(() => loadConfig({ METRICS_PORT: "70000" })).to.throw(/METRICS_PORT/);
    });
  });

  describe("what the doors record", function () {
    let api: TestApp;
    let metrics: ServiceMetrics;

    beforeEach(async function () {
      metrics = new ServiceMetrics();
      api = await startTestApp({ env: { RATE_LIMITS_DISABLED: "false" }, extra: { metrics } });
    });

    afterEach(async function () {
      await api.close();
    });

    it("labels requests by route template, never by raw path (a path scan adds no label values)", async function () {
      await request(api.url, "GET", "/v1/vaults/0x0000000000000000000000000000000000000001");
      await request(api.url, "GET", "/v1/vaults/0x0000000000000000000000000000000000000002/history");
      await request(api.url, "GET", "/v1/vaults/0x0000000000000000000000000000000000000003/history");
      for (let i = 0; i < 20; i++) await request(api.url, "GET", `/wp-admin/probe-${i}.php`);
      await request(api.url, "GET", "/graphql?query=%7B__typename%7D");
      const text = (await metrics.exposition()).body;
      const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
      expect([...routes].sort()).to.deep.equal(
        ["/graphql", "/v1/vaults/:address", "/v1/vaults/:address/history", "unmatched"].sort(),
      );
      expect(count(text, 'door="live",route="unmatched",method="GET",status="404"')).to.equal(20);
      expect(text).to.match(/door="data",route="\/v1\/vaults\/:address\/history",method="GET",status="\d+"\} 2$/m);
      expect(text).to.match(/door="graphql",route="\/graphql",method="GET",status="200"\} 1$/m);
    });

    it("counts the rate limiter's refusals (429) by door", async function () {
      for (let i = 0; i < 61; i++) await request(api.url, "GET", "/health");
      const text = (await metrics.exposition()).body;
      expect(count(text, 'door="live",route="/health",method="GET",status="200"')).to.equal(60);
      expect(count(text, 'door="live",route="/health",method="GET",status="429"')).to.equal(1);
      expect(text).to.include('nap_limiter_refusals_total{door="live"} 1');
    });

    it("reports the sockets open on each socket door", async function () {
      const socket = new WebSocket(`${api.url.replace("http", "ws")}/ws`);
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      const open = (await metrics.exposition()).body;
      expect(open).to.include('nap_open_sockets{door="ws"} 1');
      expect(open).to.include('nap_open_sockets{door="graphql"} 0');
      await new Promise((resolve) => {
        socket.once("close", resolve);
        socket.close();
      });
      for (let i = 0; i < 50 && api.app.ws.connections > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect((await metrics.exposition()).body).to.include('nap_open_sockets{door="ws"} 0');
    });
  });
});
