/**
 * `npm run bench:tx`: strategy submissions through the API at BENCH_AGENTS (default 50) concurrent agents, beside the
 * raw throughput of the node for the same transactions measured in the same run, and the keyed reads.
 *
 * 1. Raw node: BENCH_AGENTS funded wallets each send BENCH_TX_PER_AGENT (default 10) StrategyRegistryV3.submit
 *    transactions straight to the node (signed beforehand with the gas limit and fees the engine would use, the
 *    next one sent as soon as the previous receipt is there): what the node itself sustains.
 * 2. Engine: BENCH_AGENTS registered agents each POST BENCH_TX_PER_AGENT submissions back to back, all agents at
 *    once: the same transactions, signed, journaled and awaited by the transaction engine behind HTTP.
 *    The two alternate over BENCH_ROUNDS rounds (default 3); the table gives medians and the ratio of the rates.
 * 3. Keyed reads: GET /api/v1/agent/wallet and /api/v1/agent/vault/positions (autocannon, BENCH_CONNECTIONS
 *    connections, BENCH_DURATION seconds each).
 *
 * Separate processes on loopback: a Hardhat node (automine) with the whole system deployed, and the API (rate limits
 * lifted; MongoDB store and journal when MONGODB_URI is set, else in memory). Automated screening is off, so that the
 * engine sends exactly the transactions the raw run sends (with it on, the relayer adds one per submission). CPU time
 * per transaction of the node and of the API comes from /proc.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { JsonRpcProvider, Network, Wallet, id, parseEther, toBeHex } from "ethers";
import { deploymentSchema } from "../api/src/chain/deployment";
import { StrategyRegistryV3__factory } from "../typechain-types";
import { deployTo, kill, rpc, spawnApi, spawnHardhatNode } from "../test/e2e/processes";
import { median, processCpuMs } from "./support";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const PER_AGENT = Number(process.env.BENCH_TX_PER_AGENT ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COUNT_CALLS = process.env.BENCH_RPC_COUNT === "1";
const CPU_PROFILE_DIR = process.env.BENCH_API_CPU_PROF;
const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";
/** The defaults of the API's risk parameters, as the registry takes them. */
const DEFAULT_RISK = {
  maxPositionSizePercent: 10,
  maxLeverage: 200,
  stopLossPercent: 500,
  slippageToleranceBps: 100,
  correlationThreshold: 70,
  velocityLimit: 1_000_000,
  flashLoansEnabled: false,
};

interface Run {
  label: string;
  perSecond: number;
  latencies: number[];
  /** CPU time per transaction of the node and of the API process, where /proc tells it. */
  nodeCpuMs?: number | null;
  apiCpuMs?: number | null;
}

/** CPU time (user + system, all threads) a process has used so far, in ms; null where /proc is not available. */
function perTx(before: number | null, after: number | null, count: number): number | null {
  return before === null || after === null ? null : (after - before) / count;
}

