import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import Redis from "ioredis";

/** A Redis for the tests: REDIS_URL when set, otherwise a redis-server started on a free loopback port. Never skips. */
export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForRedis(url: string, deadlineMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on("error", () => undefined); // connection refusals while the server starts are expected
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch (error) {
      client.disconnect();
      if (Date.now() - started > deadlineMs) throw new Error(`Redis at ${url} did not answer: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function startTestRedis(): Promise<TestRedis> {
  if (process.env.REDIS_URL) {
    await waitForRedis(process.env.REDIS_URL, 5_000);
    return { url: process.env.REDIS_URL, stop: async () => undefined };
  }
  const port = await freePort();
  const binary = process.env.REDIS_SERVER_BIN ?? "redis-server";
  const child: ChildProcess = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const spawnError = new Promise<never>((_, reject) =>
    child.once("error", (error) => reject(new Error(`cannot start ${binary} (set REDIS_URL or install redis-server): ${error.message}`))),
  );
  const url = `redis://127.0.0.1:${port}`;
  await Promise.race([waitForRedis(url, 10_000), spawnError]);
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
