import { expect } from "chai";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Wallet } from "ethers";
import {
  NapAuthError,
  NapClient,
  NapDataClient,
  NapGraphQLError,
  NapNotFoundError,
  NapValidationError,
  type SubscriptionEvent,
  type SubscriptionTypes,
} from "@nap/sdk";
import { freePort } from "../helpers/services";
import { DEV_MNEMONIC } from "./helpers";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "./processes";

const ROOT = resolve(__dirname, "..", "..");
const NAP = join(ROOT, "packages", "cli", "bin", "nap.js");
const NAP_MCP = join(ROOT, "packages", "mcp", "bin", "nap-mcp.js");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [file, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 180_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** A running CLI process whose output is read as it comes. */
interface Streaming {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number>;
}

function start(file: string, args: string[], env: Record<string, string>): Streaming {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = (stream: NodeJS.ReadableStream, into: string[]) => {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      into.push(...parts);
    });
  };
  const stdout: string[] = [];
  const stderr: string[] = [];
  lines(child.stdout!, stdout);
  lines(child.stderr!, stderr);
  const exited = new Promise<number>((done) => child.once("exit", (code) => done(code ?? 1)));
  return { child, stdout, stderr, exited };
}

/** Waits until `condition` holds (polling), or fails with `what` after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A TCP proxy in front of the API whose connections can be cut: `cut()` drops every open connection and stops
 * accepting (the API looks gone), `restore()` accepts again on the same port, and `freeze()` stops passing bytes on
 * the open connections without closing them (a half-open connection: a peer gone without a word) while new
 * connections work.
 */
async function cuttableProxy(targetPort: number) {
  const port = await freePort();
  const sockets = new Set<Socket>();
  const pairs: [Socket, Socket][] = [];
  let server: Server;
  const listen = () =>
    new Promise<void>((done) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, "127.0.0.1");
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.once("close", () => sockets.delete(socket));
          socket.on("error", () => undefined);
        }
        client.pipe(upstream).pipe(client);
        pairs.push([client, upstream]);
      });
      server.listen(port, "127.0.0.1", () => done());
    });
  await listen();
  const stop = () =>
    new Promise<void>((done) => {
      server.close(() => done());
      for (const socket of sockets) socket.destroy();
    });
  const freeze = () => {
    for (const [client, upstream] of pairs.splice(0)) {
      client.unpipe(upstream);
      upstream.unpipe(client);
    }
  };
  return { url: `http://127.0.0.1:${port}`, cut: stop, restore: listen, freeze, close: stop };
}

/**
 * The developer tools against a spawned stack (hardhat node, deployment, the API as its own process): the `nap` CLI
 * as a new agent author runs it, the MCP server over stdio with the official client, and the README's TypeScript
 * quickstart (examples/quickstart.ts).
 */
