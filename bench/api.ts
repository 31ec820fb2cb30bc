/**
 * `npm run bench:api`: throughput of the agent API's public reads beside a bare Koa server answering the same
 * responses, and registrations per second.
 *
 * Everything runs as separate processes on loopback: a Hardhat node with the whole system deployed, the API (rate
 * limits lifted with RATE_LIMITS_DISABLED, in-memory store unless MONGODB_URI is set) and the bare Koa baseline, which
 * is given, before each endpoint's runs, the body and Content-Type the API answers there (bench/bareKoa.ts).
 * autocannon runs in this process, for the reads and for the registrations (pre-signed, each request its own body).
 *
 * Reads, the method: where `taskset` exists and this process may use two CPUs or more, every thread of this process
 * (autocannon) and of the chain is pinned to the first allowed CPU and every thread of the API and of bare Koa to the
 * second, so that the server under load has a core of its own and the two servers are compared, not their share of
 * the scheduler against autocannon (otherwise nothing is pinned, and the bench says so). Per endpoint: each server is
 * loaded WARM_UP_SECONDS (2 s) unmeasured, then BENCH_PAIRS pairs of BENCH_DURATION-second runs, bare Koa and the API
 * back to back with the order swapped every pair; the ratio is the median of the pairs' req/s ratios (their range is
 * printed too), with the medians of req/s, p99 and each server's CPU time per request (/proc, all threads) beside it,
 * the CPU ratio (median over the pairs of bare Koa's CPU per request over the API's: what each would answer on a core
 * of its own, whatever share of it other processes took during its runs), and the largest share of a core autocannon
 * used in a run (near 1: the client, not the server, was the limit).
 * Registrations run before the reads, unpinned (the API recovers signatures on a worker thread).
 *
 * Settings: BENCH_DURATION (seconds per read run, default 3), BENCH_PAIRS (pairs per endpoint, default 7), BENCH_PIN=0
 * (pin nothing), BENCH_CONNECTIONS (default 50), BENCH_REGISTRATIONS (per round, default 1000, after 100 not counted),
 * BENCH_ROUNDS (registration rounds, default 3; the median is printed), BENCH_PARTS (default "registrations,reads":
 * which parts to run). The API child inherits the environment, so SIGNATURE_WORKERS and MONGODB_URI apply to it.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { Wallet, verifyMessage } from "ethers";
import { recoverSigner } from "../api/src/chain/recoveryPool";
import {
  READY_TIMEOUT_MS,
  copyAnswer,
  cpuPlan,
  forkApi,
  forkBareKoa,
  median,
  pinToCpu,
  processCpuMs,
  startDeployedChain,
  waitFor,
} from "./support";

/** Seconds of each measured read run. */
const DURATION = Number(process.env.BENCH_DURATION ?? 3);
/** Bare-Koa/API pairs of runs per endpoint; the ratio printed is the median of the pairs' ratios. */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 7);
/** Seconds each server is loaded on an endpoint before its measured runs (JIT, caches, connection setup). */
const WARM_UP_SECONDS = 2;
/** BENCH_PIN=0 leaves every process to the scheduler. */
const PIN = process.env.BENCH_PIN !== "0";
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REGISTRATIONS = Number(process.env.BENCH_REGISTRATIONS ?? 1000);
/** Registrations sent first and not counted, so that the measured ones run on warmed-up (JIT-compiled) code. */
const WARM_UP_REGISTRATIONS = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PARTS = (process.env.BENCH_PARTS ?? "registrations,reads").split(",").map((part) => part.trim());
const children: ChildProcess[] = [];

function httpOk(url: string): () => Promise<boolean> {
  return async () => (await fetch(url)).ok;
}

interface LoadResult {
  rps: number;
  p99: number;
  /** The server's CPU time per request (µs, all threads), where /proc tells it. */
  cpuUs: number | null;
  /** CPU this process (autocannon) used during the run, as a share of one core: near 1 means the client was the limit. */
  generatorCpu: number;
}

