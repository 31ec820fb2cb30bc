import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { environmentWithoutServices, freePort, waitForPort } from "../helpers/services";

/** Spawned processes of the HTTP-level crash test and the benchmark: a Hardhat node, the deploy entry, the API. */

const ROOT = path.resolve(__dirname, "../..");
const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

function track(child: ChildProcess, what: string, output: string[]): ChildProcess {
  children.add(child);
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.splice(0, output.length - 200);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.once("exit", () => children.delete(child));
  Object.defineProperty(child, "describeOutput", { value: () => `${what}: ${output.join("").slice(-3000)}` });
  return child;
}

export interface Spawned {
  child: ChildProcess;
  url: string;
  port: number;
  output: string[];
}

/** `hardhat node` on a free loopback port; resolves when it answers. */
export async function spawnHardhatNode(): Promise<Spawned> {
  const port = await freePort();
  const output: string[] = [];
  const child = track(
    spawn(process.execPath, [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", String(port)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    }),
    "hardhat node",
    output,
  );
  await waitForPort(port, 120_000, "hardhat node");
  return { child, url: `http://127.0.0.1:${port}`, port, output };
}

/** Runs scripts/deploy.ts against the node; the deployment file lands in `outDir`. */
export async function deployTo(rpcUrl: string, outDir: string): Promise<void> {
  const output: string[] = [];
  const child = track(
    spawn(process.execPath, [HARDHAT_CLI, "run", "scripts/deploy.ts", "--network", "localhost"], {
      cwd: ROOT,
      env: { ...process.env, LOCAL_RPC_URL: rpcUrl, DEPLOYMENTS_DIR: outDir },
      stdio: ["ignore", "pipe", "pipe"],
    }),
    "deploy",
    output,
  );
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`deploy failed (${code}): ${output.join("").slice(-3000)}`);
}

/**
 * The API (api/src/main.ts) as its own process; resolves when it listens (after the journal is reconciled).
 * `nodeArgs` go to node before the script (e.g. --cpu-prof, which NODE_OPTIONS does not take).
 */
export async function spawnApi(env: Record<string, string>, port?: number, nodeArgs: string[] = []): Promise<Spawned> {
  const listenPort = port ?? (await freePort());
  const output: string[] = [];
  const child = track(
    spawn(process.execPath, [...nodeArgs, "-r", "ts-node/register/transpile-only", "api/src/main.ts"], {
      cwd: ROOT,
      env: { ...environmentWithoutServices(), HOST: "127.0.0.1", PORT: String(listenPort), LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
    "api",
    output,
  );
  let listening = false;
  const exited = new Promise<void>((resolve, reject) =>
    child.once("exit", (code) => {
      if (listening) resolve();
      else reject(new Error(`API exited (${code}) before listening: ${output.join("").slice(-3000)}`));
    }),
  );
  await Promise.race([waitForPort(listenPort, 120_000, "API"), exited]);
  listening = true;
  return { child, url: `http://127.0.0.1:${listenPort}`, port: listenPort, output };
}

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export function kill(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  return done;
}