describe("E2E: the CLI, the MCP server and the quickstart against a spawned stack", function () {
  this.timeout(600_000);
  let node: Spawned;
  let api: Spawned;
  let outDir: string;
  let home: string;

  before(async function () {
    node = await spawnHardhatNode();
    outDir = mkdtempSync(join(tmpdir(), "nap-devtools-"));
    home = mkdtempSync(join(tmpdir(), "nap-devtools-home-"));
    await deployTo(node.url, outDir);
    api = await spawnApi({
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(outDir, "31337.json"),
      SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
      SIGNATURE_WORKERS: "0",
      STRATEGY_SCREENING: "off",
    });
  });

  after(async function () {
    if (api) await kill(api.child);
    if (node) await kill(node.child);
    for (const dir of [outDir, home]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const credentials = () => join(home, ".nap", "credentials.json");
  const nap = (...args: string[]) => run(NAP, args, { NAP_API_URL: api.url, NAP_CREDENTIALS: credentials() });

  it("CLI: register saves the key to a 0600 file and never prints it; faucet, deposit and withdraw follow", async function () {
    const registered = await nap("register", "--name", "cli agent");
    expect(registered.code, registered.stderr).to.equal(0);
    const saved = JSON.parse(readFileSync(credentials(), "utf8")) as Record<string, string>;
    expect(statSync(credentials()).mode & 0o777).to.equal(0o600);
    expect(statSync(join(home, ".nap")).mode & 0o777).to.equal(0o700);
    expect(saved.api_key).to.match(/^nap-/);
    expect(saved.api_url).to.equal(api.url);
    for (const output of [registered.stdout, registered.stderr]) expect(output).not.to.include(saved.api_key);
    expect(registered.stdout).to.include(`API key ${saved.api_key_prefix}... saved to ${credentials()} (mode 0600)`);
    const again = await nap("register", "--name", "cli agent");
    expect(again.code).to.equal(1);
    expect(again.stderr).to.equal(
      `error: ${credentials()} exists (an agent is registered already); pass --force to replace it\n`,
    );

    const faucet = await nap("faucet");
    expect(faucet.code, faucet.stderr).to.equal(0);
    expect(faucet.stdout).to.match(/^received 0\.05 ETH and 1000 USDC \(tx 0x[0-9a-f]{64}, block \d+\)\n$/);
    expect(faucet.stderr).to.equal("asking the faucet: sent, waiting for the transactions to be mined...\n");

    const deposit = await nap("deposit", "moderate", "100", "--json");
    expect(deposit.code, deposit.stderr).to.equal(0);
    expect(deposit.stderr).to.equal("");
    const body = JSON.parse(deposit.stdout) as Record<string, unknown>;
    expect(body).to.include({ success: true, vault_id: "moderate", amount_usdc: 100, status: "confirmed" });

    const status = await nap("status");
    expect(status.stdout).to.include("USDC 900\n");
    expect(status.stdout).to.match(/shares worth 100 USDC/);

    const tooMuch = await nap("withdraw", "moderate", "500");
    expect(tooMuch.code).to.equal(1);
    expect(tooMuch.stderr).to.match(
      /^withdrawing from moderate: sent, waiting for the transactions to be mined\.\.\.\n/,
    );
    expect(tooMuch.stderr).to.match(
      /error 400: amount_usdc: the agent wallet 0x[0-9a-fA-F]{40} can withdraw at most 100 USDC from the moderate vault/,
    );
    const tooMuchJson = await nap("withdraw", "moderate", "500", "--json");
    expect(JSON.parse(tooMuchJson.stderr)).to.include({ status: 400 });

    const withdraw = await nap("withdraw", "moderate", "--all");
    expect(withdraw.code, withdraw.stderr).to.equal(0);
    // 100 USDC less the management fee accrued since the deposit (rounded down to the unit).
    const withdrawn =
      /^withdrew (\d+(?:\.\d{1,6})?) USDC from .* for [0-9.]+ shares \(tx 0x[0-9a-f]{64}, block \d+\)\n/.exec(
        withdraw.stdout,
      );
    expect(withdraw.stdout).to.include("shares left: 0 (raw)");
    expect(Number(withdrawn![1])).to.be.within(99.99, 100);
    const after = JSON.parse((await nap("status", "--json")).stdout) as { usdc_balance: number; positions: [] };
    expect(after.usdc_balance).to.equal(Number((900 + Number(withdrawn![1])).toFixed(6)));
    expect(after.positions).to.deep.equal([]);

    const usage = await nap("deposit", "moderate");
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/^error: deposit: AMOUNT_USDC is required\n/);
  });

  it("MCP over stdio: the official client lists the tools and completes a deposit as the CLI's agent", async function () {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [NAP_MCP],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), NAP_CREDENTIALS: credentials() },
      stderr: "pipe",
    });
    const client = new Client({ name: "nap-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.include.members(["nap_wallet", "nap_deposit", "nap_withdraw"]);
      const result = (await client.callTool({
        name: "nap_deposit",
        arguments: { vault_id: "conservative", amount_usdc: 50 },
      })) as { content: { text: string }[]; isError?: boolean };
      expect(result.isError ?? false, result.content[0].text).to.equal(false);
      expect(JSON.parse(result.content[0].text)).to.include({ vault_id: "conservative", amount_usdc: 50 });
    } finally {
      await client.close();
    }
  });

  it("runs the README's TypeScript quickstart (examples/quickstart.ts) from register to withdrawal", async function () {
    const quickstart = await new Promise<Run>((done) => {
      execFile(
        process.execPath,
        ["-r", "ts-node/register/transpile-only", "examples/quickstart.ts"],
        { cwd: ROOT, env: { ...process.env, NAP_API_URL: api.url }, timeout: 180_000 },
        (error, stdout, stderr) => done({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    expect(quickstart.code, quickstart.stderr).to.equal(0);
    const lines = quickstart.stdout.trim().split("\n");
    expect(lines).to.have.length(5);
    expect(lines[0]).to.match(/^registered quickstart agent \([0-9a-f-]{36}\), key nap-/);
    expect(lines[1]).to.match(/^faucet: 0\.05 ETH and 1000 USDC to 0x/);
    expect(lines[2]).to.match(/^deposited 100 USDC: \d+ shares/);
    expect(lines[3]).to.match(/^strategy 0x[0-9a-f]{64} is shadow$/);
    expect(lines[4]).to.match(/^withdrew \d+(\.\d{1,6})? USDC \(tx 0x[0-9a-f]{64}\); shares left 0$/);
  });

  describe("the data API through the SDK and the CLI", function () {
    const UNKNOWN = "0x000000000000000000000000000000000000dEaD";
    /** A new agent with the faucet's funds, through the SDK. */
    const fundedAgent = async (name: string) => {
      const agent = new NapClient({ baseUrl: api.url });
      await agent.register({ signer: Wallet.createRandom(), agentName: name });
      await agent.faucet();
      const { agent_address: wallet } = await agent.wallet();
      if (!wallet) throw new Error("the API has no server wallets");
      return { agent, wallet };
    };

    it("SDK: REST /v1 and GraphQL answer the same after a deposit made through the SDK; errors carry the API's codes", async function () {
      const { agent, wallet } = await fundedAgent("data reader");
      const deposit = await agent.deposit({ vault_id: "moderate", amount_usdc: 25 });
      const data = new NapDataClient({ baseUrl: api.url });

      const positions = await data.userPositions(wallet, { minBlock: deposit.block_number });
      expect(positions.indexedBlock).to.be.at.least(deposit.block_number);
      expect(positions.positions).to.have.length(1);
      const vault = positions.positions[0].vault;
      expect(positions.positions[0].costBasis).to.equal("25000000");
      const transactions = await data.userTransactions(wallet, { type: "DEPOSIT" });
      expect(transactions.total).to.equal(1);
      expect(transactions.transactions[0]).to.include({
        hash: deposit.deposit_tx,
        type: "DEPOSIT",
        amount: "25000000",
        status: "FULFILLED",
        block: deposit.block_number,
      });
      expect(transactions.transactions[0].user.toLowerCase()).to.equal(wallet.toLowerCase());

      const graph = await data.query("userTransactions", { address: wallet });
      expect(graph.userTransactions).to.deep.equal(
        transactions.transactions.map(({ block: _block, ...rest }) => (void _block, rest)),
      );
      const detail = await data.vault(vault.address);
      const graphVault = (await data.query("vault", { address: vault.address })).vault!;
      expect(graphVault).to.deep.include({
        address: detail.address,
        tvl: detail.tvl,
        pricePerShare: detail.pricePerShare,
      });
      expect(graphVault.apy).to.deep.equal({
        current: detail.apy.current,
        day7: detail.apy["7d"],
        day30: detail.apy["30d"],
        inception: detail.apy.inception,
      });
      const [stats, graphStats] = await Promise.all([data.protocolStats(), data.query("protocolStats")]);
      expect(graphStats.protocolStats.totalTvl).to.equal(stats.totalTvl);
      const history = await data.vaultHistory(vault.address, { period: "7d", interval: "1h" });
      expect(history.points.at(-1)!.tvl).to.equal(detail.tvl);

      const missing = (await data.vault(UNKNOWN).catch((e: unknown) => e)) as NapNotFoundError;
      expect(missing).to.be.instanceOf(NapNotFoundError);
      expect(missing).to.include({ status: 404, code: "VAULT_NOT_FOUND" });
      const malformed = (await data.vaultHistory("0x12").catch((e: unknown) => e)) as NapValidationError;
      expect(malformed).to.be.instanceOf(NapValidationError);
      expect(malformed).to.include({ status: 400, code: "INVALID_ADDRESS" });
      const graphMissing = (await data
        .query("vault", { address: UNKNOWN })
        .catch((e: unknown) => e)) as NapGraphQLError;
      expect(graphMissing).to.be.instanceOf(NapGraphQLError);
      expect(graphMissing).to.include({ code: "NOT_FOUND", message: `vault ${UNKNOWN} not found` });
      expect(graphMissing.data).to.deep.equal({ vault: null });
    });

    it("SDK: a data API key issued for an agent key or a wallet signature is sent as a Bearer token", async function () {
      const { agent } = await fundedAgent("key holder");
      const data = new NapDataClient({ baseUrl: api.url });
      const issued = await data.issueKey({ agentApiKey: agent.apiKey! }, { name: "sdk", scopes: ["vaults:read"] });
      expect(issued.key).to.match(/^napd-/);
      expect(data.apiKey).to.equal(issued.key);
      expect(await data.tokenInfo()).to.include({ key_id: issued.key_id, tier: "authenticated", name: "sdk" });
      expect(await data.rateLimitStatus()).to.include({
        tier: "authenticated",
        counted_by: "key",
        key_id: issued.key_id,
      });
      const outOfScope = (await data.nodes().catch((e: unknown) => e)) as NapAuthError;
      expect(outOfScope).to.be.instanceOf(NapAuthError);
      expect(outOfScope).to.include({ status: 401, code: "INSUFFICIENT_SCOPE" });

      const owner = Wallet.createRandom();
      const byWallet = new NapDataClient({ baseUrl: api.url });
      const signed = await byWallet.issueKey({ signer: owner });
      expect(signed.owner).to.equal(`wallet:${owner.address.toLowerCase()}`);
      expect((await byWallet.tokenInfo()).key_id).to.equal(signed.key_id);
    });

    it("CLI: nap watch prints the deposit a second agent makes through the CLI (lines and --json), and Ctrl-C exits 0", async function () {
      const watcherEnv = { NAP_API_URL: api.url, NAP_CREDENTIALS: join(home, "watcher.json") };
      const registered = await run(NAP, ["register", "--name", "depositor", "--faucet"], watcherEnv);
      expect(registered.code, registered.stderr).to.equal(0);
      expect(registered.stdout).to.match(/\nreceived 0\.05 ETH and 1000 USDC \(tx 0x[0-9a-f]{64}, block \d+\)\n$/);

      const json = start(NAP, ["watch", "transactions", "moderate", "--json"], watcherEnv);
      const human = start(NAP, ["watch", "vault", "moderate"], watcherEnv);
      try {
        await until(() => json.stderr.some((l) => l.includes('"status":"connected"')), "the --json watcher");
        await until(() => human.stderr.some((l) => l.startsWith("watching updates of vault 0x")), "the watcher");
        const deposit = await run(NAP, ["deposit", "moderate", "12.5", "--json"], watcherEnv);
        expect(deposit.code, deposit.stderr).to.equal(0);
        const sent = JSON.parse(deposit.stdout) as { deposit_tx: string; agent_address: string };

        await until(() => json.stdout.length >= 1, "the transaction line");
        await until(() => human.stdout.length >= 1, "the vault line");
        const event = JSON.parse(json.stdout[0]) as {
          seq: number;
          transactionCreated: SubscriptionTypes["transactionCreated"]["result"]["transactionCreated"];
        };
        expect(event.seq).to.be.a("number");
        expect(event.transactionCreated).to.include({
          hash: sent.deposit_tx,
          type: "DEPOSIT",
          amount: "12500000",
          status: "FULFILLED",
        });
        expect(event.transactionCreated.user.toLowerCase()).to.equal(sent.agent_address.toLowerCase());
        expect(human.stdout[0]).to.match(/^#\d+ .+: TVL [\d.]+ USDC, price [\d.]+ per share, APY -?[\d.e-]+%$/);

        json.child.kill("SIGINT");
        human.child.kill("SIGINT");
        expect(await json.exited).to.equal(0);
        expect(await human.exited).to.equal(0);
        expect(json.stdout.filter((l) => l !== "")).to.have.length(1);
        expect(JSON.parse(json.stderr.at(-1)!)).to.deep.equal({ status: "stopped", last_seq: event.seq });
        expect(human.stderr.at(-1)).to.match(/^stopped; resume with --after-seq \d+$/);
      } finally {
        json.child.kill("SIGKILL");
        human.child.kill("SIGKILL");
      }
    });

    it("SDK subscription: after a dropped connection it resumes from the last seq, with no duplicate and no gap", async function () {
      const { agent } = await fundedAgent("resumer");
      const proxy = await cuttableProxy(api.port);
      const vault = (await new NapDataClient({ baseUrl: api.url }).vaultsBatch(["conservative"])).vaults[0].address;
      const received: SubscriptionEvent<SubscriptionTypes["transactionCreated"]["result"]>[] = [];
      const connections: { afterSeq: number | undefined; reconnects: number }[] = [];
      const drops: { afterSeq: number | undefined }[] = [];
      let failure: Error | undefined;
      const subscription = new NapDataClient({ baseUrl: proxy.url }).subscribe(
        "transactionCreated",
        { vaultAddress: vault },
        {
          next: (event) => received.push(event),
          connected: (info) => connections.push(info),
          reconnecting: (info) => drops.push(info),
          error: (error) => (failure = error),
        },
        { reconnectDelayMs: 100, maxReconnectDelayMs: 500 },
      );
      try {
        await until(() => connections.length === 1, "the subscription");
        const deposits = [await agent.deposit({ vault_id: "conservative", amount_usdc: 1 })];
        await until(() => received.length === 1, "the first event");

        await proxy.cut();
        await until(() => drops.length >= 1, "the drop to be noticed");
        deposits.push(await agent.deposit({ vault_id: "conservative", amount_usdc: 2 }));
        deposits.push(await agent.deposit({ vault_id: "conservative", amount_usdc: 3 }));
        // Indexed (and in the event log) while the subscriber is away.
        await new NapDataClient({ baseUrl: api.url }).userPositions(UNKNOWN, { minBlock: deposits[2].block_number });
        expect(received).to.have.length(1);
        await proxy.restore();

        await until(() => received.length === 3, "the missed events");
        deposits.push(await agent.deposit({ vault_id: "conservative", amount_usdc: 4 }));
        await until(() => received.length === 4, "the live event after the resume");
      } finally {
        await subscription.close();
        await proxy.close();
      }
      expect(failure).to.equal(undefined);
      const transactions = received.map((e) => e.data.transactionCreated);
      expect(transactions.map((t) => t.amount)).to.deep.equal(["1000000", "2000000", "3000000", "4000000"]);
      const seqs = received.map((e) => e.seq);
      expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).to.equal(4);
      // Connected twice: first, then once the proxy was back, resuming after the first event (every failed attempt
      // in between was announced as a drop).
      expect(connections).to.deep.equal([
        { afterSeq: undefined, reconnects: 0 },
        { afterSeq: seqs[0], reconnects: drops.length },
      ]);
      expect(drops.every((drop) => drop.afterSeq === seqs[0])).to.equal(true);
      expect(subscription.lastSeq).to.equal(seqs[3]);
    });

    it("SDK subscription: a half-open connection (no pong) is dropped and resumed, with no duplicate and no gap", async function () {
      const { agent } = await fundedAgent("half-open");
      const proxy = await cuttableProxy(api.port);
      const vault = (await new NapDataClient({ baseUrl: api.url }).vaultsBatch(["conservative"])).vaults[0].address;
      const received: SubscriptionEvent<SubscriptionTypes["transactionCreated"]["result"]>[] = [];
      const drops: { reason: string; afterSeq: number | undefined }[] = [];
      let connections = 0;
      const subscription = new NapDataClient({ baseUrl: proxy.url }).subscribe(
        "transactionCreated",
        { vaultAddress: vault },
        {
          next: (event) => received.push(event),
          connected: () => connections++,
          reconnecting: (info) => drops.push(info),
        },
        { keepAliveMs: 300, pongTimeoutMs: 300, reconnectDelayMs: 100 },
      );
      try {
        await until(() => connections === 1, "the subscription");
        const first = await agent.deposit({ vault_id: "conservative", amount_usdc: 5 });
        await until(() => received.length === 1, "the first event");
        proxy.freeze();
        const second = await agent.deposit({ vault_id: "conservative", amount_usdc: 6 });
        await until(() => received.length === 2, "the event sent while the connection hung");
        expect(received.map((e) => e.data.transactionCreated.hash)).to.deep.equal([
          first.deposit_tx,
          second.deposit_tx,
        ]);
      } finally {
        await subscription.close();
        await proxy.close();
      }
      expect(drops[0]).to.deep.include({ reason: "no pong from the server within 300 ms" });
      expect(drops[0].afterSeq).to.equal(received[0].seq);
      expect(connections).to.equal(2);
      expect(received[1].seq).to.be.greaterThan(received[0].seq);
    });
  });
});