/** One autocannon run of DURATION seconds against `url`, served by process `pid`. */
async function load(url: string, pid: number | undefined): Promise<LoadResult> {
  const before = processCpuMs(pid);
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION });
  const after = processCpuMs(pid);
  const own = process.cpuUsage(ownBefore);
  const generatorCpu = (own.user + own.system) / 1000 / (performance.now() - started);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`);
  }
  const cpuUs = before === null || after === null ? null : ((after - before) * 1000) / result.requests.total;
  return { rps: result.requests.average, p99: result.latency.p99, cpuUs, generatorCpu };
}

/**
 * Registers `count` agents with `concurrency` requests in flight; returns registrations per second. Nonces are
 * fetched and messages signed first (not measured); then autocannon sends the registrations, each with its own body,
 * so that the load generator, which shares the machine, spends as little CPU per request as the reads' does.
 */
async function registrations(
  api: string,
  apiPid: number | undefined,
  count: number,
  concurrency: number,
): Promise<{ perSecond: number; signMs: number; apiCpuMs: number | null }> {
  const wallets = Array.from({ length: count }, () => Wallet.createRandom());
  const signStart = performance.now();
  const bodies: string[] = [];
  for (const wallet of wallets) {
    const nonce = (await (await fetch(`${api}/api/v1/agent/auth/nonce?wallet=${wallet.address}`)).json()) as {
      nonce: string;
      message: string;
    };
    bodies.push(
      JSON.stringify({
        wallet_address: wallet.address,
        signature: await wallet.signMessage(nonce.message),
        nonce: nonce.nonce,
        agent_name: `bench agent ${wallet.address.slice(2, 10)}`,
        operator_address: wallet.address,
      }),
    );
  }
  const signMs = (performance.now() - signStart) / count;
  let next = 0;
  const cpuBefore = processCpuMs(apiPid);
  const started = performance.now();
  // autocannon notices that `amount` requests are done only on its one-second tick, so the time is taken at the last
  // response (and the API's CPU read then), not when the run resolves.
  let lastResponse = started;
  let cpuAfter: number | null = null;
  let answered = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: api,
        connections: concurrency,
        amount: count,
        requests: [
          {
            method: "POST",
            path: "/api/v1/agent/auth/register",
            headers: { "content-type": "application/json" },
            setupRequest: (request) => ({ ...request, body: bodies[next++] }),
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("response", () => {
      lastResponse = performance.now();
      if (++answered === count) cpuAfter = processCpuMs(apiPid);
    });
  });
  const seconds = (lastResponse - started) / 1000;
  if (result.non2xx > 0 || result.errors > 0 || result.requests.total !== count) {
    throw new Error(
      `registrations: ${result.requests.total} sent, ${result.non2xx} non-2xx, ${result.errors} errors under load`,
    );
  }
  const apiCpuMs = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / count;
  return { perSecond: count / seconds, signMs, apiCpuMs };
}

/** Milliseconds per call of `recover` on a 400-character message, on this thread. */
function recoveryCost(recover: (message: string, signature: string) => string | null): number {
  const wallet = Wallet.createRandom();
  const message = "x".repeat(400);
  const signed = wallet.signMessageSync(message);
  const rounds = 300;
  if (recover(message, signed)?.toLowerCase() !== wallet.address.toLowerCase()) {
    throw new Error("recovery returned another signer");
  }
  const started = performance.now();
  for (let i = 0; i < rounds; i++) recover(message, signed);
  return (performance.now() - started) / rounds;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "nap-bench-api-"));
  try {
    const rpcUrl = await startDeployedChain(children, work);
    const chainChild = children[children.length - 1];
    console.log(`local chain on ${rpcUrl}; deployed`);
    const { url: api, child: apiChild } = await forkApi(children, {
      RPC_URL: rpcUrl,
      DEPLOYMENT_FILE: join(work, "31337.json"),
    });
    const { url: bare, child: bareChild } = await forkBareKoa(children);
    await waitFor(httpOk(`${api}/health`), "API", READY_TIMEOUT_MS);

    if (PARTS.includes("registrations")) {
      console.log(
        `registering ${WARM_UP_REGISTRATIONS} agents to warm up, then ${ROUNDS} rounds of ${REGISTRATIONS} (20 in flight) ...`,
      );
      const apiPid = apiChild.pid;
      await registrations(api, apiPid, WARM_UP_REGISTRATIONS, 20);
      const rounds = [];
      for (let round = 0; round < ROUNDS; round++) rounds.push(await registrations(api, apiPid, REGISTRATIONS, 20));
      const perSecond = median(rounds.map((r) => r.perSecond));
      const cpu = rounds.map((r) => r.apiCpuMs).filter((ms): ms is number => ms !== null);
      const ethersMs = recoveryCost(verifyMessage);
      const serviceMs = recoveryCost(recoverSigner);
      console.log(
        `registrations: ${perSecond.toFixed(0)} per second, median of ${ROUNDS} rounds ` +
          `(${rounds.map((r) => r.perSecond.toFixed(0)).join(", ")}; API CPU ms per registration ` +
          `${rounds.map((r) => r.apiCpuMs?.toFixed(2) ?? "n/a").join(", ")}; ${REGISTRATIONS} agents each, 20 in flight, ` +
          `${process.env.MONGODB_URI ? "MongoDB" : "in-memory"} store, SIGNATURE_WORKERS=${process.env.SIGNATURE_WORKERS ?? "default"})`,
      );
      if (cpu.length > 0) {
        console.log(
          `API process CPU per registration (all threads): ${median(cpu).toFixed(2)} ms, ` +
            `i.e. ${(1000 / median(cpu)).toFixed(0)} registrations per second per core`,
        );
      }
      console.log(
        `EIP-191 signer recovery per signature on one core: ${serviceMs.toFixed(2)} ms as the service does it ` +
          `(libsecp256k1), ${ethersMs.toFixed(2)} ms with ethers' verifyMessage (${(ethersMs / serviceMs).toFixed(1)}x)`,
      );
      console.log(
        `client-side nonce + sign: ${median(rounds.map((r) => r.signMs)).toFixed(2)} ms per registration (not counted above)`,
      );
    }

    if (PARTS.includes("reads")) {
      const plan = PIN ? cpuPlan() : { reason: "BENCH_PIN=0" };
      if ("loadCpu" in plan) {
        // The load generator (autocannon, in this process) and the chain on one CPU, the server under load (the API
        // or bare Koa, never both at once) on the other: each server gets a core of its own instead of a share of
        // the scheduler against autocannon. Threads started later inherit the pinning.
        pinToCpu(process.pid, plan.loadCpu);
        pinToCpu(chainChild.pid, plan.loadCpu);
        pinToCpu(apiChild.pid, plan.serverCpu);
        pinToCpu(bareChild.pid, plan.serverCpu);
        console.log(
          `pinned: autocannon and the chain on CPU ${plan.loadCpu}, the API and bare Koa on CPU ${plan.serverCpu}`,
        );
      } else {
        console.log(`not pinned (${plan.reason}): autocannon and both servers share the scheduler`);
      }
      console.log(
        `load: ${CONNECTIONS} connections; per endpoint ${WARM_UP_SECONDS} s of warm-up on each server, then ${PAIRS} ` +
          `pairs of ${DURATION} s runs (bare Koa and the API back to back, the order swapped every pair)`,
      );
      const rows: string[] = [];
      const cpu = (runs: LoadResult[]) => {
        const known = runs.map((run) => run.cpuUs).filter((us): us is number => us !== null);
        return known.length > 0 ? median(known).toFixed(0) : "n/a";
      };
      for (const path of ["/health", "/api/v1/vaults", "/api/v1/agents"]) {
        await autocannon({ url: api + path, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
        // Taken after the registrations and the warm-up, so that the baseline answers what the API answers now (the
        // leaderboard as filled by the registrations).
        await copyAnswer(api, path, bareChild);
        await autocannon({ url: bare + path, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
        const pairs: Array<{ base: LoadResult; result: LoadResult }> = [];
        for (let pair = 0; pair < PAIRS; pair++) {
          // Swapping the order cancels a drift of the machine's speed within a pair.
          if (pair % 2 === 0) {
            const base = await load(bare + path, bareChild.pid);
            pairs.push({ base, result: await load(api + path, apiChild.pid) });
          } else {
            const result = await load(api + path, apiChild.pid);
            pairs.push({ base: await load(bare + path, bareChild.pid), result });
          }
        }
        const ratios = pairs.map((p) => p.result.rps / p.base.rps);
        // What each server would answer on a core of its own: the ratio of CPU per request, free of the share of
        // the scheduler either got from other processes during its runs.
        const cpuRatios = pairs
          .filter((p) => p.base.cpuUs !== null && p.result.cpuUs !== null)
          .map((p) => (p.base.cpuUs as number) / (p.result.cpuUs as number));
        const generator = Math.max(...pairs.flatMap((p) => [p.base.generatorCpu, p.result.generatorCpu]));
        rows.push(
          `| ${path} | ${Math.round(median(pairs.map((p) => p.result.rps)))} | ${median(pairs.map((p) => p.result.p99))} | ` +
            `${cpu(pairs.map((p) => p.result))} | ${Math.round(median(pairs.map((p) => p.base.rps)))} | ` +
            `${median(pairs.map((p) => p.base.p99))} | ${cpu(pairs.map((p) => p.base))} | ` +
            `${median(ratios).toFixed(2)} | ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} | ` +
            `${cpuRatios.length > 0 ? median(cpuRatios).toFixed(2) : "n/a"} | ` +
            `${generator.toFixed(2)} |`,
        );
      }
      console.log("");
      console.log(
        "| endpoint | req/s | p99 (ms) | CPU µs/req | bare Koa req/s | bare Koa p99 (ms) | bare Koa CPU µs/req | ratio | " +
          "pair ratios | CPU ratio | autocannon CPU (max) |",
      );
      console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (const row of rows) console.log(row);
    }
  } finally {
    for (const child of children) child.kill("SIGTERM");
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    for (const child of children) child.kill("SIGKILL");
    process.exit(1);
  },
);
