import { fork, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { BareBody } from "./bareKoa";

/**
 * What the benchmarks share: the processes they start (a Hardhat node with the system deployed, the API, the bare Koa
 * baseline), ports, waiting for a process, running one to its end, medians, percentiles, process CPU and memory.
 */

const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
const TS_NODE = ["-r", "ts-node/register/transpile-only"];
/** How long the chain, the API and the bare Koa server get to come up on a busy machine. */
export const READY_TIMEOUT_MS = 180_000;

/**
 * Starts a Hardhat node on a free port and deploys the whole system to it, the deployment file written into
 * `deploymentsDir` (`<dir>/31337.json`). The node is pushed onto `children` before anything can fail.
 */
export async function startDeployedChain(children: ChildProcess[], deploymentsDir: string): Promise<string> {
  const rpcUrl = `http://127.0.0.1:${await freePort()}`;
  const port = rpcUrl.split(":")[2];
  children.push(
    spawn(process.execPath, [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", port], { stdio: "ignore" }),
  );
  await waitFor(
    async () => {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      return response.ok;
    },
    "hardhat node",
    READY_TIMEOUT_MS,
  );
  await runToEnd([HARDHAT_CLI, "run", "scripts/deploy.ts", "--network", "localhost"], {
    ...process.env,
    LOCAL_RPC_URL: rpcUrl,
    DEPLOYMENTS_DIR: deploymentsDir,
  });
  return rpcUrl;
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

/** Asks the OS for a free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
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

/** Runs `node <args>` and resolves when it exits 0 (its standard error shown). */
export function runToEnd(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"], env });
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(" ")} exited ${code}`))));
  });
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
