import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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
});
