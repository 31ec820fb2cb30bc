/**
 * `npm run bench:data`: the data API's hot reads beside a bare Koa server answering the same bytes (bench/bareKoa.ts,
 * given each path's answer before its runs, with both servers' CPU time per request from /proc), GraphQL `vaults` beside REST `/v1/vaults`, the indexer's throughput beside a raw `eth_getLogs` fetch of the same block range, and GraphQL
 * subscriptions: the delay from a deposit to its message, and the fan-out of one deposit to many subscribers.
 *
 * Separate processes on loopback: a Hardhat node with the whole system deployed and BENCH_DEPOSITS deposits spread
 * over the six vaults (one block each), the API (`api/src/main.ts`, in-memory store, its own indexer) and the bare
 * Koa baseline. The indexer comparison runs in this process against the node, with the node's console log of each
 * request turned off: the raw fetch is `eth_getLogs` over the deployment's contracts in the indexer's batch size; the
 * indexer does everything it does (logs, headers, vault samples, writes into an in-memory read model) until its cursor
 * is at the range's last block (the raw fetch does not poll for newer blocks either, so the indexer's next step, which
 * would, is not timed). Two ranges: the blocks after the deployment (the deposits), by an instance that has indexed
 * the deployment first, as one following the chain has (the target's row); and every block from the deployment's
 * first, by a fresh instance (indexerRows). A second row gives this process's CPU time for each, and a third the
 * node's (the work the indexer asks of the node beyond the logs: headers, VaultLens calls), the figures that stay
 * comparable when the machine is shared. Settings: BENCH_DURATION (seconds per HTTP run, default 10),
 * BENCH_CONNECTIONS (default 50), BENCH_ROUNDS (pairs per endpoint, default 3; medians printed), BENCH_INDEXER_ROUNDS
 * (indexer and raw fetch runs per range, alternating, default 15; medians printed), BENCH_WARMUP (indexer runs not
 * counted first, default 3), BENCH_DEPOSITS (default 300), BENCH_PARTS (default
 * "http,indexer,subscriptions": which parts run).
 *
 * Subscriptions (graphql-ws clients in this process, `transactionCreated` of one vault): the delay is measured from
 * the moment the node has answered the deposit's `eth_sendRawTransaction` (Hardhat mines each transaction in its own
 * block before answering) to the moment the client has the message; it spans the indexer's poll of the chain
 * (INDEXER_POLL_MS, 50 ms here), one indexing step, the feed's read of the event log and the socket. Deposits are
 * spaced by a random pause so that they fall anywhere in the indexer's poll. BENCH_LATENCY_DEPOSITS (default 40)
 * deposits with one subscriber; then BENCH_SUBSCRIBERS (default 1,000) sockets, one subscription each, and
 * BENCH_FANOUT_DEPOSITS (default 20) deposits; the API process's resident memory is read before the sockets open and
 * once they all listen.
 *
 * Read your own write (part "freshness"): an API of its own with the default indexer poll (INDEXER_POLL_MS, 1 s),
 * so that only the wake from the write's receipt brings a block in early. A registered agent makes
 * BENCH_FRESHNESS_DEPOSITS (default 30) live deposits (`POST /api/v1/agent/vault/deposit`) one after another; from
 * each answer, the time until a REST read and a GraphQL query with `minBlock` = the answer's block (sent at once, side
 * by side) have answered with the deposit, and until a graphql-ws and a /ws subscriber of the vault have its message
 * (target: p95 ≤ 150 ms); and how many reads without `minBlock`, sent with them, already included the deposit.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { MaxUint256, NonceManager, Wallet } from "ethers";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { createChainAccess, httpChainClients } from "../api/src/chain";
import { loadDeployment } from "../api/src/chain/deployment";
import { VAULT_IDS } from "../api/src/domain/model";
import { Indexer } from "../api/src/indexer/indexer";
import { getLogs } from "../api/src/chain/rpc/actions";
import { createLogger } from "../api/src/logger";
import { MemoryReadModelStore } from "../api/src/store/memory/readModel";
import { NapVault__factory, TestUSDC__factory, type NapVault } from "../typechain-types";
import {
  READY_TIMEOUT_MS,
  copyAnswer,
  forkApi,
  forkBareKoa,
  median,
  percentile,
  processCpuMs,
  processRssBytes,
  startDeployedChain,
  waitFor,
} from "./support";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Indexer runs per range: each takes a few tens of milliseconds, so many, for a median the machine's noise moves less. */
const INDEXER_ROUNDS = Number(process.env.BENCH_INDEXER_ROUNDS ?? 15);
const DEPOSITS = Number(process.env.BENCH_DEPOSITS ?? 300);
const PARTS = new Set((process.env.BENCH_PARTS ?? "http,indexer,subscriptions,freshness").split(","));
const FRESHNESS_DEPOSITS = Number(process.env.BENCH_FRESHNESS_DEPOSITS ?? 30);
/** The public development mnemonic of the project (never for a real chain): the API's server wallets. */
const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";
const LATENCY_DEPOSITS = Number(process.env.BENCH_LATENCY_DEPOSITS ?? 40);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000);
const FANOUT_DEPOSITS = Number(process.env.BENCH_FANOUT_DEPOSITS ?? 20);
/** The Vault fields of GraphQL `vaults` that REST `/v1/vaults` lists too. */
const VAULTS_QUERY = `{ vaults { address name symbol tvl tvlUsd totalShares pricePerShare apy { current day7 day30 inception }
  fees { management performance hurdle } riskLevel isERC7540 fulfillmentDelay createdAt } }`;
