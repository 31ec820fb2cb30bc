import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deployTo, spawnHardhatNode } from "../test/e2e/processes";
import { freePort } from "../test/helpers/services";
import type { BareBody } from "./bareKoa";

/**
 * What the benchmarks share: the processes they start (a Hardhat node with the system deployed, the API, the bare Koa
 * baseline), waiting for a process, medians, percentiles, process CPU and memory.
 */

const TS_NODE = ["-r", "ts-node/register/transpile-only"];
/** How long the chain, the API and the bare Koa server get to come up on a busy machine. */
export const READY_TIMEOUT_MS = 180_000;

/**
 * Starts a Hardhat node on a free port and deploys the whole system to it (test/e2e/processes.ts, as bench:tx does),
 * the deployment file written into `deploymentsDir` (`<dir>/31337.json`). The node is pushed onto `children`.
 */
export async function startDeployedChain(children: ChildProcess[], deploymentsDir: string): Promise<string> {
  const node = await spawnHardhatNode();
  children.push(node.child);
  await deployTo(node.url, deploymentsDir);
  return node.url;
}

/**
 * Forks the API (`api/src/main.ts`) on a free port with `env` over this process's environment (so settings such as
 * MONGODB_URI or SIGNATURE_WORKERS given to the bench apply to it), rate limits lifted; pushed onto `children`.
 */
export async function forkApi(
  children: ChildProcess[],
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = fork(join(__dirname, "../api/src/main.ts"), [], {
    execArgv: TS_NODE,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: {
      ...process.env,
      PORT: String(port),
      CHAIN_ID: "31337",
      RATE_LIMITS_DISABLED: "true",
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "error",
      ...env,
    },
  });
  children.push(child);
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Forks the bare Koa baseline (bench/bareKoa.ts) on a free port and waits until it listens. */
export async function forkBareKoa(children: ChildProcess[]): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = fork(join(__dirname, "bareKoa.ts"), [], {
    execArgv: TS_NODE,
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, PORT: String(port) },
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("bare Koa did not come up")), READY_TIMEOUT_MS);
    child.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    child.once("exit", (code) => reject(new Error(`bare Koa exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * Gives the bare Koa server the API's current answer at `path` (body and Content-Type), which it then answers there
 * itself: the baseline sends the same bytes as the API.
 */
export async function copyAnswer(api: string, path: string, bare: ChildProcess): Promise<void> {
  const response = await fetch(api + path);
  if (!response.ok) throw new Error(`${path}: the API answered ${response.status}`);
  const answer: BareBody = {
    path,
    contentType: response.headers.get("content-type") ?? "application/json; charset=utf-8",
    body: await response.text(),
  };
  await new Promise<void>((resolve) => {
    const stored = (message: unknown) => {
      if ((message as { stored?: string }).stored !== path) return;
      bare.off("message", stored);
      resolve();
    };
    bare.on("message", stored);
    bare.send(answer);
  });
}

/** Polls `check` every 200 ms until it answers true (a throw counts as false), or fails after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** CPU time (user + system) of process `pid` so far in milliseconds, from /proc; null where /proc cannot tell. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command), in clock ticks (100 Hz).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The `p`-th percentile (0-100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Resident memory of process `pid` in bytes, from /proc; null where /proc cannot tell. */
export function processRssBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((entry) => entry.startsWith("VmRSS:"));
    return line ? Number(line.split(/\s+/)[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Two CPUs for a fair load test: one for the load generator (and whatever else the bench runs), one for the server
 * under load. Taken from this process's affinity list (`taskset -cp`); null, with the reason, when `taskset` is
 * missing or fewer than two CPUs are allowed, and then nothing is pinned.
 */
export function cpuPlan(): { loadCpu: number; serverCpu: number } | { reason: string } {
  let listed: string;
  try {
    listed = execFileSync("taskset", ["-cp", String(process.pid)], { encoding: "utf8" });
  } catch {
    return { reason: "taskset is not available" };
  }
  const cpus = (listed.split(":").pop() ?? "")
    .trim()
    .split(",")
    .flatMap((part) => {
      const [from, to = from] = part.split("-").map(Number);
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    })
    .filter((cpu) => Number.isInteger(cpu));
  if (cpus.length < 2) return { reason: `only ${cpus.length} CPU allowed (${listed.trim()})` };
  return { loadCpu: cpus[0], serverCpu: cpus[1] };
}

/** Pins every thread of process `pid` to `cpu` (threads it starts later inherit it). */
export function pinToCpu(pid: number | undefined, cpu: number): void {
  if (pid === undefined) throw new Error("cannot pin a process without a pid");
  execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
}
