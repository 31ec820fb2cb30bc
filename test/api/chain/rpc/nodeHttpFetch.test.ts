import { expect } from "chai";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getHttpRpcClient } from "viem/utils";
import { nodeHttpFetch } from "../../../../api/src/chain/rpc/nodeHttpFetch";
import { isNetworkError } from "../../../../api/src/chain/rpcErrors";
import { serveChain } from "../../tx/chainServer";

async function serve(listener: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** What a request through viem's HTTP RPC client gives: its answer, or its error's class, status and message. */
async function outcome(ask: () => Promise<unknown>): Promise<unknown> {
  return ask().then(
    (answer) => ({ answer }),
    (error: Error & { status?: number; details?: string }) => ({
      error: error.name,
      status: error.status,
      details: error.details,
      network: isNetworkError(error),
    }),
  );
}

const body = [
  { jsonrpc: "2.0" as const, id: 1, method: "eth_chainId", params: [] },
  { jsonrpc: "2.0" as const, id: 2, method: "eth_noSuchMethod", params: [] },
];

/** nodeHttpFetch (api/src/chain/rpc/nodeHttpFetch.ts) gives viem's client what Node's fetch gives it. */
describe("nodeHttpFetch (viem's fetchFn over node:http)", function () {
  it("answers a JSON-RPC batch of the chain as Node's fetch does", async function () {
    const served = await serveChain();
    try {
      const ours = getHttpRpcClient(served.url, { fetchFn: nodeHttpFetch });
      const theirs = getHttpRpcClient(served.url);
      const answer = await outcome(() => ours.request({ body }));
      expect(answer).to.deep.equal(await outcome(() => theirs.request({ body })));
      expect((answer as { answer: { result?: string }[] }).answer[0].result).to.equal("0x7a69");
    } finally {
      await served.close();
    }
  });

  it("refuses an HTTP error status as Node's fetch does, with the status and body", async function () {
    const { url, server } = await serve((_, response) => {
      response.writeHead(503, "Service Unavailable", { "content-type": "text/plain" });
      response.end("node is syncing");
    });
    try {
      const ours = await outcome(() => getHttpRpcClient(url, { fetchFn: nodeHttpFetch }).request({ body }));
      expect(ours).to.deep.equal(await outcome(() => getHttpRpcClient(url).request({ body })));
      expect(ours).to.include({ error: "HttpRequestError", status: 503, network: false });
    } finally {
      await close(server);
    }
  });

  it("refuses a closed port and a node that never answers as unreachable (rpcErrors), as Node's fetch does", async function () {
    const { url, server } = await serve(() => undefined);
    try {
      const silent = await outcome(() =>
        getHttpRpcClient(url, { fetchFn: nodeHttpFetch, timeout: 200 }).request({ body }),
      );
      expect(silent).to.deep.equal(await outcome(() => getHttpRpcClient(url, { timeout: 200 }).request({ body })));
      expect(silent).to.include({ error: "TimeoutError", network: true });
    } finally {
      await close(server);
    }
    const refused = await outcome(() => getHttpRpcClient(url, { fetchFn: nodeHttpFetch }).request({ body }));
    expect(refused).to.include({ error: "HttpRequestError", network: true });
    expect((await outcome(() => getHttpRpcClient(url).request({ body }))) as object).to.include({
      error: "HttpRequestError",
      network: true,
    });
  });
});