const BATCH_BLOCKS = 2_000;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
/** Hardhat's first dev account (public test key): the local deployer, which may mint TestUSDC. */
const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const children: ChildProcess[] = [];

/** One autocannon run; with `pid`, also that server's CPU time per request (µs), where /proc tells it. */
async function load(url: string, body?: string, pid?: number) {
  const cpuBefore = processCpuMs(pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    ...(body === undefined ? {} : { method: "POST", body, headers: { "content-type": "application/json" } }),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx responses and ${result.errors} errors (${result.timeouts} timeouts) under load`,
    );
  }
  const cpuAfter = processCpuMs(pid);
  const cpuUs =
    cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1000) / result.requests.total;
  return { rps: result.requests.average, p99: result.latency.p99, cpuUs };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "nap-bench-data-"));
  try {
    const rpcUrl = await startDeployedChain(children, work);
    console.log(`local chain on ${rpcUrl}; deployed`);
    const clients = httpChainClients(rpcUrl, 31337);
    const provider = clients.provider;
    const deploymentFile = join(work, "31337.json");
    const deployment = await loadDeployment(deploymentFile, 31337);
    const deployedHead = await provider.getBlockNumber();

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
    // `hardhat node` prints every request it serves (an eth_call with the contract and function it identified), which
    // costs the node CPU time and this process the reading of its output: that is the development console, not the
    // serving a deployed node does, so it is off for the measured parts.
    await provider.send("hardhat_setLoggingEnabled", [false]);

    const rows: string[] = [];
    if (PARTS.has("indexer"))
      rows.push(...(await indexerRows(clients, deployment, deployedHead, head, children[0]?.pid)));
    if (PARTS.has("http") || PARTS.has("subscriptions")) {
      const { url: api, child: apiProcess } = await forkApi(children, {
        RPC_URL: rpcUrl,
        DEPLOYMENT_FILE: deploymentFile,
        INDEXER_POLL_MS: "50",
        // Every subscriber of the fan-out part comes from this process's one IP.
        GRAPHQL_WS_CONNECTIONS_PER_IP: String(SUBSCRIBERS + 10),
        GRAPHQL_WS_SUBSCRIPTIONS_PER_IP: String(SUBSCRIBERS + 10),
      });
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
      if (PARTS.has("http")) rows.push(...(await httpRows(api, apiProcess.pid, deployment.vaults.moderate!.address)));
      if (PARTS.has("subscriptions")) {
        const moderate = vaults[VAULT_IDS.indexOf("moderate")];
        rows.push(...(await subscriptionRows(api, moderate, owner, apiProcess.pid)));
      }
    }
    if (PARTS.has("freshness"))
      rows.push(...(await freshnessRows(rpcUrl, deploymentFile, head, deployment.vaults.moderate!.address)));
    console.log("");
    console.log("| measure | value | p99 (ms) | reference | ratio | target |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const row of rows) console.log(row);
  } finally {
    for (const child of children) child.kill("SIGTERM");
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The indexer beside the raw fetch of the same range, alternating, through one JSON-RPC connection: blocks per
 * second, the CPU time this process spent on each, and the node's (`nodePid`, from /proc: 10 ms ticks, so summed over
 * the counted rounds and divided by their number). Two ranges:
 * - following: the blocks after the deployment (the deposits), indexed by an instance that has indexed the
 *   deployment already and so holds the vaults' records, as an indexer that follows the chain does. This is the
 *   throughput the target is set for.
 * - fresh: every block from the deployment's first, indexed by a new instance on an empty read model, which also
 *   reads every vault's whole record once (VaultLens `records`, the node's largest single piece of work for it).
 */
async function indexerRows(
  clients: ReturnType<typeof httpChainClients>,
  deployment: Awaited<ReturnType<typeof loadDeployment>>,
  deployedHead: number,
  head: number,
  nodePid: number | undefined,
): Promise<string[]> {
  const start = Math.min(
    ...Object.values(deployment.contracts).map((c) => c.block),
    ...VAULT_IDS.map((id) => deployment.vaults[id]!.block),
  );
  return [
    ...(await indexerComparison(clients, deployment, nodePid, {
      label: "following",
      following: true,
      from: deployedHead + 1,
      to: head,
      target: "0.50",
    })),
    ...(await indexerComparison(clients, deployment, nodePid, {
      label: "fresh",
      following: false,
      from: start,
      to: head,
      target: "",
    })),
  ];
}

/**
 * One range of `indexerRows`, timed until the indexer's cursor is at `to`; a following instance has indexed the
 * blocks below `from` first (not timed).
 */
async function indexerComparison(
  { provider, rpc }: ReturnType<typeof httpChainClients>,
  deployment: Awaited<ReturnType<typeof loadDeployment>>,
  nodePid: number | undefined,
  range: { label: string; following: boolean; from: number; to: number; target: string },
): Promise<string[]> {
  const chain = createChainAccess(provider, 31337, deployment, { head: { latestTtlMs: 0 }, rpc });
  const addresses = [
    ...Object.values(deployment.contracts).map((c) => c.address),
    ...VAULT_IDS.map((id) => deployment.vaults[id]!.address),
  ];
  const { from: first, to: head } = range;
  const blocks = head - first + 1;
  const raw: number[] = [];
  const indexed: number[] = [];
  const rawCpu: number[] = [];
  const indexedCpu: number[] = [];
  let logCount = 0;
  let rawNodeMs = 0;
  let indexedNodeMs = 0;
  const cursorOf = async (store: MemoryReadModelStore) => (await store.cursor())?.height ?? -1;
  // Rounds first that are not counted (BENCH_WARMUP), so that both sides are measured on warmed-up (JIT-compiled) code,
  // in this process and in the node: a fresh process spends about half as much again on its first pass of the indexer.
  for (let round = -WARMUP; round < INDEXER_ROUNDS; round++) {
    let nodeCpu = processCpuMs(nodePid);
    let started = performance.now();
    let cpu = process.cpuUsage();
    logCount = 0;
    for (let from = first; from <= head; from += BATCH_BLOCKS) {
      logCount += (await getLogs(rpc, addresses, from, Math.min(head, from + BATCH_BLOCKS - 1))).length;
    }
    raw.push(blocks / ((performance.now() - started) / 1000));
    rawCpu.push(cpuMsSince(cpu));
    if (round >= 0) rawNodeMs += (processCpuMs(nodePid) ?? 0) - (nodeCpu ?? 0);
    const store = new MemoryReadModelStore();
    // A following instance indexes the blocks below the range first, held there by its finality depth, which is then
    // set to 0 so that the timed steps take the range.
    const indexer = new Indexer({
      chain,
      store,
      logger: createLogger("silent"),
      settings: { batchBlocks: BATCH_BLOCKS, finalityDepth: range.following ? head - (first - 1) : 0 },
    });
    if (range.following) {
      while ((await indexer.step()) === "indexed" && (await cursorOf(store)) < first - 1);
      if ((await cursorOf(store)) !== first - 1) throw new Error(`the indexer did not stop at block ${first - 1}`);
      indexer.settings.finalityDepth = 0;
    }
    nodeCpu = processCpuMs(nodePid);
    started = performance.now();
    cpu = process.cpuUsage();
    // Indexed once the cursor reaches the range's last block: the step after, which finds no new block, polls for
    // blocks that are not part of the range (the raw fetch above does no such check either).
    while ((await indexer.step()) === "indexed" && (await cursorOf(store)) < head);
    indexed.push(blocks / ((performance.now() - started) / 1000));
    indexedCpu.push(cpuMsSince(cpu));
    if (round >= 0) indexedNodeMs += (processCpuMs(nodePid) ?? 0) - (nodeCpu ?? 0);
    if (round < 0) [raw, rawCpu, indexed, indexedCpu].forEach((figures) => figures.pop());
  }
  const ratio = median(indexed.map((rate, i) => rate / raw[i]));
  const what = `${range.label}: ${blocks} blocks from ${first}, ${logCount} logs, batches of ${BATCH_BLOCKS}`;
  return [
    `| indexer ${what}, blocks/s | ${Math.round(median(indexed))} | | ${Math.round(median(raw))} (raw eth_getLogs) | ` +
      `${ratio.toFixed(2)} | ${range.target} |`,
    `| indexer ${range.label}, CPU ms of this process for the range | ${Math.round(median(indexedCpu))} | | ` +
      `${Math.round(median(rawCpu))} (raw eth_getLogs) | ${median(indexedCpu.map((ms, i) => ms / rawCpu[i])).toFixed(2)} | |`,
    ...(nodePid === undefined || rawNodeMs === 0
      ? []
      : [
          `| indexer ${range.label}, CPU ms of the node for the range (mean) | ${(indexedNodeMs / INDEXER_ROUNDS).toFixed(1)} | | ` +
            `${(rawNodeMs / INDEXER_ROUNDS).toFixed(1)} (raw eth_getLogs) | ${(indexedNodeMs / rawNodeMs).toFixed(2)} | |`,
        ]),
  ];
}

/** CPU time (user and system) of this process since `start`, in milliseconds. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** REST reads beside bare Koa, and GraphQL `vaults` beside REST `/v1/vaults`, each pair alternating. */
async function httpRows(api: string, apiPid: number | undefined, vaultAddress: string): Promise<string[]> {
  const { url: bare, child: bareChild } = await forkBareKoa(children);
  type Run = Awaited<ReturnType<typeof load>>;
  const rows: string[] = [];
  console.log(`load: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} pairs per measure`);
  for (const path of ["/v1/vaults", `/v1/vaults/${vaultAddress}`]) {
    await autocannon({ url: api + path, connections: CONNECTIONS, duration: 1 });
    await copyAnswer(api, path, bareChild);
    await autocannon({ url: bare + path, connections: CONNECTIONS, duration: 1 });
    const pairs: { base: Run; result: Run }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      pairs.push({
        base: await load(bare + path, undefined, bareChild.pid),
        result: await load(api + path, undefined, apiPid),
      });
    }
    const label = path.startsWith("/v1/vaults/") ? "/v1/vaults/:address" : path;
    const cpu = (runs: Run[]) => {
      const known = runs.map((run) => run.cpuUs).filter((us): us is number => us !== null);
      return known.length > 0 ? median(known).toFixed(0) : "n/a";
    };
    console.log(
      `${label}: server CPU per request ${cpu(pairs.map((p) => p.result))} µs, bare Koa ` +
        `${cpu(pairs.map((p) => p.base))} µs (medians of ${ROUNDS} runs)`,
    );
    rows.push(
      `| ${label} | ${Math.round(median(pairs.map((p) => p.result.rps)))} | ${median(pairs.map((p) => p.result.p99))} | ` +
        `${Math.round(median(pairs.map((p) => p.base.rps)))} (bare Koa) | ` +
        `${median(pairs.map((p) => p.result.rps / p.base.rps)).toFixed(2)} | 0.60 |`,
    );
  }
  const body = JSON.stringify({ query: VAULTS_QUERY });
  const probe = (await (
    await fetch(`${api}/graphql`, { method: "POST", body, headers: { "content-type": "application/json" } })
  ).json()) as { data?: { vaults: unknown[] } };
  if (probe.data?.vaults.length !== VAULT_IDS.length) throw new Error(`GraphQL vaults: ${JSON.stringify(probe)}`);
  await autocannon({ url: `${api}/graphql`, connections: CONNECTIONS, duration: 1, method: "POST", body });
  const pairs: { rest: Run; graphql: Run }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    pairs.push({ rest: await load(`${api}/v1/vaults`), graphql: await load(`${api}/graphql`, body) });
  }
  rows.push(
    `| GraphQL vaults (POST /graphql, the list's fields) | ${Math.round(median(pairs.map((p) => p.graphql.rps)))} | ` +
      `${median(pairs.map((p) => p.graphql.p99))} | ${Math.round(median(pairs.map((p) => p.rest.rps)))} (REST /v1/vaults) | ` +
      `${median(pairs.map((p) => p.graphql.rps / p.rest.rps)).toFixed(2)} | |`,
  );
  return rows;
}

