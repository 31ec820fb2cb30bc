import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** What the benchmarks share: ports, waiting for a process, running one to its end, medians, percentiles, process CPU and memory. */

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
