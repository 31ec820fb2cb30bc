/**
 * `npx ts-node --transpile-only bench/chain.ts`: each hand-written piece of the chain client room
 * (api/src/chain/README.md) beside the library code it replaces, on the same input, in this process: microseconds per
 * call (median of BENCH_ROUNDS rounds, default 7, of a fixed number of calls each after a warm-up) and the ratio.
 * The equivalence tests named in the README hold each piece to the library's answers.
 *
 * - readHexAbi (decodeAbiParameters.ts) beside ethers' AbiCoder.decode: a VaultLens `records` answer of six vaults
 *   and a Deposit log's data, as the indexer decodes them.
 * - encodeSubmit (calldata.ts) beside ethers' Interface.encodeFunctionData for StrategyRegistryV3.submit.
 * - addressListCall (indexer/sampler.ts) beside Interface.encodeFunctionData for VaultLens.samples of six vaults.
 * - signPopulated (wallets.ts: viem's serializeTransaction, signed by libsecp256k1) beside ethers'
 *   Wallet.signTransaction of the same EIP-1559 fields.
 * - RpcRound (rpc/round.ts) beside viem's HTTP transport with `batch`: rounds of three requests, each waiting on the
 *   one before, against a local JSON-RPC server that answers at once (the time of a round trip, not of the node).
 * - nodeHttpFetch (rpc/nodeHttpFetch.ts) beside Node's global fetch, each under viem's HTTP RPC client: one request
 *   after another to the same server.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AbiCoder, HDNodeWallet, Wallet } from "ethers";
import { http } from "viem";
import { getHttpRpcClient } from "viem/utils";
import { readHexAbi } from "../api/src/chain/decodeAbiParameters";
import { encodeSubmit } from "../api/src/chain/calldata";
import { keccakReady } from "../api/src/chain/keccak";
import { httpJsonRpc } from "../api/src/chain/rpc/jsonRpc";
import { nodeHttpFetch } from "../api/src/chain/rpc/nodeHttpFetch";
import { inOneRound } from "../api/src/chain/rpc/round";
import { DerivedSigner } from "../api/src/chain/wallets";
import { jsonRpcProvider } from "../api/src/chain";
import { addressListCall } from "../api/src/indexer/sampler";
import { NapVault__factory, StrategyRegistryV3__factory, VaultLens__factory } from "../typechain-types";
import { median } from "./support";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const coder = AbiCoder.defaultAbiCoder();

/** Microseconds per call of `fn`: the median of ROUNDS rounds of `calls` calls, after one round not counted. */
async function perCall(calls: number, fn: () => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) await fn();
    if (round >= 0) rounds.push(((performance.now() - started) * 1000) / calls);
  }
  return median(rounds);
}

function row(piece: string, replaces: string, ours: number, theirs: number): string {
  return `| ${piece} | ${ours.toFixed(1)} | ${replaces} | ${theirs.toFixed(1)} | ${(theirs / ours).toFixed(2)} |`;
}

