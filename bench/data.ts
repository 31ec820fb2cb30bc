/**
 * `npm run bench:data`: the data API's hot reads beside a bare Koa JSON handler, and the indexer's throughput beside
 * a raw `eth_getLogs` fetch of the same block range.
 *
 * Separate processes on loopback: a Hardhat node with the whole system deployed and BENCH_DEPOSITS deposits spread
 * over the six vaults (one block each), the API (`api/src/main.ts`, in-memory store, its own indexer) and the bare
 * Koa baseline. The indexer comparison runs in this process against the node: the raw fetch is `eth_getLogs` over
 * the deployment's contracts in the indexer's batch size; the indexer is a fresh Indexer on an empty in-memory read
 * model doing everything it does (logs, headers, vault samples, writes). Settings: BENCH_DURATION (seconds per
 * HTTP run, default 10), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS (pairs per endpoint and indexer runs, default
 * 3; medians printed), BENCH_DEPOSITS (default 300), BENCH_PARTS
 * (default "http,indexer"; "indexer" skips the HTTP runs).
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { MaxUint256, NonceManager, Wallet } from "ethers";
import { createChainAccess, jsonRpcProvider } from "../api/src/chain";
import { loadDeployment } from "../api/src/chain/deployment";
import { VAULT_IDS } from "../api/src/domain/model";
import { Indexer } from "../api/src/indexer/indexer";
import { getLogs } from "../api/src/indexer/rpc";
import { createLogger } from "../api/src/logger";
import { MemoryReadModelStore } from "../api/src/store/memory/readModel";
import { NapVault__factory, TestUSDC__factory } from "../typechain-types";
import { freePort, median, runToEnd, waitFor } from "./support";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** How long the chain, the API and the bare Koa server get to come up. */
const READY_TIMEOUT_MS = 180_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DEPOSITS = Number(process.env.BENCH_DEPOSITS ?? 300);
const PARTS = new Set((process.env.BENCH_PARTS ?? "http,indexer").split(","));
const BATCH_BLOCKS = 2_000;
const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
const TS_NODE = ["-r", "ts-node/register/transpile-only"];
/** Hardhat's first dev account (public test key): the local deployer, which may mint TestUSDC. */
const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const children: ChildProcess[] = [];