/**
 * Deposit-to-message delays with one subscriber, then the fan-out of each deposit to SUBSCRIBERS subscribers (one
 * socket each) and the API's memory with them. Every client subscribes to `transactionCreated` of the vault.
 */
async function subscriptionRows(api: string, vault: NapVault, owner: string, apiPid?: number): Promise<string[]> {
  const url = `${api.replace("http", "ws")}/graphql`;
  const query = `subscription($v: String) { transactionCreated(vaultAddress: $v) { hash } }`;
  const variables = { v: await vault.getAddress() };
  /** Arrival times of each transaction's message, per hash, one entry per client that had it. */
  const arrivals = new Map<string, number[]>();
  const clients: Client[] = [];
  const subscribe = async () => {
    const client = createClient({ url, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 });
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      client.on("connected", () => resolve());
      client.on("closed", () => reject(new Error("subscriber socket closed")));
    });
    client.subscribe<{ transactionCreated: { hash: string } }>(
      { query, variables },
      {
        next: ({ data }) => {
          const at = performance.now();
          const hash = data!.transactionCreated.hash.toLowerCase();
          const list = arrivals.get(hash) ?? [];
          list.push(at);
          arrivals.set(hash, list);
        },
        error: (error) => console.error("subscription error", error),
        complete: () => undefined,
      },
    );
  };
  let amount = 5_000_000n;
  /** One deposit: answers when every client has its message, with the send's answer time and the arrivals. */
  const depositTo = async (expected: number) => {
    await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 250));
    amount += 1n;
    const tx = await vault.deposit(amount, owner);
    const mined = performance.now();
    const hash = tx.hash.toLowerCase();
    await waitUntil(() => (arrivals.get(hash)?.length ?? 0) >= expected, 30_000, `messages of ${hash}`);
    return { mined, times: arrivals.get(hash)! };
  };

  const rows: string[] = [];
  try {
    await subscribe();
    // The first deposit makes sure the subscription listens before anything is timed.
    await depositTo(1);
    const delays: number[] = [];
    for (let i = 0; i < LATENCY_DEPOSITS; i++) {
      const { mined, times } = await depositTo(1);
      delays.push(times[0] - mined);
    }
    rows.push(
      `| deposit to subscriber, 1 subscriber, ${LATENCY_DEPOSITS} deposits: p50 / p95 (ms) | ` +
        `${percentile(delays, 50).toFixed(0)} / ${percentile(delays, 95).toFixed(0)} | ${percentile(delays, 99).toFixed(0)} | | | p95 ≤ 250 |`,
    );

    const rssBefore = processRssBytes(apiPid);
    console.log(`${SUBSCRIBERS} subscribers ...`);
    while (clients.length < SUBSCRIBERS) {
      await Promise.all(Array.from({ length: Math.min(50, SUBSCRIBERS - clients.length) }, () => subscribe()));
    }
    await depositTo(SUBSCRIBERS);
    const rssListening = processRssBytes(apiPid);
    const fanout: number[] = [];
    const spreads: number[] = [];
    for (let i = 0; i < FANOUT_DEPOSITS; i++) {
      const { mined, times } = await depositTo(SUBSCRIBERS);
      for (const at of times) fanout.push(at - mined);
      spreads.push(Math.max(...times) - Math.min(...times));
    }
    const mb = (bytes: number | null) => (bytes === null ? "n/a" : `${(bytes / 1024 / 1024).toFixed(0)} MB`);
    rows.push(
      `| deposit to subscriber, ${SUBSCRIBERS} subscribers, ${FANOUT_DEPOSITS} deposits: p50 / p95 (ms) | ` +
        `${percentile(fanout, 50).toFixed(0)} / ${percentile(fanout, 95).toFixed(0)} | ${percentile(fanout, 99).toFixed(0)} | | | |`,
      `| first to last of the ${SUBSCRIBERS} subscribers, per deposit: p50 / p95 (ms) | ` +
        `${percentile(spreads, 50).toFixed(0)} / ${percentile(spreads, 95).toFixed(0)} | | | | |`,
      `| API resident memory: before the sockets / with ${SUBSCRIBERS} listening | ` +
        `${mb(rssBefore)} / ${mb(rssListening)} | | | | |`,
    );
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
  }
  return rows;
}

