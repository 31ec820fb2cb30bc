import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { environmentWithoutServices, freePort, waitForPort } from "../../helpers/services";

/**
 * `npm start` as a developer meets it: a few progress lines and one banner naming every door with its URL; a busy
 * port is named with the setting that moves it, before the chain starts or anything is deployed (exit code 2). The
 * service's own entry (`npm run serve`) names a busy port the same way.
 */

const ROOT = resolve(__dirname, "../../..");
const TS_NODE = require.resolve("ts-node/dist/bin.js");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a TypeScript entry as its npm script does (ts-node, transpile only) to its end. */
function runEntry(entry: string, env: Record<string, string>, timeoutMs = 120_000): Promise<Run> {
  return new Promise((done, fail) => {
    const started = Date.now();
    const child = spawn(process.execPath, [TS_NODE, "--transpile-only", entry], {
      cwd: ROOT,
      env: { ...environmentWithoutServices(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${entry} still running after ${timeoutMs} ms: ${stdout}${stderr}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

async function holdPort(): Promise<{ port: number; server: Server }> {
  const port = await freePort();
  const server = createServer();
  await new Promise<void>((ready) => server.listen(port, "127.0.0.1", ready));
  return { port, server };
}

describe("Ops: npm start's banner and a busy port named early", function () {
  this.timeout(300_000);

  it("runs scripts/start.ts through ts-node, as this test does", function () {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.start).to.equal("ts-node --transpile-only scripts/start.ts");
  });

  for (const setting of ["PORT", "METRICS_PORT", "LOCAL_RPC_PORT"]) {
    it(`names a busy ${setting} and exits 2 before starting the chain or deploying`, async function () {
      const held = await holdPort();
      try {
        const ports: Record<string, string> = {
          PORT: String(await freePort()),
          METRICS_PORT: String(await freePort()),
          LOCAL_RPC_PORT: String(await freePort()),
          [setting]: String(held.port),
        };
        const run = await runEntry("scripts/start.ts", ports);
        expect(run.code).to.equal(2);
        expect(run.stderr).to.equal(
          `npm start failed: ${setting} ${held.port} is in use on 127.0.0.1: stop what listens there or set ${setting}=<another port>\n`,
        );
        expect(run.stdout).to.equal("");
      } finally {
        held.server.close();
      }
    });
  }

  it("names a bad setting and exits 2 before starting anything", async function () {
    const run = await runEntry("scripts/start.ts", { PORT: "not-a-port", LOCAL_RPC_PORT: String(await freePort()) });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^npm start failed: Invalid configuration: PORT: /);
    expect(run.stdout).to.equal("");
  });

  it("the service's entry names a busy PORT the same way and exits 2", async function () {
    const held = await holdPort();
    try {
      const run = await runEntry("api/src/main.ts", {
        PORT: String(held.port),
        RPC_URL: "http://127.0.0.1:9",
        CHAIN_ID: "31337",
        LOG_LEVEL: "silent",
      });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.equal(
        `PORT ${held.port} is in use on 127.0.0.1: stop what listens there or set PORT=<another port>\n`,
      );
    } finally {
      held.server.close();
    }
  });

  it("prints three progress lines, then one banner listing every door, and stops cleanly on SIGTERM", async function () {
    const [port, metricsPort, rpcPort] = [await freePort(), await freePort(), await freePort()];
    const deployments = mkdtempSync(join(tmpdir(), "nap-start-"));
    const child = spawn(process.execPath, [TS_NODE, "--transpile-only", "scripts/start.ts"], {
      cwd: ROOT,
      env: {
        ...environmentWithoutServices(),
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        LOCAL_RPC_PORT: String(rpcPort),
        DEPLOYMENTS_DIR: deployments,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    try {
      const deadline = Date.now() + 240_000;
      while (!stdout.includes("Ctrl-C stops everything.") && child.exitCode === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(stdout, stderr).to.include("Ctrl-C stops everything.");
      const api = `http://127.0.0.1:${port}`;
      const rpc = `http://127.0.0.1:${rpcPort}`;
      // Warnings are JSON log lines; everything else printed is the progress and the banner.
      const printed = stdout.split("\n").filter((line) => !line.startsWith("{"));
      expect(printed).to.deep.equal([
        `starting the local chain on ${rpc} ...`,
        "compiling and deploying the contracts ...",
        "starting the API ...",
        "",
        "NAP is running",
        `  live API   ${api}/api/v1`,
        `  data API   ${api}/v1`,
        `  GraphQL    ${api}/graphql  (GraphiQL in a browser)`,
        `  WebSocket  ws://127.0.0.1:${port}/ws`,
        `  API docs   ${api}/docs  (data API: ${api}/v1/docs)`,
        `  health     ${api}/health  (ready: ${api}/ready)`,
        `  metrics    http://127.0.0.1:${metricsPort}/metrics`,
        `  chain RPC  ${rpc}  (chain id 31337)`,
        "  store      in memory (set MONGODB_URI to keep data)",
        "Ctrl-C stops everything.",
        "",
        "",
      ]);
      // Every door named answers where the banner says.
      await waitForPort(port, 10_000, "API");
      expect((await fetch(`${api}/api/v1/vaults`)).status).to.equal(200);
      expect((await fetch(`${api}/v1/status`)).status).to.equal(200);
      expect((await fetch(`${api}/graphql?query=%7B__typename%7D`)).status).to.equal(200);
      expect((await fetch(`${api}/docs`)).status).to.equal(200);
      expect((await fetch(`${api}/v1/docs`)).status).to.equal(200);
      expect((await fetch(`${api}/graphql`, { headers: { accept: "text/html" } })).status).to.equal(200);
      expect((await fetch(`${api}/ready`)).status).to.equal(200);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).to.equal(200);
      child.kill("SIGTERM");
      expect(await exited).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(deployments, { recursive: true, force: true });
    }
  });
});
