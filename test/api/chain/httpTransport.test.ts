import { expect } from "chai";
import { FetchRequest, Network } from "ethers";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { jsonRpcProvider } from "../../../api/src/chain";
import { gatheringGetUrl } from "../../../api/src/chain/httpTransport";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A loopback HTTP server whose answers the test decides. */
async function serve(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => handler(request, Buffer.concat(parts).toString("utf8"), response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Writes `text` in pieces of `size` bytes, each flushed on its own, so the client sees many chunks. */
async function writeInPieces(response: ServerResponse, text: Buffer, size: number): Promise<void> {
  for (let at = 0; at < text.length; at += size) {
    if (!response.write(text.subarray(at, at + size))) await new Promise((resolve) => response.once("drain", resolve));
    if (at % (size * 64) === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

/** What ethers' own Node transport answers for the same request. */
async function viaEthers(url: string, body?: string) {
  const request = new FetchRequest(url);
  if (body !== undefined) request.body = body;
  return FetchRequest.createGetUrlFunc()(request);
}

async function viaGathering(url: string, body?: string) {
  const request = new FetchRequest(url);
  if (body !== undefined) request.body = body;
  return gatheringGetUrl(request);
}

describe("chain: the JSON-RPC provider's HTTP transport (chunks gathered once)", function () {
  const servers: Server[] = [];
  after(() => servers.forEach((server) => server.close()));
  const start = async (handler: Handler) => {
    const { url, server } = await serve(handler);
    servers.push(server);
    return url;
  };

  it("answers a 2 MB body sent in 1 kB chunks byte for byte as ethers' transport does", async function () {
    const text = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, result: "ab".repeat(1_000_000) }), "utf8");
    const url = await start((_request, _body, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      void writeInPieces(response, text, 1024);
    });
    const [ours, theirs] = [await viaGathering(url, "{}"), await viaEthers(url, "{}")];
    expect(Buffer.from(ours.body!).equals(text)).to.equal(true);
    expect(ours.statusCode).to.equal(200);
    expect(ours.statusMessage).to.equal(theirs.statusMessage);
    expect(Buffer.from(ours.body!).equals(Buffer.from(theirs.body!))).to.equal(true);
    expect(ours.headers["content-type"]).to.equal(theirs.headers["content-type"]);
  });

  it("unzips a gzip answer, passes an error status with its body, and answers an empty body as null, like ethers", async function () {
    const url = await start((request, body, response) => {
      if (request.url === "/gzip") {
        response.writeHead(200, { "content-encoding": "gzip" });
        response.end(gzipSync(Buffer.from(`echo:${body}`)));
      } else if (request.url === "/error") {
        response.writeHead(503, "Busy", { "content-type": "text/plain" });
        response.end("try later");
      } else {
        response.writeHead(204);
        response.end();
      }
    });
    for (const path of ["/gzip", "/error", "/empty"]) {
      const [ours, theirs] = [await viaGathering(url + path, "hello"), await viaEthers(url + path, "hello")];
      expect([ours.statusCode, ours.statusMessage], path).to.deep.equal([theirs.statusCode, theirs.statusMessage]);
      expect(ours.body === null ? null : Buffer.from(ours.body).toString(), path).to.equal(
        theirs.body === null ? null : Buffer.from(theirs.body).toString(),
      );
    }
    expect(Buffer.from((await viaGathering(`${url}/gzip`, "hello")).body!).toString()).to.equal("echo:hello");
  });

  it("rejects with TIMEOUT when the server does not answer within the request's timeout", async function () {
    const url = await start(() => undefined);
    const request = new FetchRequest(url);
    request.timeout = 200;
    const error = await gatheringGetUrl(request).then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(error?.code).to.equal("TIMEOUT");
  });

  it("serves the service's provider: an eth_getLogs answer of many chunks decodes to every log", async function () {
    const logs = Array.from({ length: 3_000 }, (_, i) => ({
      address: "0x" + "11".repeat(20),
      topics: ["0x" + i.toString(16).padStart(64, "0")],
      data: "0x" + "00".repeat(96),
      blockNumber: "0x" + (i + 1).toString(16),
      blockHash: "0x" + "22".repeat(32),
      transactionHash: "0x" + "33".repeat(32),
      transactionIndex: "0x0",
      logIndex: "0x" + i.toString(16),
      removed: false,
    }));
    const url = await start((_request, body, response) => {
      const calls = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      const answer = (call: { id: number; method: string }) => ({
        jsonrpc: "2.0",
        id: call.id,
        result: call.method === "eth_getLogs" ? logs : "0x7a69",
      });
      response.writeHead(200, { "content-type": "application/json" });
      const text = JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls));
      void writeInPieces(response, Buffer.from(text), 512);
    });
    const provider = jsonRpcProvider(url, 31337);
    expect((await provider.getNetwork()).chainId).to.equal(Network.from(31337).chainId);
    const got = (await provider.send("eth_getLogs", [{ fromBlock: "0x1", toBlock: "0xbb8" }])) as typeof logs;
    expect(got).to.deep.equal(logs);
    provider.destroy();
  });
});