/** JSON over fetch: the status and the parsed body. */
async function json(url: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/**
 * Write to visible (the "freshness" part above): live deposits, and from each answer the time to a REST read with
 * `minBlock` that includes it and to a graphql-ws subscriber's message of it.
 */
async function freshnessRows(
  rpcUrl: string,
  deploymentFile: string,
  head: number,
  vaultAddress: string,
): Promise<string[]> {
  const { url: api } = await forkApi(children, {
    RPC_URL: rpcUrl,
    DEPLOYMENT_FILE: deploymentFile,
    SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
    STRATEGY_SCREENING: "off",
    SIGNATURE_WORKERS: "0",
  });
  await waitFor(
    async () => ((await json(`${api}/v1/status`)).body.indexer?.indexedBlock ?? -1) >= head,
    "freshness API indexed to the head",
    READY_TIMEOUT_MS,
  );
  const wallet = Wallet.createRandom();
  const nonce = await json(`${api}/api/v1/agent/auth/nonce?wallet=${wallet.address}`);
  const registered = await json(`${api}/api/v1/agent/auth/register`, "POST", {
    wallet_address: wallet.address,
    signature: await wallet.signMessage(nonce.body.message as string),
    nonce: nonce.body.nonce,
    agent_name: "bench agent",
    operator_address: wallet.address,
  });
  if (registered.status !== 200) throw new Error(`register: ${JSON.stringify(registered.body)}`);
  const key = { "X-API-Key": registered.body.api_key as string };
  const drip = await json(`${api}/api/v1/agent/faucet`, "POST", undefined, key);
  if (drip.status !== 200) throw new Error(`faucet: ${JSON.stringify(drip.body)}`);
  const agent = drip.body.agent_address as string;

  const arrivals = new Map<string, number>();
  const wsArrivals = new Map<string, number>();
  const client = createClient({ url: `${api.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, lazy: false });
  await new Promise<void>((resolve) => client.on("connected", () => resolve()));
  client.subscribe<{ transactionCreated: { hash: string } }>(
    {
      query: `subscription($v: String) { transactionCreated(vaultAddress: $v) { hash } }`,
      variables: { v: vaultAddress },
    },
    {
      next: ({ data }) => arrivals.set(data!.transactionCreated.hash.toLowerCase(), performance.now()),
      error: (error) => console.error("subscription error", error),
      complete: () => undefined,
    },
  );
  const socket = new WebSocket(`${api.replace("http", "ws")}/ws`);
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { type: string; event?: { name: string; transactionHash: string } };
    if (message.type === "vault" && message.event?.name === "Deposit") {
      wsArrivals.set(message.event.transactionHash.toLowerCase(), performance.now());
    }
  });
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  socket.send(JSON.stringify({ type: "subscribe", channel: "vault", vault: vaultAddress }));
  const has = (list: { hash: string }[] | undefined, hash: string) =>
    list?.some((t) => t.hash.toLowerCase() === hash) === true;
  const delays = { rest: [] as number[], graphql: [] as number[], subscriber: [] as number[], ws: [] as number[] };
  /** Reads without minBlock, made right after the write's answer, that already included it. */
  let plainIncluded = 0;
  try {
    console.log(`${FRESHNESS_DEPOSITS} live deposits, each read back at once ...`);
    for (let i = 0; i <= FRESHNESS_DEPOSITS; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      const deposit = await json(
        `${api}/api/v1/agent/vault/deposit`,
        "POST",
        { vault_id: "moderate", amount_usdc: 1 },
        key,
      );
      const answered = performance.now();
      if (deposit.status !== 200) throw new Error(`deposit: ${JSON.stringify(deposit.body)}`);
      const hash = (deposit.body.deposit_tx as string).toLowerCase();
      const minBlock = deposit.body.block_number as number;
      const timed = async <T>(read: Promise<T>) => {
        const value = await read;
        return { value, after: performance.now() - answered };
      };
      // At once and side by side: a plain read, a REST read and a GraphQL query each naming the write's block.
      const [plain, rest, graphql] = await Promise.all([
        timed(json(`${api}/v1/users/${agent}/transactions?limit=5`)),
        timed(json(`${api}/v1/users/${agent}/transactions?limit=5&minBlock=${minBlock}`)),
        timed(
          json(`${api}/graphql`, "POST", {
            query: `query($a: String!) { userTransactions(address: $a, limit: 5) { hash } }`,
            variables: { a: agent },
            extensions: { minBlock },
          }),
        ),
      ]);
      if (!has(rest.value.body.transactions, hash) || !has(graphql.value.body.data?.userTransactions, hash)) {
        throw new Error(`a read with minBlock missed the deposit: ${JSON.stringify([rest.value, graphql.value])}`);
      }
      await waitUntil(() => arrivals.has(hash) && wsArrivals.has(hash), 30_000, `the subscribers' messages of ${hash}`);
      // The first deposit warms every path up and is not counted.
      if (i === 0) continue;
      if (has(plain.value.body.transactions, hash)) plainIncluded += 1;
      delays.rest.push(rest.after);
      delays.graphql.push(graphql.after);
      // A message may come before the write's own answer: counted as 0.
      delays.subscriber.push(Math.max(0, (arrivals.get(hash) as number) - answered));
      delays.ws.push(Math.max(0, (wsArrivals.get(hash) as number) - answered));
    }
  } finally {
    await client.dispose();
    socket.close();
  }
  const row = (what: string, list: number[]) =>
    `| write answered to ${what}, ${FRESHNESS_DEPOSITS} live deposits: p50 / p95 (ms) | ` +
    `${percentile(list, 50).toFixed(0)} / ${percentile(list, 95).toFixed(0)} | ${percentile(list, 99).toFixed(0)} | | | p95 ≤ 150 |`;
  return [
    row("REST read with minBlock answered", delays.rest),
    row("GraphQL query with extensions.minBlock answered", delays.graphql),
    row("graphql-ws subscriber's message", delays.subscriber),
    row("/ws subscriber's message", delays.ws),
    `| REST reads without minBlock right after the write's answer that included it | ${plainIncluded} of ${FRESHNESS_DEPOSITS} | | | | |`,
  ];
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not there within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
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
