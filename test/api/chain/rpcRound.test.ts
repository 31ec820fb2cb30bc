import { expect } from "chai";
import { ethers } from "hardhat";
import { JsonRpcProvider, Network, type JsonRpcPayload } from "ethers";
import { jsonRpcProvider, type RpcProvider } from "../../../api/src/chain";
import { inOneRound, RpcRound } from "../../../api/src/chain/rpcRound";
import { serveChain } from "../tx/chainServer";

/** The payloads of every HTTP request `provider` sends, by wrapping its `_send`. */
function recordSends(provider: JsonRpcProvider): JsonRpcPayload[][] {
  const sent: JsonRpcPayload[][] = [];
  const send = provider._send.bind(provider);
  provider._send = (payload) => {
    sent.push(Array.isArray(payload) ? payload : [payload]);
    return send(payload);
  };
  return sent;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A JSON-RPC round (api/src/chain/rpcRound.ts): requests gathered, then sent as one batch where the caller says. */
describe("RpcRound (JSON-RPC batches sent when the caller says)", function () {
  let served: Awaited<ReturnType<typeof serveChain>>;

  before(async function () {
    served = await serveChain();
  });

  after(async function () {
    await served.close();
  });

  it("sends nothing before the flush, then every request in one HTTP request, answered as the provider answers", async function () {
    const provider = jsonRpcProvider(served.url, 31337);
    try {
      const sent = recordSends(provider);
      const round = new RpcRound(provider as unknown as RpcProvider);
      const head = await provider.getBlockNumber();
      sent.length = 0;
      const answers = Promise.all([
        round.send("eth_blockNumber", []),
        round.send("eth_chainId", []),
        round.send("eth_getBlockByNumber", [`0x${head.toString(16)}`, false]),
      ]);
      await turn();
      await turn();
      expect(sent, "nothing leaves before the flush").to.deep.equal([]);
      round.flush();
      const [block, chainId, header] = await answers;
      expect(sent.map((batch) => batch.map((payload) => payload.method))).to.deep.equal([
        ["eth_blockNumber", "eth_chainId", "eth_getBlockByNumber"],
      ]);
      expect(Number(block)).to.equal(head);
      expect(chainId).to.equal(await provider.send("eth_chainId", []));
      expect(header).to.deep.equal(await provider.send("eth_getBlockByNumber", [`0x${head.toString(16)}`, false]));
      expect(round.sent).to.equal(true);
      expect(() => round.send("eth_blockNumber", [])).to.throw("a JSON-RPC round already sent");
    } finally {
      provider.destroy();
    }
  });

  it("refuses an error answer with the error the provider's own send gives, and answers the rest of the batch", async function () {
    const provider = jsonRpcProvider(served.url, 31337);
    try {
      const own = await provider.send("eth_noSuchMethod", []).catch((error: unknown) => error);
      const round = new RpcRound(provider as unknown as RpcProvider);
      const failing = round.send("eth_noSuchMethod", []).catch((error: unknown) => error);
      const fine = round.send("eth_chainId", []);
      round.flush();
      const error = (await failing) as Error & { code?: string };
      expect(error).to.be.instanceOf(Error);
      expect(error.code).to.equal((own as { code?: string }).code);
      // The node's error object as given, and the request it answered (ids differ: each batch counts its own).
      expect((error as { error?: unknown }).error).to.deep.equal((own as { error?: unknown }).error);
      expect((error as { payload?: { method: string } }).payload?.method).to.equal("eth_noSuchMethod");
      expect(await fine).to.equal("0x7a69");
    } finally {
      provider.destroy();
    }
  });

  it("splits a round at the provider's batchMaxCount and matches every answer to its request", async function () {
    const provider = new JsonRpcProvider(served.url, Network.from(31337), {
      staticNetwork: true,
      batchMaxCount: 2,
      cacheTimeout: -1,
    });
    try {
      const sent = recordSends(provider);
      await ethers.provider.send("hardhat_mine", ["0x4"]);
      const head = await provider.getBlockNumber();
      sent.length = 0;
      const numbers = [head - 4, head - 3, head - 2, head - 1, head];
      const headers = await inOneRound(provider as unknown as RpcProvider, (round) =>
        Promise.all(numbers.map((n) => round.send("eth_getBlockByNumber", [`0x${n.toString(16)}`, false]))),
      );
      expect(sent.map((batch) => batch.length)).to.deep.equal([2, 2, 1]);
      expect(headers.map((header) => Number((header as { number: string }).number))).to.deep.equal(numbers);
    } finally {
      provider.destroy();
    }
  });

  it("refuses a request whose answer is missing from the batch with BAD_DATA", async function () {
    const provider = jsonRpcProvider(served.url, 31337);
    try {
      const send = provider._send.bind(provider);
      // A node that leaves the second answer out of its batch answer.
      provider._send = async (payload) => (await send(payload)).filter((answer) => answer.id !== 2);
      const round = new RpcRound(provider as unknown as RpcProvider);
      const first = round.send("eth_chainId", []);
      const second = round.send("eth_chainId", []).catch((error: unknown) => error);
      round.flush();
      expect(await first).to.equal("0x7a69");
      expect(await second).to.include({ code: "BAD_DATA", shortMessage: "missing response for request" });
    } finally {
      provider.destroy();
    }
  });

  it("refuses every request of a batch whose HTTP request fails", async function () {
    const closed = await serveChain();
    await closed.close();
    const provider = jsonRpcProvider(closed.url, 31337);
    try {
      const round = new RpcRound(provider as unknown as RpcProvider);
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
    } finally {
      provider.destroy();
    }
  });

  it("hands each request to the send of a provider that sends no batches itself (Hardhat's in-process provider)", async function () {
    const provider = ethers.provider as unknown as RpcProvider;
    const head = await ethers.provider.getBlockNumber();
    const [block, chainId] = await inOneRound(provider, (round) =>
      Promise.all([round.send("eth_blockNumber", []), round.send("eth_chainId", [])]),
    );
    expect(Number(block)).to.equal(head);
    expect(chainId).to.equal("0x7a69");
  });
});
