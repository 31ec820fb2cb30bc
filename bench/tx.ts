/**
 * `npm run bench:tx`: strategy submissions per second and their p50/p95 latency with BENCH_AGENTS (default 50)
 * agents submitting at once (each agent BENCH_TX_PER_AGENT submissions back to back, default 4), then requests per
 * second of the keyed reads GET /api/v1/agent/wallet and GET /api/v1/agent/vault/positions (autocannon,
 * BENCH_CONNECTIONS connections, BENCH_DURATION seconds each).
 *
 * Separate processes on loopback: a Hardhat node (automine) with the whole system deployed, and the API (rate limits
 * lifted; MongoDB store and journal when MONGODB_URI is set, else in memory).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { Wallet, parseEther, toBeHex } from "ethers";
import { deployTo, kill, rpc, spawnApi, spawnHardhatNode } from "../test/e2e/processes";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const PER_AGENT = Number(process.env.BENCH_TX_PER_AGENT ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";

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

async function main(): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), "nap-bench-tx-"));
  console.log("starting a Hardhat node and deploying the system ...");
  const node = await spawnHardhatNode();
  try {
    await deployTo(node.url, outDir);
    const api = await spawnApi({
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(outDir, "31337.json"),
      SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
      RATE_LIMITS_DISABLED: "true",
      SIGNATURE_WORKERS: "0",
      ...(process.env.MONGODB_URI ? { MONGODB_DB: `nap_bench_tx_${Date.now()}` } : {}),
    });
    try {
      console.log(`registering and funding ${AGENTS} agents ...`);
      const keys: string[] = [];
      for (let i = 0; i < AGENTS; i++) {
        const key = await register(api.url);
        const wallet = await json(`${api.url}/api/v1/agent/wallet`, "GET", undefined, { "X-API-Key": key });
        await rpc(node.url, "hardhat_setBalance", [wallet.body.agent_address, toBeHex(parseEther("1"))]);
        keys.push(key);
      }
      // Warm-up: one submission (compiles the hot paths, fills caches).
      await json(
        `${api.url}/api/v1/agent/strategy/submit`,
        "POST",
        { name: "warm up", description: "warm-up submission" },
        {
          "X-API-Key": keys[0],
        },
      );

      console.log(`${AGENTS} agents x ${PER_AGENT} submissions at once ...`);
      const latencies: number[] = [];
      let failures = 0;
      const started = performance.now();
      await Promise.all(
        keys.map(async (key, a) => {
          for (let s = 0; s < PER_AGENT; s++) {
            const t0 = performance.now();
            const response = await json(
              `${api.url}/api/v1/agent/strategy/submit`,
              "POST",
              { name: `bench ${a} ${s}`, description: `benchmark submission ${s} of agent ${a}` },
              { "X-API-Key": key },
            );
            latencies.push(performance.now() - t0);
            if (response.status !== 200) failures++;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((x, y) => x - y);
      if (failures > 0) throw new Error(`${failures} submissions failed`);

      console.log("keyed reads under load ...");
      const wallet = await reads(`${api.url}/api/v1/agent/wallet`, keys[1]);
      const positions = await reads(`${api.url}/api/v1/agent/vault/positions`, keys[1]);

      const store = process.env.MONGODB_URI ? "MongoDB" : "memory";
      console.log("");
      console.log(`| measurement (store: ${store}, Hardhat node automine, 2 shared cores) | value |`);
      console.log("|---|---|");
      console.log(
        `| strategy submissions/s (${AGENTS} agents at once, ${AGENTS * PER_AGENT} total) | ${(latencies.length / seconds).toFixed(1)} |`,
      );
      console.log(`| submission latency p50 (ms) | ${percentile(latencies, 50).toFixed(0)} |`);
      console.log(`| submission latency p95 (ms) | ${percentile(latencies, 95).toFixed(0)} |`);
      console.log(
        `| GET /api/v1/agent/wallet req/s (${CONNECTIONS} connections; p50 ${wallet.p50} ms, p99 ${wallet.p99} ms) | ${wallet.rps.toFixed(0)} |`,
      );
      console.log(
        `| GET /api/v1/agent/vault/positions req/s (${CONNECTIONS} connections; p50 ${positions.p50} ms, p99 ${positions.p99} ms) | ${positions.rps.toFixed(0)} |`,
      );
    } finally {
      await kill(api.child, "SIGTERM");
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
