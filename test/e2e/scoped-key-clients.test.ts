import { expect } from "chai";
import { ethers } from "hardhat";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { HDNodeWallet, Wallet } from "ethers";
import { NapApiError, NapClient } from "@nap/sdk";
import { writeCredentials } from "@nap/sdk/credentials";
import { createNapMcpServer } from "../../packages/mcp/src/server";
import { deployTestSystem } from "../api/helpers/system";
import { DEV_MNEMONIC, startE2eApp, type E2eSystem } from "./helpers";
import { runCli as nap } from "../cli/helpers/runCli";

/**
 * The clients take a scoped key as they are given it (issue 31): the SDK, the CLI and the MCP server, each with a
 * scoped key against the live API, and each showing the API's 403, naming the limit and how to raise it, exactly as
 * the API wrote it: a deposit past the key's USDC a day, a write past a read-only key.
 */

type ToolResult = {
  content: { type: string; text: string }[];
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

/** The error a call rejects with (the test fails if it resolves). */
async function failure(call: Promise<unknown>): Promise<NapApiError> {
  const outcome = await call.then(
    (body) => new Error(`expected an error, got ${JSON.stringify(body)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof NapApiError)) throw outcome;
  return outcome;
}

const usdc = (units: bigint) => ethers.formatUnits(units, 6).replace(/\.0$/, "");

/** The next 00:00 UTC: when a daily limit starts again. */
function nextMidnight(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

function limitMessage(prefix: string, limit: bigint, spent: bigint, needed: bigint): string {
  return (
    `usdc_per_day: the scoped key ${prefix} may move ${limit} USDC base units (${usdc(limit)} USDC) out of the ` +
    `agent's wallet per UTC day; spent today: ${spent} (${usdc(spent)} USDC); this request needs ${needed} ` +
    `(${usdc(needed)} USDC); the limit resets at ${nextMidnight()}. To raise it, issue a key with a higher ` +
    "usdc_per_day: POST /api/v1/agent/keys with the full key, or by the agent's wallet signature " +
    "(POST /api/v1/agents/{agent_id}/keys/nonce, then POST /api/v1/agents/{agent_id}/keys)"
  );
}

const scopeMessage = (operation: string, prefix: string, scope: string) =>
  `operation ${operation} is outside the scope of the key ${prefix} (scope: ${scope}); a key that may call it: ` +
  "POST /api/v1/agent/keys with the full key";

describe("E2E: a scoped key through the SDK, the CLI and the MCP server (403 as the API wrote it)", function () {
  this.timeout(240_000);

  let system: E2eSystem;
  let base: string;
  let full: NapClient;
  let owner: Wallet;
  let agentId: string;
  let agentAddress: string;
  let folder: string;

  const txCount = () => ethers.provider.getTransactionCount(agentAddress);

  before(async function () {
    const deployment = await deployTestSystem();
    system = await startE2eApp("scoped-clients", deployment, { STRATEGY_SCREENING: "off" });
    base = system.app.url;
    owner = Wallet.createRandom() as unknown as Wallet;
    full = new NapClient({ baseUrl: base, maxRetries: 0 });
    const registered = await full.register({ signer: owner, agentName: "scoped agent" });
    agentId = registered.agent_id;
    const record = await system.store.agents.findById(agentId);
    agentAddress = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).address;
    await full.faucet();
    folder = mkdtempSync(path.join(tmpdir(), "nap-scoped-"));
  });

  after(async function () {
    await system?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("SDK: a scoped key deposits within its USDC a day; past it, 403 naming the limit, spent, need, reset and the way to raise it, and nothing is sent", async function () {
    const issued = await full.createScopedKey({
      operations: ["vault.deposit", "vault.withdraw"],
      usdc_per_day: "10000000",
      label: "llm",
    });
    expect(issued.api_key).to.match(/^nap-[0-9A-Za-z]{32}$/);
    expect(issued).to.deep.include({
      success: true,
      agent_id: agentId,
      api_key_prefix: issued.api_key.slice(0, 12),
      label: "llm",
      scope: { read_only: false, operations: ["vault.deposit", "vault.withdraw"], usdc_per_day: "10000000" },
    });
    const scoped = new NapClient({ baseUrl: base, apiKey: issued.api_key, maxRetries: 0 });
    expect((await scoped.deposit({ vault_id: "moderate", amount_usdc: 6 })).status).to.equal("confirmed");

    const nonce = await txCount();
    const refused = await failure(scoped.deposit({ vault_id: "moderate", amount_usdc: 5 }));
    expect(refused.status).to.equal(403);
    expect(refused.message).to.equal(limitMessage(issued.api_key_prefix, 10_000_000n, 6_000_000n, 5_000_000n));
    expect(await txCount()).to.equal(nonce);
    // The full key has no daily limit: the same deposit goes through with it.
    expect((await full.deposit({ vault_id: "moderate", amount_usdc: 5 })).status).to.equal("confirmed");
  });

  it("SDK: a read-only key reads; a write, or issuing a key with it, answers 403 naming the operation and the scope", async function () {
    const issued = await full.createScopedKey({ read_only: true });
    expect(issued.scope).to.deep.equal({ read_only: true, operations: [], usdc_per_day: null });
    const reader = new NapClient({ baseUrl: base, apiKey: issued.api_key, maxRetries: 0 });
    expect((await reader.wallet()).agent_address).to.equal(agentAddress);

    const faucet = await failure(reader.faucet());
    expect(faucet.status).to.equal(403);
    expect(faucet.message).to.equal(scopeMessage("faucet", issued.api_key_prefix, "read only"));
    const widen = await failure(reader.createScopedKey({ operations: ["exit"] }));
    expect(widen.status).to.equal(403);
    expect(widen.message).to.equal(
      `this endpoint needs the agent's full API key: the scoped key ${issued.api_key_prefix} (scope: read only) ` +
        "cannot issue, list others or revoke keys",
    );
  });

  it("SDK: a key issued by the agent wallet's signature, without the full key, and revoked by prefix", async function () {
    const keyless = new NapClient({ baseUrl: base, maxRetries: 0 });
    const issued = await keyless.createScopedKeyBySignature(agentId, owner, { read_only: true, label: "signed" });
    expect(keyless.apiKey).to.equal(undefined);
    expect(issued).to.deep.include({ agent_id: agentId, label: "signed" });
    const reader = new NapClient({ baseUrl: base, apiKey: issued.api_key, maxRetries: 0 });
    expect((await reader.wallet()).agent_address).to.equal(agentAddress);
    const revoked = await full.revokeScopedKey(issued.api_key_prefix);
    expect(revoked).to.deep.include({ agent_id: agentId, revoked_api_key_prefix: issued.api_key_prefix });
    expect((await failure(reader.wallet())).status).to.equal(401);
  });

  it("CLI: nap keys create --save, then the saved scoped key's deposit past its limit exits 1 with the API's 403 message", async function () {
    const fullFile = path.join(folder, "credentials.json");
    const scopedFile = path.join(folder, "llm.json");
    writeCredentials(
      fullFile,
      {
        api_url: base,
        agent_id: agentId,
        agent_name: "scoped agent",
        api_key: full.apiKey!,
        api_key_prefix: full.apiKey!.slice(0, 12),
        owner_address: owner.address,
      },
      false,
    );
    const created = await nap([
      "keys",
      "create",
      "--operations",
      "vault.deposit",
      "--usdc-per-day",
      "3",
      "--expires-in",
      "1d",
      "--save",
      scopedFile,
      "--credentials",
      fullFile,
    ]);
    expect(created.code, created.stderr).to.equal(0);
    const prefix = /^scoped key (nap-[0-9A-Za-z]{8}):/.exec(created.stdout)![1];

    const first = await nap(["deposit", "moderate", "2", "--credentials", scopedFile]);
    expect(first.code, first.stderr).to.equal(0);
    const nonce = await txCount();
    const second = await nap(["deposit", "moderate", "2", "--credentials", scopedFile]);
    expect(second.code).to.equal(1);
    expect(second.stderr).to.equal(
      "depositing 2 USDC into moderate: sent, waiting for the transactions to be mined...\n" +
        `error 403: ${limitMessage(prefix, 3_000_000n, 2_000_000n, 2_000_000n)}\n`,
    );
    expect(await txCount()).to.equal(nonce);

    const json = await nap(["faucet", "--json", "--credentials", scopedFile]);
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stderr)).to.deep.equal({
      error: scopeMessage("faucet", prefix, "reads and vault.deposit, at most 3000000 USDC base units a day"),
      status: 403,
    });

    const list = await nap(["keys", "list", "--credentials", fullFile]);
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout).to.match(
      new RegExp(`^${prefix} {2}scoped {2}active {2}vault\\.deposit; at most 3 USDC a day {2}\\(created `, "m"),
    );
    const revoke = await nap(["keys", "revoke", prefix, "--credentials", fullFile]);
    expect(revoke.code, revoke.stderr).to.equal(0);
    expect((await nap(["status", "--credentials", scopedFile])).code).to.equal(1);
  });

  it("MCP: the server on a scoped key answers a call past its scope or its limit with the API's 403 message as the tool error", async function () {
    const issued = await full.createScopedKey({ operations: ["vault.deposit"], usdc_per_day: "1000000" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createNapMcpServer(new NapClient({ baseUrl: base, apiKey: issued.api_key, maxRetries: 0 })).connect(
      serverSide,
    );
    const client = new Client({ name: "nap-scoped-test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const wallet = (await client.callTool({ name: "nap_wallet", arguments: {} })) as ToolResult;
      expect(wallet.isError ?? false).to.equal(false);

      const faucet = (await client.callTool({ name: "nap_faucet", arguments: {} })) as ToolResult;
      const scope = scopeMessage(
        "faucet",
        issued.api_key_prefix,
        "reads and vault.deposit, at most 1000000 USDC base units a day",
      );
      expect(faucet.isError).to.equal(true);
      expect(faucet.content).to.deep.equal([{ type: "text", text: `403: ${scope}` }]);
      expect(faucet._meta).to.deep.equal({ "nap/error": { message: scope, status: 403 } });

      const nonce = await txCount();
      const deposit = (await client.callTool({
        name: "nap_deposit",
        arguments: { vault_id: "moderate", amount_usdc: 2 },
      })) as ToolResult;
      const limit = limitMessage(issued.api_key_prefix, 1_000_000n, 0n, 2_000_000n);
      expect(deposit.isError).to.equal(true);
      expect(deposit.content).to.deep.equal([{ type: "text", text: `403: ${limit}` }]);
      expect(await txCount()).to.equal(nonce);
    } finally {
      await client.close();
    }
  });
});