async function load(url: string) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`);
  }
  return { rps: result.requests.average, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "nap-bench-data-"));
  try {
    const rpcPort = await freePort();
    const rpcUrl = `http://127.0.0.1:${rpcPort}`;
    console.log(`local chain on ${rpcUrl}; deploying ...`);
    children.push(
      spawn(process.execPath, [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", String(rpcPort)], {
        stdio: "ignore",
      }),
    );
    const provider = jsonRpcProvider(rpcUrl, 31337);
    await waitFor(async () => (await provider.getBlockNumber()) >= 0, "hardhat node", READY_TIMEOUT_MS);
    await runToEnd([HARDHAT_CLI, "run", "scripts/deploy.ts", "--network", "localhost"], {
      ...process.env,
      LOCAL_RPC_URL: rpcUrl,
      DEPLOYMENTS_DIR: work,
    });
    const deploymentFile = join(work, "31337.json");
    const deployment = await loadDeployment(deploymentFile, 31337);

    console.log(`${DEPOSITS} deposits over the six vaults ...`);
    const signer = new NonceManager(new Wallet(DEPLOYER_KEY, provider));
    const owner = await signer.getAddress();
    const usdc = TestUSDC__factory.connect(deployment.usdc.address, signer);
    await (await usdc.mint(owner, BigInt(DEPOSITS) * 1_000_000_000n)).wait();
    const vaults = VAULT_IDS.map((id) => NapVault__factory.connect(deployment.vaults[id]!.address, signer));
    for (const vault of vaults) await (await usdc.approve(await vault.getAddress(), MaxUint256)).wait();
    for (let i = 0; i < DEPOSITS; i++) {
      await (await vaults[i % vaults.length].deposit(1_000_000n + BigInt(i), owner)).wait();
    }
    const head = await provider.getBlockNumber();

    // Indexer beside the raw fetch of the same range, alternating, on one provider.
    const chain = createChainAccess(provider, 31337, deployment, { head: { latestTtlMs: 0 } });
    const addresses = [
      ...Object.values(deployment.contracts).map((c) => c.address),
      ...VAULT_IDS.map((id) => deployment.vaults[id]!.address),
    ];
    const start = Math.min(
      ...Object.values(deployment.contracts).map((c) => c.block),
      ...VAULT_IDS.map((id) => deployment.vaults[id]!.block),
    );
    const blocks = head - start + 1;
    const raw: number[] = [];
    const indexed: number[] = [];
    let logCount = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let started = performance.now();
      logCount = 0;
      for (let from = start; from <= head; from += BATCH_BLOCKS) {
        logCount += (await getLogs(provider, addresses, from, Math.min(head, from + BATCH_BLOCKS - 1))).length;
      }
      raw.push(blocks / ((performance.now() - started) / 1000));
      const indexer = new Indexer({
        chain,
        store: new MemoryReadModelStore(),
        logger: createLogger("silent"),
        settings: { batchBlocks: BATCH_BLOCKS },
      });
      started = performance.now();
      while ((await indexer.step()) === "indexed");
      indexed.push(blocks / ((performance.now() - started) / 1000));
    }

    const rows: string[] = [];
    if (PARTS.has("http")) {
      const apiPort = await freePort();
      const api = `http://127.0.0.1:${apiPort}`;
      children.push(
        fork(join(__dirname, "../api/src/main.ts"), [], {
          execArgv: TS_NODE,
          stdio: ["ignore", "inherit", "inherit", "ipc"],
          env: {
            ...process.env,
            PORT: String(apiPort),
            RPC_URL: rpcUrl,
            CHAIN_ID: "31337",
            DEPLOYMENT_FILE: deploymentFile,
            RATE_LIMITS_DISABLED: "true",
            INDEXER_POLL_MS: "200",
            LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "error",
          },
        }),
      );
      const barePort = await freePort();
      const bare = `http://127.0.0.1:${barePort}`;
      children.push(
        fork(join(__dirname, "bareKoa.ts"), [], {
          execArgv: TS_NODE,
          stdio: ["ignore", "ignore", "inherit", "ipc"],
          env: { ...process.env, PORT: String(barePort) },
        }),
      );
      await waitFor(
        async () => {
          const status = (await (await fetch(`${api}/v1/status`)).json()) as {
            indexer: { indexedBlock: number | null };
          };
          return status.indexer.indexedBlock === head;
        },
        "API indexed to the head",
        READY_TIMEOUT_MS,
      );
      await waitFor(async () => (await fetch(bare)).ok, "bare Koa", READY_TIMEOUT_MS);

      console.log(
        `load: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} endpoint/baseline pairs per endpoint`,
      );
      for (const path of ["/v1/vaults", `/v1/vaults/${deployment.vaults.moderate!.address}`]) {
        await autocannon({ url: api + path, connections: CONNECTIONS, duration: 1 });
        const pairs: { base: Awaited<ReturnType<typeof load>>; result: Awaited<ReturnType<typeof load>> }[] = [];
        for (let round = 0; round < ROUNDS; round++)
          pairs.push({ base: await load(bare), result: await load(api + path) });
        const label = path.startsWith("/v1/vaults/") ? "/v1/vaults/:address" : path;
        rows.push(
          `| ${label} | ${Math.round(median(pairs.map((p) => p.result.rps)))} | ${median(pairs.map((p) => p.result.p99))} | ` +
            `${Math.round(median(pairs.map((p) => p.base.rps)))} | ` +
            `${median(pairs.map((p) => p.result.rps / p.base.rps)).toFixed(2)} | 0.60 |`,
        );
      }
    }
    const ratio = median(indexed.map((rate, i) => rate / raw[i]));
    console.log("");
    console.log("| measure | value | p99 (ms) | reference | ratio | target |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const row of rows) console.log(row);
    console.log(
      `| indexer, blocks/s (${blocks} blocks, ${logCount} logs, batches of ${BATCH_BLOCKS}) | ` +
        `${Math.round(median(indexed))} | | ${Math.round(median(raw))} (raw eth_getLogs) | ${ratio.toFixed(2)} | 0.50 |`,
    );
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
