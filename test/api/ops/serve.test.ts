import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MongoClient } from "mongodb";
import { MongoTxJournal, TX_LEASES_COLLECTION } from "../../../api/src/store/mongo/txJournal";
import { registerAgent, request } from "../helpers/app";
import { uniqueDbName } from "../helpers/mongo";
import { DEV_MNEMONIC } from "../../e2e/helpers";
import { deployTo, kill, rpc, spawnHardhatNode, type Spawned } from "../../e2e/processes";
import { ensureMongo, environmentWithoutServices, freePort, waitForPort } from "../../helpers/services";

/**
 * The service as an operator runs it: `npm run build` compiles it, the `serve` script runs the compiled entry with
 * plain node (no ts-node anywhere in the process, checked from outside through /proc), on a spawned Hardhat node
 * with a fresh deployment and MongoDB. It answers /health, /ready and /metrics (on the metrics port only) and a live
 * journey; then SIGTERM arrives while a deposit waits for slow blocks: the deposit is answered, the process exits 0
 * within the shutdown bound, and the indexer's and the wallets' leases are given up.
 */

const ROOT = resolve(__dirname, "../../..");
const SHUTDOWN_TIMEOUT_MS = 20_000;

function runNpm(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("npm", ["run", script], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => done({ code, output }));
  });
}

/** The environment of the served process: the runner's, without any preloading of ts-node. */
function plainEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(environmentWithoutServices())) {
    if (name === "NODE_OPTIONS" || name.startsWith("TS_NODE_")) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; at: number }> {
  return new Promise((done) => child.once("exit", (code) => done({ code, at: Date.now() })));
}

async function metricValue(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.slice(name.length + 1));
}

