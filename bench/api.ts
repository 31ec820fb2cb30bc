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
 * second, so that the servers are compared on a core of their own, not on their share of the scheduler against
 * autocannon (otherwise nothing is pinned, and the bench says so). Per endpoint: each server is loaded
 * WARM_UP_SECONDS (2 s) unmeasured, then BENCH_RUNS runs of BENCH_DURATION seconds, each loading both servers at the
 * same time (half the connections each) on the core they share. Each server's CPU time per request (/proc, all
 * threads) is measured over the same seconds, so that a change of the machine's speed during a run (a shared
 * machine: in one run taken back to back, the pairs' ratios spread from 0.58 to 1.30) falls on both alike. The CPU
 * ratio, bare Koa's CPU per request over the API's (median of the runs, their range beside it), is the share of bare
 * Koa's req/s the API answers on a core of its own: the figure the target is read on. Beside it: the medians of each
 * server's req/s, p99 and CPU per request, the req/s ratio within the runs (the scheduler splits the core between
 * them), and the largest share of a core autocannon used in a run (near 1: the client, not the servers, was the
 * limit). BENCH_READS_METHOD=alternate loads one server at a time instead (the method until 2026-11-23 12:00 UTC):
 * pairs of runs, bare Koa and the API back to back, the order swapped every pair.
 * Registrations run before the reads, unpinned (the API recovers signatures on a worker thread).
 *
 * Settings: BENCH_DURATION (seconds per read run, default 3), BENCH_RUNS (runs, or pairs, per endpoint, default 7;
 * BENCH_PAIRS is read as before), BENCH_READS_METHOD ("together" or "alternate"), BENCH_PIN=0 (pin nothing),
 * BENCH_CONNECTIONS (default 50), BENCH_REGISTRATIONS (per round, default 1000, after 100 not counted), BENCH_ROUNDS
 * (registration rounds, default 3; the median is printed), BENCH_PARTS (default "registrations,reads": which parts to
 * run). The API child inherits the environment, so SIGNATURE_WORKERS and MONGODB_URI apply to it.
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
/** Measured runs per endpoint (pairs of runs with BENCH_READS_METHOD=alternate); ratios are their medians. */
const RUNS = Number(process.env.BENCH_RUNS ?? process.env.BENCH_PAIRS ?? 7);
/**
 * "together" (default): each run loads both servers at the same time on the one core they share, so that a change of
 * the machine's speed (another tenant, the hypervisor) during the run falls on both alike. "alternate": the method
 * used until 2026-11-23 12:00 UTC, bare Koa and the API each alone on the core, back to back.
 */
const METHOD = process.env.BENCH_READS_METHOD ?? "together";
if (METHOD !== "together" && METHOD !== "alternate") {
  throw new Error(`BENCH_READS_METHOD must be "together" or "alternate", not "${METHOD}"`);
}
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