const VAULTS = Array.from({ length: 6 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "a")}`);

async function abiRows(): Promise<string[]> {
  const lens = VaultLens__factory.createInterface();
  const records = lens.getFunction("records")!;
  const record = (i: number) => ({
    name: `NAP vault ${i}`,
    symbol: `napV${i}`,
    asset: VAULTS[0],
    assetDecimals: 6n,
    shareDecimals: 12n,
    totalAssets: 10n ** 12n + BigInt(i),
    totalSupply: 10n ** 18n,
    pricePerShare: 10n ** 6n,
    managementFeeBps: 100n,
    performanceFeeBps: 1_000n,
    hurdleRateBps: 500n,
    riskLevel: 1n,
    isERC7540: i % 2 === 0,
    fulfillmentDelay: 3_600n,
    paused: false,
    createdAt: 1_700_000_000n,
    allocations: [
      { strategyId: `0x${"11".repeat(32)}`, targetBps: 6_000n },
      { strategyId: `0x${"22".repeat(32)}`, targetBps: 4_000n },
    ],
  });
  const answer = lens.encodeFunctionResult(records, [VAULTS.map((_, i) => record(i))]);
  const deposit = NapVault__factory.createInterface().getEvent("Deposit")!;
  const plain = deposit.inputs.filter((input) => !input.indexed);
  const data = coder.encode(plain, [1_000_000n, 999_000n]);
  return [
    row(
      "readHexAbi, VaultLens records of 6 vaults",
      "AbiCoder.decode",
      await perCall(2_000, () => readHexAbi(records.outputs, answer)),
      await perCall(2_000, () => coder.decode(records.outputs, answer)),
    ),
    row(
      "readHexAbi, Deposit log data",
      "AbiCoder.decode",
      await perCall(20_000, () => readHexAbi(plain, data)),
      await perCall(20_000, () => coder.decode(plain, data)),
    ),
  ];
}

async function encodingRows(): Promise<string[]> {
  const registry = StrategyRegistryV3__factory.createInterface();
  const risk = {
    maxPositionSizePercent: 10n,
    maxLeverage: 200n,
    stopLossPercent: 500n,
    slippageToleranceBps: 100n,
    correlationThreshold: 70n,
    velocityLimit: 1_000_000n,
    flashLoansEnabled: false,
  };
  const dna = `0x${"ab".repeat(32)}`;
  const samples = VaultLens__factory.createInterface().getFunction("samples")!;
  const lens = VaultLens__factory.createInterface();
  return [
    row(
      "encodeSubmit, StrategyRegistryV3.submit",
      "Interface.encodeFunctionData",
      await perCall(5_000, () => encodeSubmit("momentum", "a strategy of the bench", dna, risk)),
      await perCall(5_000, () =>
        registry.encodeFunctionData("submit", ["momentum", "a strategy of the bench", dna, risk]),
      ),
    ),
    row(
      "addressListCall, VaultLens.samples of 6 vaults",
      "Interface.encodeFunctionData",
      await perCall(20_000, () => addressListCall(samples.selector, VAULTS)),
      await perCall(20_000, () => lens.encodeFunctionData("samples", [VAULTS])),
    ),
  ];
}

async function signingRows(): Promise<string[]> {
  const wallet = HDNodeWallet.fromPhrase(
    "myth like bonus scare over problem client lizard pioneer submit female collect",
    undefined,
    "m/44'/60'/1'/0/0",
  );
  const signer = new DerivedSigner(new Wallet(wallet.privateKey), "m/44'/60'/1'/0/0", null);
  const fields = {
    chainId: 31337n,
    nonce: 7,
    maxPriorityFeePerGas: 1_000_000n,
    maxFeePerGas: 2_000_000_000n,
    gasLimit: 300_000n,
    to: VAULTS[1],
    value: 0n,
    data: `0x${"ab".repeat(420)}`,
  };
  const plainWallet = new Wallet(wallet.privateKey);
  return [
    row(
      "signPopulated, EIP-1559 transaction",
      "Wallet.signTransaction",
      await perCall(1_000, () => signer.signPopulated(fields)),
      await perCall(300, () => plainWallet.signTransaction({ ...fields, type: 2 })),
    ),
  ];
}

async function roundRows(): Promise<string[]> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number } | { id: number }[];
      const answer = (payload: { id: number }) => ({ jsonrpc: "2.0", id: payload.id, result: "0x10" });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const provider = jsonRpcProvider(url, 31337);
  const rpc = httpJsonRpc(url, provider);
  const transport = http(url, { batch: { wait: 0 }, retryCount: 0, fetchFn: nodeHttpFetch })({ chain: undefined });
  const three = ["eth_blockNumber", "eth_chainId", "eth_gasPrice"];
  const body = [{ jsonrpc: "2.0" as const, id: 1, method: "eth_blockNumber", params: [] }];
  const ours = getHttpRpcClient(url, { fetchFn: nodeHttpFetch, maxResponseBodySize: false });
  const nodes = getHttpRpcClient(url, { maxResponseBodySize: false });
  try {
    return [
      row(
        "RpcRound, a round of 3 requests",
        "viem http transport, batch",
        await perCall(300, () =>
          inOneRound(rpc, (round) => Promise.all(three.map((method) => round.send(method, [])))),
        ),
        await perCall(300, () => Promise.all(three.map((method) => transport.request({ method, params: [] })))),
      ),
      row(
        "nodeHttpFetch, one request (viem's client)",
        "Node's fetch",
        await perCall(300, () => ours.request({ body })),
        await perCall(300, () => nodes.request({ body })),
      ),
    ];
  } finally {
    provider.destroy();
    server.close();
  }
}

async function main(): Promise<void> {
  await keccakReady;
  const rows = [...(await abiRows()), ...(await encodingRows()), ...(await signingRows()), ...(await roundRows())];
  console.log(`\n| hand-written piece | µs per call | replaces | µs per call | library / piece |`);
  console.log(`|---|---:|---|---:|---:|`);
  for (const line of rows) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
