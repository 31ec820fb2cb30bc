import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceMetrics } from "./metrics";

/**
 * The operators' listener: GET /metrics on its own port and address (METRICS_PORT, METRICS_HOST, loopback by
 * default), never on the public doors, so that reaching it takes the network access an operator grants (a
 * Prometheus beside the instance, a port not published through the load balancer) rather than a secret in a header.
 */

export interface MetricsListener {
  readonly server: Server;
  /** http://host:port/metrics actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

export async function listenForMetrics(metrics: ServiceMetrics, port: number, host: string): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path !== "/metrics") {
      response.writeHead(404, { "Content-Type": "text/plain" }).end("not found: the metrics are at /metrics\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain" }).end("use GET\n");
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => response.writeHead(200, { "Content-Type": contentType }).end(body),
      (error: unknown) =>
        response
          .writeHead(500, { "Content-Type": "text/plain" })
          .end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