async function json(url: string, method: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function register(api: string): Promise<string> {
  const wallet = Wallet.createRandom();
  const nonce = await json(`${api}/api/v1/agent/auth/nonce?wallet=${wallet.address}`, "GET");
  const signature = await wallet.signMessage(nonce.body.message as string);
  const registered = await json(`${api}/api/v1/agent/auth/register`, "POST", {
    wallet_address: wallet.address,
    signature,
    nonce: nonce.body.nonce,
    agent_name: "bench agent",
    operator_address: wallet.address,
  });
  if (registered.status !== 200) throw new Error(`register: ${JSON.stringify(registered.body)}`);
  return registered.body.api_key as string;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs `perAgent` sequential operations for each of `agents` at once; latencies in ms. */
async function concurrently(
  agents: number,
  perAgent: number,
  operation: (agent: number, step: number) => Promise<void>,
) {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: agents }, async (_, agent) => {
      for (let step = 0; step < perAgent; step++) {
        const t0 = performance.now();
        await operation(agent, step);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies };
}

/**
 * The node alone: funded wallets send pre-signed submissions straight to it, each the next as soon as the previous
 * receipt is there.
 */
async function rawNode(nodeUrl: string, registryAddress: string, round: number): Promise<Run> {
  const provider = new JsonRpcProvider(nodeUrl, Network.from(31337), { staticNetwork: true, cacheTimeout: -1 });
  try {
    const registry = StrategyRegistryV3__factory.connect(registryAddress, provider);
    const wallets = Array.from({ length: AGENTS }, () => Wallet.createRandom());
    for (const wallet of wallets) await rpc(nodeUrl, "hardhat_setBalance", [wallet.address, toBeHex(parseEther("1"))]);
    const data = (agent: number, step: number) =>
      registry.interface.encodeFunctionData("submit", [
        `bench ${round} ${agent} ${step}`,
        `benchmark submission ${step} of agent ${agent} in round ${round}`,
        id(`raw ${round} ${agent} ${step}`),
        DEFAULT_RISK,
      ]);
    // Gas and fees as the engine takes them: the estimate of one submission plus 20 %, EIP-1559 fees of the node.
    const estimate = await provider.estimateGas({ from: wallets[0].address, to: registryAddress, data: data(0, 0) });
    const fees = await provider.getFeeData();
    const signed = await Promise.all(
      wallets.map((wallet, agent) =>
        Promise.all(
          Array.from({ length: PER_AGENT }, (_, step) =>
            wallet.signTransaction({
              type: 2,
              chainId: 31337,
              nonce: step,
              to: registryAddress,
              data: data(agent, step),
              gasLimit: (estimate * 120n) / 100n,
              maxFeePerGas: fees.maxFeePerGas,
              maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
            }),
          ),
        ),
      ),
    );
    const run = await concurrently(AGENTS, PER_AGENT, async (agent, step) => {
      const hash = await provider.send("eth_sendRawTransaction", [signed[agent][step]]);
      for (;;) {
        const receipt = await provider.getTransactionReceipt(hash);
        if (receipt) {
          if (receipt.status !== 1) throw new Error(`raw submission ${hash} reverted`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    return { label: "raw node (pre-signed, sent straight to it)", ...run };
  } finally {
    provider.destroy();
  }
}

/**
 * One POST on a kept-alive connection with node:http: the load generator shares the machine, and fetch costs about
 * a millisecond of CPU per request here, more than the raw run's client spends per transaction.
 */
function post(pool: Agent, url: URL, body: string, apiKey: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: "POST",
        agent: pool,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "X-API-Key": apiKey },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    request.once("error", reject);
    request.end(body);
  });
}

/** The same submissions through the API: HTTP, auth, validation, journal, signing, receipt. */
async function throughEngine(api: string, keys: string[], round: number): Promise<Run> {
  const pool = new Agent({ keepAlive: true, maxSockets: AGENTS });
  const url = new URL(`${api}/api/v1/agent/strategy/submit`);
  try {
    const run = await concurrently(AGENTS, PER_AGENT, async (agent, step) => {
      const body = JSON.stringify({
        name: `bench ${round} ${agent} ${step}`,
        description: `benchmark submission ${step} of agent ${agent} in round ${round}`,
      });
      const response = await post(pool, url, body, keys[agent]);
      if (response.status !== 200) throw new Error(`submission failed: ${response.status} ${response.text}`);
    });
    return { label: "engine (POST /api/v1/agent/strategy/submit)", ...run };
  } finally {
    pool.destroy();
  }
}

/**
 * A JSON-RPC proxy in front of `target` that counts the calls passing through it by method (batches count each call).
 */
async function countingProxy(target: string): Promise<{ url: string; counts: Map<string, number>; server: Server }> {
  const counts = new Map<string, number>();
  const pool = new Agent({ keepAlive: true, maxSockets: 64 });
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString("utf8")) as { method: string } | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
      }
      const forward = httpRequest(
        target,
        { method: "POST", agent: pool, headers: { "content-type": "application/json", "content-length": body.length } },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, { "content-type": "application/json" });
          answer.pipe(outgoing);
        },
      );
      forward.once("error", (error) => outgoing.destroy(error));
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts, server };
}

async function reads(url: string, apiKey: string) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { "X-API-Key": apiKey },
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** A run of the medians of several: rate, CPU, and the latencies of all of them together. */
function medianRun(runs: Run[]): Run {
  const known = (values: Array<number | null | undefined>) => {
    const numbers = values.filter((value): value is number => typeof value === "number");
    return numbers.length > 0 ? median(numbers) : null;
  };
  return {
    label: runs[0].label,
    perSecond: median(runs.map((run) => run.perSecond)),
    latencies: runs.flatMap((run) => run.latencies),
    nodeCpuMs: known(runs.map((run) => run.nodeCpuMs)),
    apiCpuMs: known(runs.map((run) => run.apiCpuMs)),
  };
}

function row(run: Run): string {
  const sorted = [...run.latencies].sort((x, y) => x - y);
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? "" : value.toFixed(2));
  return (
    `| ${run.label} | ${run.latencies.length} | ${run.perSecond.toFixed(1)} | ` +
    `${percentile(sorted, 50).toFixed(0)} | ${percentile(sorted, 95).toFixed(0)} | ${ms(run.nodeCpuMs)} | ${ms(run.apiCpuMs)} |`
  );
}

