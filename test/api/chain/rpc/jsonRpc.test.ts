import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ethers } from "hardhat";
import { jsonRpcProvider, type RpcProvider } from "../../../../api/src/chain";
import {
  getBlockHeader,
  getLogs,
  getTransactionCount,
  getTransactionReceipt,
} from "../../../../api/src/chain/rpc/actions";
import { httpJsonRpc, providerJsonRpc } from "../../../../api/src/chain/rpc/jsonRpc";
import { inOneRound, RpcRound } from "../../../../api/src/chain/rpc/round";
import { isNetworkError } from "../../../../api/src/chain/rpcErrors";
import { serveChain } from "../../tx/chainServer";

interface Payload {
  id: number;
  method: string;
}

/**
 * An HTTP proxy in front of the served chain that records the JSON-RPC payloads of every HTTP request it passes on,
 * and lets a test change the node's answer on the way back.
 */
async function recordingProxy(
  target: string,
  rewrite: (answer: unknown) => unknown = (answer) => answer,
): Promise<{ url: string; sent: Payload[][]; close(): Promise<void> }> {
  const sent: Payload[][] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(body) as Payload | Payload[];
      sent.push(Array.isArray(parsed) ? parsed : [parsed]);
      fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then((answer) => answer.json())
        .then((answer) => {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify(rewrite(answer)));
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The JSON-RPC connection of the indexer and the engine (api/src/chain/rpc/): viem's HTTP client, ethers' errors. */
describe("JSON-RPC connection (viem's HTTP transport and client, ethers' errors)", function () {
  let served: Awaited<ReturnType<typeof serveChain>>;
  let provider: ReturnType<typeof jsonRpcProvider>;

  before(async function () {
    served = await serveChain();
    provider = jsonRpcProvider(served.url, 31337);
  });

  after(async function () {
    provider.destroy();
    await served.close();
  });

  it("a round sends nothing before the flush, then every request in one HTTP request, answered as the node answers", async function () {
    const proxy = await recordingProxy(served.url);
    try {
      const rpc = httpJsonRpc(proxy.url, provider);
      const round = new RpcRound(rpc);
      const head = await provider.getBlockNumber();
      const answers = Promise.all([
        round.send("eth_blockNumber", []),
        round.send("eth_chainId", []),
        round.send("eth_getBlockByNumber", [`0x${head.toString(16)}`, false]),
      ]);
      await turn();
      await turn();
      expect(proxy.sent, "nothing leaves before the flush").to.deep.equal([]);
      round.flush();
      const [block, chainId, header] = await answers;
      expect(proxy.sent.map((batch) => batch.map((payload) => payload.method))).to.deep.equal([
        ["eth_blockNumber", "eth_chainId", "eth_getBlockByNumber"],
      ]);
      expect(Number(block)).to.equal(head);
      expect(chainId).to.equal("0x7a69");
      expect(header).to.deep.equal(await provider.send("eth_getBlockByNumber", [`0x${head.toString(16)}`, false]));
      expect(round.sent).to.equal(true);
      expect(() => round.send("eth_blockNumber", [])).to.throw("a JSON-RPC round already sent");
    } finally {
      await proxy.close();
    }
  });

  it("send gathers the requests of one turn of the event loop into one HTTP request (viem's batch)", async function () {
    const proxy = await recordingProxy(served.url);
    try {
      const rpc = httpJsonRpc(proxy.url, provider);
      const [chainId, block] = await Promise.all([rpc.send("eth_chainId", []), rpc.send("eth_blockNumber", [])]);
      expect(chainId).to.equal("0x7a69");
      expect(Number(block)).to.equal(await provider.getBlockNumber());
      expect(proxy.sent.map((batch) => batch.map((payload) => payload.method))).to.deep.equal([
        ["eth_chainId", "eth_blockNumber"],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("refuses an error answer with the error ethers' provider gives for it, and answers the rest of the batch", async function () {
    const own = (await provider.send("eth_noSuchMethod", []).catch((error: unknown) => error)) as {
      code?: string;
      error?: unknown;
    };
    const rpc = httpJsonRpc(served.url, provider);
    const round = new RpcRound(rpc);
    const failing = round.send("eth_noSuchMethod", []).catch((error: unknown) => error);
    const fine = round.send("eth_chainId", []);
    round.flush();
    const error = (await failing) as Error & { code?: string; error?: unknown; payload?: { method: string } };
    expect(error).to.be.instanceOf(Error);
    expect(error.code).to.equal(own.code);
    expect(error.error).to.deep.equal(own.error);
    expect(error.payload?.method).to.equal("eth_noSuchMethod");
    expect(await fine).to.equal("0x7a69");
    const single = (await rpc.send("eth_noSuchMethod", []).catch((e: unknown) => e)) as {
      code?: string;
      error?: unknown;
    };
    expect(single.code).to.equal(own.code);
    expect(single.error).to.deep.equal(own.error);
  });

  it("answers and refuses eth_estimateGas as ethers' provider does", async function () {
    const [signer] = await ethers.getSigners();
    const tx = { from: signer.address, to: signer.address, data: "0x", value: "0x0" };
    const owned = await provider.send("eth_estimateGas", [tx]);
    const rpc = httpJsonRpc(served.url, provider);
    expect(await rpc.send("eth_estimateGas", [tx])).to.equal(owned);
    // A transfer above the sender's balance, which the node refuses.
    const refused = { from: signer.address, to: signer.address, data: "0x", value: "0x" + (10n ** 30n).toString(16) };
    const own = (await provider.send("eth_estimateGas", [refused]).catch((e: unknown) => e)) as { code?: string };
    const ours = (await rpc.send("eth_estimateGas", [refused]).catch((e: unknown) => e)) as { code?: string };
    expect(ours.code).to.equal(own.code);
  });

  it("splits a round into HTTP requests of at most 100 requests and matches every answer to its request", async function () {
    const proxy = await recordingProxy(served.url);
    try {
      const rpc = httpJsonRpc(proxy.url, provider);
      const count = 205;
      const counts = await inOneRound(rpc, (round) =>
        Promise.all(Array.from({ length: count }, () => round.send("eth_chainId", []))),
      );
      expect(proxy.sent.map((batch) => batch.length)).to.deep.equal([100, 100, 5]);
      expect(counts).to.deep.equal(Array.from({ length: count }, () => "0x7a69"));
      const ids = proxy.sent.flat().map((payload) => payload.id);
      expect(new Set(ids).size, "every request its own id").to.equal(count);
    } finally {
      await proxy.close();
    }
  });

  it("refuses a request whose answer is missing from the batch with BAD_DATA, and answers the others", async function () {
    // A node that answers the second request of a batch under an id it was not asked.
    const proxy = await recordingProxy(served.url, (answer) =>
      Array.isArray(answer) && answer.length === 2 ? [answer[0], { ...(answer[1] as object), id: 9_999 }] : answer,
    );
    try {
      const rpc = httpJsonRpc(proxy.url, provider);
      const round = new RpcRound(rpc);
      const first = round.send("eth_chainId", []);
      const second = round.send("eth_chainId", []).catch((error: unknown) => error);
      round.flush();
      expect(await first).to.equal("0x7a69");
      expect(await second).to.include({ code: "BAD_DATA", shortMessage: "missing response for request" });
    } finally {
      await proxy.close();
    }
  });

  it("refuses every request of a batch answered with fewer answers than requests (viem's client), not as unreachable", async function () {
    const proxy = await recordingProxy(served.url, (answer) =>
      Array.isArray(answer) && answer.length === 2 ? [answer[0]] : answer,
    );
    try {
      const rpc = httpJsonRpc(proxy.url, provider);
      const round = new RpcRound(rpc);
      const answers = [round.send("eth_chainId", []), round.send("eth_chainId", [])].map((answer) =>
        answer.catch((error: unknown) => error),
      );
      round.flush();
      const [a, b] = await Promise.all(answers);
      expect((a as Error).message).to.include("Expected 2 responses to batch request.");
      expect(b).to.equal(a);
      expect(isNetworkError(a)).to.equal(false);
    } finally {
      await proxy.close();
    }
  });

  it("refuses every request of a batch whose HTTP request fails, with an error rpcErrors calls a network error", async function () {
    const closed = await serveChain();
    await closed.close();
    const rpc = httpJsonRpc(closed.url, provider);
    const round = new RpcRound(rpc);
    const answers = [round.send("eth_chainId", []), round.send("eth_blockNumber", [])].map((answer) =>
      answer.then(
        () => null,
        (error: unknown) => error,
      ),
    );
    round.flush();
    const [a, b] = await Promise.all(answers);
    expect(a).to.be.instanceOf(Error);
    expect(b).to.equal(a);
    expect(isNetworkError(a)).to.equal(true);
    expect(isNetworkError(await rpc.send("eth_chainId", []).catch((e: unknown) => e))).to.equal(true);
  });

  it("hands each request to the send of a provider (Hardhat's in-process provider)", async function () {
    const rpc = providerJsonRpc(ethers.provider as unknown as RpcProvider);
    const head = await ethers.provider.getBlockNumber();
    const [block, chainId] = await inOneRound(rpc, (round) =>
      Promise.all([round.send("eth_blockNumber", []), round.send("eth_chainId", [])]),
    );
    expect(Number(block)).to.equal(head);
    expect(chainId).to.equal("0x7a69");
  });
});

/** The actions (api/src/chain/rpc/actions.ts) give what ethers' Provider methods give, in the fields they read. */
describe("JSON-RPC actions (the same values as ethers' Provider)", function () {
  it("a receipt, its logs, a header and a nonce read as ethers reads them", async function () {
    const [signer] = await ethers.getSigners();
    const token = await ethers.deployContract("TestUSDC", [signer.address]);
    const sent = await token.mint(signer.address, 1_000_000n);
    const mined = (await sent.wait())!;
    const rpc = providerJsonRpc(ethers.provider as unknown as RpcProvider);

    const receipt = (await getTransactionReceipt(rpc, mined.hash))!;
    expect(receipt.hash).to.equal(mined.hash);
    expect(receipt.blockNumber).to.equal(mined.blockNumber);
    expect(receipt.status).to.equal(mined.status);
    expect(receipt.gasUsed).to.equal(mined.gasUsed);
    expect(receipt.logs.map((log) => ({ ...log, address: ethers.getAddress(log.address) }))).to.deep.equal(
      mined.logs.map((log) => ({
        address: log.address,
        topics: [...log.topics],
        data: log.data,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash.toLowerCase(),
        transactionHash: log.transactionHash,
        index: log.index,
      })),
    );
    const address = await token.getAddress();
    expect(await getLogs(rpc, [address], mined.blockNumber, mined.blockNumber)).to.deep.equal(receipt.logs);

    const block = (await ethers.provider.getBlock(mined.blockNumber))!;
    expect(await getBlockHeader(rpc, mined.blockNumber)).to.deep.equal({
      number: block.number,
      hash: block.hash!.toLowerCase(),
      parentHash: block.parentHash.toLowerCase(),
      timestamp: block.timestamp,
    });
    expect(await getBlockHeader(rpc, mined.blockNumber + 1_000)).to.equal(null);
    expect(await getTransactionReceipt(rpc, `0x${"ab".repeat(32)}`)).to.equal(null);
    expect(await getTransactionCount(rpc, signer.address, "latest")).to.equal(
      await ethers.provider.getTransactionCount(signer.address, "latest"),
    );
  });
});