describe("Ops: the compiled build served with plain node (npm run build, npm run serve)", function () {
  this.timeout(900_000);

  let node: Spawned;
  let outDir: string;
  let mongoUri: string;
  let mongo: MongoClient;
  let dbName: string;
  let api: ChildProcess | undefined;
  const output: string[] = [];

  before(async function () {
    const built = await runNpm("build");
    expect(built.code, built.output.slice(-3000)).to.equal(0);
    node = await spawnHardhatNode();
    outDir = mkdtempSync(join(tmpdir(), "nap-serve-"));
    await deployTo(node.url, outDir);
    mongoUri = await ensureMongo();
    mongo = await MongoClient.connect(mongoUri);
    dbName = uniqueDbName("serve");
  });

  after(async function () {
    if (api) await kill(api);
    if (node) await kill(node.child);
    await mongo?.db(dbName).dropDatabase();
    await mongo?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it("answers /health, /ready, /metrics and a live journey, then drains a deposit on SIGTERM and exits 0", async function () {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.serve).to.equal("node dist/api/src/main.js");
    const [port, metricsPort] = [await freePort(), await freePort()];
    api = spawn(process.execPath, ["dist/api/src/main.js"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: plainEnvironment({
        HOST: "127.0.0.1",
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        RPC_URL: node.url,
        CHAIN_ID: "31337",
        DEPLOYMENT_FILE: join(outDir, "31337.json"),
        MONGODB_URI: mongoUri,
        MONGODB_DB: dbName,
        SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
        SIGNATURE_WORKERS: "0",
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        LOG_LEVEL: "warn",
      }),
    });
    api.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    api.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    const exited = exitOf(api);
    await waitForPort(port, 120_000, "served API");
    const base = `http://127.0.0.1:${port}`;
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;

    // From outside: the command line is node and the compiled entry, and nothing preloads ts-node.
    const pid = api.pid as number;
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    expect(argv).to.deep.equal([process.execPath, "dist/api/src/main.js"]);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    const nodeOptions = environ.find((entry) => entry.startsWith("NODE_OPTIONS=")) ?? "NODE_OPTIONS=";
    expect(nodeOptions).to.not.match(/ts-node/);
    expect(environ.filter((entry) => entry.startsWith("TS_NODE_"))).to.deep.equal([]);

    const health = await request(base, "GET", "/health");
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.include({ status: "ok", chain_id: 31337, rpc_connected: true });
    let ready = await request(base, "GET", "/ready");
    for (let i = 0; i < 50 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      ready = await request(base, "GET", "/ready");
    }
    expect(ready.status, JSON.stringify(ready.body)).to.equal(200);
    expect(ready.body).to.deep.equal({
      ready: true,
      checks: { serving: true, store: true, rpc: true, indexer: true },
    });
    // The public port has no /metrics; the metrics port has nothing else.
    expect((await request(base, "GET", "/metrics")).status).to.equal(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/health`)).status).to.equal(404);

    // The live journey: register, faucet, deposit.
    const { apiKey } = await registerAgent(base);
    const headers = { "X-API-Key": apiKey };
    const drip = await request(base, "POST", "/api/v1/agent/faucet", { headers });
    expect(drip.status, JSON.stringify(drip.body)).to.equal(200);
    const deposit = await request(base, "POST", "/api/v1/agent/vault/deposit", {
      headers,
      body: { vault_id: "moderate", amount_usdc: 10 },
    });
    expect(deposit.status, JSON.stringify(deposit.body)).to.equal(200);

    const metrics = await (await fetch(metricsUrl)).text();
    expect(metrics).to.match(/^nap_process_cpu_user_seconds_total \d/m);
    expect(metrics).to.include(
      'nap_http_request_duration_seconds_count{door="live",route="/api/v1/agent/vault/deposit",method="POST",status="200"} 1',
    );
    expect(metrics).to.include(
      'nap_http_request_duration_seconds_count{door="live",route="/api/v1/agent/faucet",method="POST",status="200"} 1',
    );
    expect(metrics).to.include('nap_open_sockets{door="ws"} 0');
    expect(metrics).to.match(/^nap_indexer_lag_blocks \d+$/m);
    const steps = metrics.split("\n").filter((line) => line.startsWith("nap_indexer_step_duration_seconds_count"));
    expect(steps.join("\n")).to.match(/^nap_indexer_step_duration_seconds_count\{result="indexed"\} [1-9]/m);
    expect(await metricValue(metricsUrl, "nap_tx_queue_depth")).to.equal(0);

    // Slow blocks: the next deposit's two transactions wait for them; SIGTERM comes while it is in flight.
    await rpc(node.url, "evm_setAutomine", [false]);
    await rpc(node.url, "evm_setIntervalMining", [1_500]);
    const pending = request(base, "POST", "/api/v1/agent/vault/deposit", {
      headers,
      body: { vault_id: "moderate", amount_usdc: 5 },
    });
    const deadline = Date.now() + 30_000;
    while ((await metricValue(metricsUrl, "nap_tx_queue_depth")) < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await metricValue(metricsUrl, "nap_tx_queue_depth")).to.be.at.least(1);
    const signalledAt = Date.now();
    api.kill("SIGTERM");
    const answered = await pending;
    expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
    expect(answered.body)
      .to.have.property("deposit_tx")
      .that.matches(/^0x[0-9a-f]{64}$/);
    const { code, at } = await exited;
    api = undefined;
    expect(code, output.join("").slice(-3000)).to.equal(0);
    // The drain ends with the deposit's answer, well before the bound.
    expect(at - signalledAt).to.be.below(SHUTDOWN_TIMEOUT_MS / 2);
    // No new connection is taken after the shutdown.
    const refused = await fetch(`${base}/health`).then(
      () => "answered",
      () => "refused",
    );
    expect(refused).to.equal("refused");

    // The indexer's lease and every wallet lease were given up.
    const db = mongo.db(dbName);
    const [indexerLease] = await db.collection("rm_leases").find({}).sort({ epoch: -1 }).limit(1).toArray();
    expect(indexerLease?.released).to.equal(true);
    const walletLeases = await db.collection(TX_LEASES_COLLECTION).find({}).toArray();
    expect(walletLeases.length).to.be.greaterThan(0);
    const heldByWallet = new Map<string, boolean>();
    for (const lease of walletLeases.sort((a, b) => Number(a.epoch ?? 0) - Number(b.epoch ?? 0))) {
      heldByWallet.set(String(lease.wallet), lease.released === true);
    }
    expect([...heldByWallet.values()].every(Boolean), JSON.stringify(walletLeases)).to.equal(true);
    // Nothing the process accepted is left open in the journal.
    expect(await new MongoTxJournal(db).listOpen()).to.deep.equal([]);
  });
});