async function main(): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), "nap-bench-tx-"));
  console.log("starting a Hardhat node and deploying the system ...");
  const node = await spawnHardhatNode();
  try {
    await deployTo(node.url, outDir);
    const deploymentFile = join(outDir, "31337.json");
    const deployment = deploymentSchema.parse(JSON.parse(readFileSync(deploymentFile, "utf8")));
    const proxy = COUNT_CALLS ? await countingProxy(node.url) : null;
    const api = await spawnApi(
      {
        RPC_URL: proxy?.url ?? node.url,
        CHAIN_ID: "31337",
        DEPLOYMENT_FILE: deploymentFile,
        SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
        RATE_LIMITS_DISABLED: "true",
        STRATEGY_SCREENING: "off",
        SIGNATURE_WORKERS: "0",
        ...(process.env.MONGODB_URI ? { MONGODB_DB: `nap_bench_tx_${Date.now()}` } : {}),
      },
      undefined,
      CPU_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [],
    );
    try {
      console.log(`registering and funding ${AGENTS} agents ...`);
      const keys: string[] = [];
      for (let i = 0; i < AGENTS; i++) {
        const key = await register(api.url);
        const wallet = await json(`${api.url}/api/v1/agent/wallet`, "GET", undefined, { "X-API-Key": key });
        await rpc(node.url, "hardhat_setBalance", [wallet.body.agent_address, toBeHex(parseEther("1"))]);
        keys.push(key);
      }
      // Warm-up of both paths (not counted): compiles the hot code of the API and of the node, and makes each
      // agent's first submission, whose badge (minted by the relayer in the background) is not part of the raw run.
      const warmUps = await Promise.all(
        keys.map((key) =>
          json(
            `${api.url}/api/v1/agent/strategy/submit`,
            "POST",
            { name: "warm up", description: "warm-up submission" },
            { "X-API-Key": key },
          ),
        ),
      );
      const failed = warmUps.find((response) => response.status !== 200);
      if (failed) throw new Error(`warm-up submission: ${failed.status} ${JSON.stringify(failed.body)}`);
      // Until the chain is still for half a second: the badges are minted.
      for (let block = -1; ;) {
        const now = Number(await rpc(node.url, "eth_blockNumber"));
        if (now === block) break;
        block = now;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }

      // The machine is shared and its speed drifts: raw and engine runs alternate, and the table gives medians.
      const raws: Run[] = [];
      const engines: Run[] = [];
      const calls = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        console.log(
          `round ${round + 1}: ${AGENTS} wallets x ${PER_AGENT} submissions straight to the node, then the same through the API ...`,
        );
        const cpu0 = [processCpuMs(node.child.pid), processCpuMs(api.child.pid)];
        const raw = await rawNode(node.url, deployment.contracts.StrategyRegistryV3.address, round);
        const cpu1 = [processCpuMs(node.child.pid), processCpuMs(api.child.pid)];
        proxy?.counts.clear();
        const engine = await throughEngine(api.url, keys, round);
        for (const [method, count] of proxy?.counts ?? []) calls.set(method, (calls.get(method) ?? 0) + count);
        const cpu2 = [processCpuMs(node.child.pid), processCpuMs(api.child.pid)];
        raw.nodeCpuMs = perTx(cpu0[0], cpu1[0], raw.latencies.length);
        engine.nodeCpuMs = perTx(cpu1[0], cpu2[0], engine.latencies.length);
        engine.apiCpuMs = perTx(cpu1[1], cpu2[1], engine.latencies.length);
        console.log(
          `  raw ${raw.perSecond.toFixed(1)}/s, engine ${engine.perSecond.toFixed(1)}/s, ratio ${(engine.perSecond / raw.perSecond).toFixed(2)}`,
        );
        raws.push(raw);
        engines.push(engine);
      }
      console.log("keyed reads under load ...");
      const wallet = await reads(`${api.url}/api/v1/agent/wallet`, keys[1]);
      const positions = await reads(`${api.url}/api/v1/agent/vault/positions`, keys[1]);

      const store = process.env.MONGODB_URI ? "MongoDB" : "memory";
      console.log("");
      console.log(
        `| submissions (${AGENTS} at once, Hardhat node automine, store: ${store}) | total | per second | p50 (ms) | p95 (ms) | node CPU ms/tx | API CPU ms/tx |`,
      );
      console.log("|---|---:|---:|---:|---:|---:|---:|");
      console.log(row(medianRun(raws)));
      console.log(row(medianRun(engines)));
      const ratio = median(engines.map((engine, i) => engine.perSecond / raws[i].perSecond));
      console.log(`| engine / raw node (median of ${ROUNDS} rounds) | | ${ratio.toFixed(2)} | | | | |`);
      if (proxy) {
        const submissions = ROUNDS * AGENTS * PER_AGENT;
        const total = [...calls.values()].reduce((sum, count) => sum + count, 0);
        console.log("");
        console.log(`| JSON-RPC calls of the engine per submission (${submissions}) | calls |`);
        console.log("|---|---:|");
        for (const [method, count] of [...calls].sort((a, b) => b[1] - a[1])) {
          console.log(`| ${method} | ${(count / submissions).toFixed(3)} |`);
        }
        console.log(`| all | ${(total / submissions).toFixed(3)} |`);
      }
      console.log("");
      console.log("| keyed read (one key, no new blocks) | req/s | p50 (ms) | p99 (ms) |");
      console.log("|---|---:|---:|---:|");
      console.log(`| GET /api/v1/agent/wallet | ${wallet.rps.toFixed(0)} | ${wallet.p50} | ${wallet.p99} |`);
      console.log(
        `| GET /api/v1/agent/vault/positions | ${positions.rps.toFixed(0)} | ${positions.p50} | ${positions.p99} |`,
      );
    } finally {
      await kill(api.child, "SIGTERM");
      proxy?.server.close();
    }
  } finally {
    await kill(node.child);
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