/** One autocannon run of DURATION seconds against `url` with `connections`, served by process `pid`. */
async function load(url: string, pid: number | undefined, connections: number): Promise<LoadResult> {
  const before = processCpuMs(pid);
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({ url, connections, duration: DURATION });
  const after = processCpuMs(pid);
  const own = process.cpuUsage(ownBefore);
  const generatorCpu = (own.user + own.system) / 1000 / (performance.now() - started);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`);
  }
  const cpuUs = before === null || after === null ? null : ((after - before) * 1000) / result.requests.total;
  return { rps: result.requests.average, p99: result.latency.p99, cpuUs, generatorCpu };
}

interface Server {
  url: string;
  pid: number | undefined;
}

/** One measured run of an endpoint: what the API and bare Koa did in it. */
interface ReadRun {
  api: LoadResult;
  bare: LoadResult;
}

/**
 * Both servers loaded for the same DURATION seconds, half the connections each, on the core they share: each gets
 * the scheduler's share of it, and each one's CPU time per request is measured over the same seconds.
 */
async function together(servers: { api: Server; bare: Server }): Promise<ReadRun> {
  const connections = Math.ceil(CONNECTIONS / 2);
  const [api, bare] = await Promise.all([
    load(servers.api.url, servers.api.pid, connections),
    load(servers.bare.url, servers.bare.pid, connections),
  ]);
  return { api, bare };
}

/** Bare Koa and the API alone on the core, back to back, the order swapped every other run (`index`). */
async function alternate(servers: { api: Server; bare: Server }, index: number): Promise<ReadRun> {
  if (index % 2 === 0) {
    const bare = await load(servers.bare.url, servers.bare.pid, CONNECTIONS);
    return { bare, api: await load(servers.api.url, servers.api.pid, CONNECTIONS) };
  }
  const api = await load(servers.api.url, servers.api.pid, CONNECTIONS);
  return { api, bare: await load(servers.bare.url, servers.bare.pid, CONNECTIONS) };
}

/** An endpoint's row: medians over the runs of each server's figures and of the runs' ratios. */
function readRow(path: string, runs: ReadRun[]): string {
  const cpu = (results: LoadResult[]) => {
    const known = results.map((result) => result.cpuUs).filter((us): us is number => us !== null);
    return known.length > 0 ? median(known).toFixed(0) : "n/a";
  };
  const rpsRatios = runs.map((run) => run.api.rps / run.bare.rps);
  // What each server would answer on a core of its own: the ratio of CPU per request, free of the share of the
  // core either got.
  const cpuRatios = runs
    .filter((run) => run.bare.cpuUs !== null && run.api.cpuUs !== null)
    .map((run) => (run.bare.cpuUs as number) / (run.api.cpuUs as number));
  const generator = Math.max(...runs.flatMap((run) => [run.api.generatorCpu, run.bare.generatorCpu]));
  const apiRuns = runs.map((run) => run.api);
  const bareRuns = runs.map((run) => run.bare);
  return (
    `| ${path} | ${Math.round(median(apiRuns.map((r) => r.rps)))} | ${median(apiRuns.map((r) => r.p99))} | ` +
    `${cpu(apiRuns)} | ${Math.round(median(bareRuns.map((r) => r.rps)))} | ${median(bareRuns.map((r) => r.p99))} | ` +
    `${cpu(bareRuns)} | ${median(rpsRatios).toFixed(2)} | ` +
    `${cpuRatios.length > 0 ? median(cpuRatios).toFixed(2) : "n/a"} | ` +
    `${cpuRatios.length > 0 ? `${Math.min(...cpuRatios).toFixed(2)}-${Math.max(...cpuRatios).toFixed(2)}` : "n/a"} | ` +
    `${generator.toFixed(2)} |`
  );
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
        // The load generator (autocannon, in this process) and the chain on one CPU, both servers on the other: the
        // servers are compared on a core that nothing else runs on, not on their share of it against autocannon.
        // Threads started later inherit the pinning.
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
        METHOD === "together"
          ? `load: per endpoint ${WARM_UP_SECONDS} s of warm-up on each server, then ${RUNS} runs of ${DURATION} s ` +
              `loading both servers at the same time, ${Math.ceil(CONNECTIONS / 2)} connections each`
          : `load: ${CONNECTIONS} connections; per endpoint ${WARM_UP_SECONDS} s of warm-up on each server, then ${RUNS} ` +
              `pairs of ${DURATION} s runs (bare Koa and the API back to back, the order swapped every pair)`,
      );
      const rows: string[] = [];
      for (const path of ["/health", "/api/v1/vaults", "/api/v1/agents"]) {
        await autocannon({ url: api + path, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
        // Taken after the registrations and the warm-up, so that the baseline answers what the API answers now (the
        // leaderboard as filled by the registrations).
        await copyAnswer(api, path, bareChild);
        await autocannon({ url: bare + path, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
        const servers = { api: { url: api + path, pid: apiChild.pid }, bare: { url: bare + path, pid: bareChild.pid } };
        const runs: ReadRun[] = [];
        for (let run = 0; run < RUNS; run++) {
          runs.push(METHOD === "together" ? await together(servers) : await alternate(servers, run));
        }
        rows.push(readRow(path, runs));
      }
      console.log("");
      console.log(
        "| endpoint | req/s | p99 (ms) | CPU µs/req | bare Koa req/s | bare Koa p99 (ms) | bare Koa CPU µs/req | " +
          "req/s ratio | CPU ratio | CPU ratios of the runs | autocannon CPU (max) |",
      );
      console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
      for (const row of rows) console.log(row);
      console.log(
        "CPU ratio: bare Koa's CPU µs per request over the API's (median of the runs), the share of bare Koa's " +
          "req/s the API answers on a core of its own (the target: at least 0.8)",
      );
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
