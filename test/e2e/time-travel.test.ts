import { expect } from "chai";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { registerAgent } from "../api/helpers/app";
import { advanceChain, localRpcUrl, parseDuration } from "../../scripts/chain/advance";
import { client, DEV_MNEMONIC } from "./helpers";
import { deployTo, kill, rpc, spawnApi, spawnHardhatNode, type Spawned } from "./processes";

const ROOT = resolve(__dirname, "..", "..");
const DAY = 86_400;

/** The message a promise fails with (fails the test when it does not). */
async function failureOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a failure");
}

/** `npm run chain:advance -- <args>` against the node at `rpcUrl`, as a developer types it. */
function chainAdvance(rpcUrl: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      "npm",
      ["run", "--silent", "chain:advance", "--", ...args],
      { cwd: ROOT, env: { ...process.env, LOCAL_RPC_URL: rpcUrl }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("Local time travel: npm run chain:advance", function () {
  describe("durations", function () {
    it("reads seconds and amounts of s, m, h, d and w, alone or together", function () {
      expect(parseDuration("90")).to.equal(90);
      expect(parseDuration("30s")).to.equal(30);
      expect(parseDuration("15m")).to.equal(900);
      expect(parseDuration("6h")).to.equal(21_600);
      expect(parseDuration("1d")).to.equal(DAY);
      expect(parseDuration("1w")).to.equal(7 * DAY);
      expect(parseDuration("1d2h30m")).to.equal(DAY + 2 * 3_600 + 30 * 60);
      expect(parseDuration(" 1D ")).to.equal(DAY);
    });

    it("refuses what is not a positive duration", function () {
      for (const text of ["", "0", "0d", "-1d", "1.5d", "1y", "d", "1d-2h", "tomorrow"]) {
        expect(() => parseDuration(text), text).to.throw(Error);
      }
      expect(() => parseDuration("1y")).to.throw(
        "'1y' is not a duration: write seconds (3600) or amounts with s, m, h, d, w (1d, 6h30m)",
      );
    });

    it("finds the node npm start runs: LOCAL_RPC_URL, else 127.0.0.1 on LOCAL_RPC_PORT or 8545", function () {
      expect(localRpcUrl({})).to.equal("http://127.0.0.1:8545");
      expect(localRpcUrl({ LOCAL_RPC_PORT: "8563" })).to.equal("http://127.0.0.1:8563");
      expect(localRpcUrl({ LOCAL_RPC_URL: "http://127.0.0.1:9999", LOCAL_RPC_PORT: "8563" })).to.equal(
        "http://127.0.0.1:9999",
      );
    });
  });

  describe("against a spawned stack", function () {
    this.timeout(600_000);
    let node: Spawned;
    let api: Spawned;
    let outDir: string;

    before(async function () {
      node = await spawnHardhatNode();
      outDir = mkdtempSync(join(tmpdir(), "nap-time-travel-"));
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
      if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    it("a redemption request of the aggressive vault is claimed after `npm run chain:advance -- 1d`, not before", async function () {
      const agent = await registerAgent(api.url, undefined, { agent_name: "time traveller" });
      const call = client(api.url, agent.apiKey);
      expect((await call("POST", "/api/v1/agent/faucet")).status).to.equal(200);
      const deposit = await call("POST", "/api/v1/agent/vault/deposit", { vault_id: "aggressive", amount_usdc: 100 });
      expect(deposit.status, JSON.stringify(deposit.body)).to.equal(200);
      const requested = await call("POST", "/api/v1/agent/vault/redeem-request", {
        vault_id: "aggressive",
        shares: "all",
      });
      expect(requested.status, JSON.stringify(requested.body)).to.equal(200);
      const readyAt = requested.body.ready_at as number;

      const early = await call("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
      expect(early.status).to.equal(409);
      expect(Number(early.headers.get("retry-after"))).to.be.within(DAY - 60, DAY);

      const before = await rpc<{ timestamp: string }>(node.url, "eth_getBlockByNumber", ["latest", false]);
      const advanced = await chainAdvance(node.url, "1d");
      expect(advanced.code, advanced.stderr).to.equal(0);
      const after = await rpc<{ number: string; timestamp: string }>(node.url, "eth_getBlockByNumber", [
        "latest",
        false,
      ]);
      expect(Number(after.timestamp)).to.be.at.least(Number(before.timestamp) + DAY);
      expect(Number(after.timestamp)).to.be.at.least(readyAt);
      expect(advanced.stdout).to.equal(
        `advanced ${node.url} by ${DAY} s: block ${Number(after.number)} at ` +
          `${new Date(Number(after.timestamp) * 1000).toISOString()}\n`,
      );

      const claim = await call("POST", "/api/v1/agent/vault/claim", { vault_id: "aggressive" });
      expect(claim.status, JSON.stringify(claim.body)).to.equal(200);
      expect(claim.body).to.include({ success: true, vault_id: "aggressive", fulfilled_by: "relayer" });
    });

    it("answers a bad duration with usage and exit code 1, and moves nothing", async function () {
      const before = await rpc<{ number: string }>(node.url, "eth_getBlockByNumber", ["latest", false]);
      const bad = await chainAdvance(node.url, "tomorrow");
      expect(bad.code).to.equal(1);
      expect(bad.stderr).to.equal(
        "chain:advance: 'tomorrow' is not a duration: write seconds (3600) or amounts with s, m, h, d, w (1d, 6h30m)\n",
      );
      const after = await rpc<{ number: string }>(node.url, "eth_getBlockByNumber", ["latest", false]);
      expect(after.number).to.equal(before.number);
    });
  });

  describe("nodes it must not move", function () {
    it("refuses a node that is not a local development chain, and calls nothing else on it", async function () {
      const methods: string[] = [];
      const mainnetLike = createServer((request, response) => {
        let body = "";
        request.on("data", (chunk: Buffer) => (body += chunk.toString()));
        request.on("end", () => {
          const { id, method } = JSON.parse(body) as { id: number; method: string };
          methods.push(method);
          response.setHeader("content-type", "application/json");
          response.end(JSON.stringify({ jsonrpc: "2.0", id, result: "0x2105" }));
        });
      });
      await new Promise<void>((done) => mainnetLike.listen(0, "127.0.0.1", done));
      const url = `http://127.0.0.1:${(mainnetLike.address() as AddressInfo).port}`;
      try {
        expect(await failureOf(advanceChain(url, 60))).to.equal(
          `the node at ${url} is chain 8453, not a local development chain (31337): nothing changed`,
        );
        expect(methods).to.deep.equal(["eth_chainId"]);
      } finally {
        await new Promise((done) => mainnetLike.close(done));
      }
    });

    it("says where no node answers", async function () {
      expect(await failureOf(advanceChain("http://127.0.0.1:1", 60))).to.equal(
        "no node answers at http://127.0.0.1:1: start one with npm start (or set LOCAL_RPC_URL)",
      );
    });
  });
});
