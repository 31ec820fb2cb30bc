import { expect } from "chai";
import fc from "fast-check";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { readCredentials, writeCredentials, type Credentials } from "@nap/sdk/credentials";
import { durationSeconds, scopeOf, scopeText, usdcBaseUnits } from "../../packages/cli/src/keys";
import { runCli as run } from "./helpers/runCli";

/**
 * `nap keys` against a scripted server: the scope from the flags, the key printed once and never written over the
 * full key's credentials file unless asked, the owner's key never copied next to a scoped key.
 */

const SCOPED_KEY = `nap-Sc0pedK3${"x".repeat(24)}`;
const ISSUED = {
  success: true,
  agent_id: "5b1c1e54-1c1f-4a8e-9f55-0f1e2d3c4b5a",
  api_key: SCOPED_KEY,
  api_key_prefix: SCOPED_KEY.slice(0, 12),
  label: null,
  scope: { read_only: false, operations: ["vault.deposit", "vault.withdraw"], usdc_per_day: "100000000" },
  expires_at: "2026-12-03T00:00:00.000Z",
};

const REVOKED = {
  success: true,
  agent_id: ISSUED.agent_id,
  revoked_api_key_prefix: ISSUED.api_key_prefix,
  message: "Key revoked: it no longer works.",
};
const LISTED = {
  agent_id: ISSUED.agent_id,
  keys: [
    {
      api_key_prefix: "nap-Fu11K3yA",
      kind: "full",
      label: null,
      scope: null,
      state: "active",
      created_at: "2026-11-20T10:00:00.000Z",
      last_used_at: "2026-11-26T09:00:00.000Z",
      expires_at: null,
      ended_at: null,
    },
    {
      api_key_prefix: ISSUED.api_key_prefix,
      kind: "scoped",
      label: "llm",
      scope: ISSUED.scope,
      state: "active",
      created_at: "2026-11-26T09:30:00.000Z",
      last_used_at: null,
      expires_at: ISSUED.expires_at,
      ended_at: null,
    },
  ],
};

describe("CLI: nap keys", function () {
  let folder: string;
  let server: Server;
  let url: string;
  let requests: { line: string; key: string | undefined; body: unknown }[];
  let credentialsFile: string;
  const full: Omit<Credentials, "api_url"> = {
    agent_id: ISSUED.agent_id,
    agent_name: "keyed agent",
    api_key: `nap-Fu11K3yAA${"y".repeat(24)}`,
    api_key_prefix: "nap-Fu11K3yA",
    owner_address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    owner_private_key: `0x${"11".repeat(32)}`,
  };

  beforeEach(async function () {
    folder = mkdtempSync(path.join(tmpdir(), "nap-keys-"));
    requests = [];
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let text = "";
      request.on("data", (chunk: Buffer) => (text += chunk.toString()));
      request.on("end", () => {
        requests.push({
          line: `${request.method} ${request.url}`,
          key: request.headers["x-api-key"] as string | undefined,
          body: text ? JSON.parse(text) : undefined,
        });
        const answer = { POST: ISSUED, DELETE: REVOKED, GET: LISTED }[request.method as "POST" | "DELETE" | "GET"];
        response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json" });
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    credentialsFile = path.join(folder, "credentials.json");
    writeCredentials(credentialsFile, { api_url: url, ...full }, false);
  });

  afterEach(async function () {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(folder, { recursive: true, force: true });
  });

  it("creates a key with the full key, prints it once, and leaves the credentials file as it was", async function () {
    const before = readFileSync(credentialsFile, "utf8");
    const argv = ["keys", "create", "--operations", "vault.deposit,vault.withdraw", "--usdc-per-day", "100"];
    const result = await run([...argv, "--expires-in", "7d", "--credentials", credentialsFile]);
    expect(result.stderr.replace(/issuing a scoped key\.\.\.\n/, "")).to.equal("");
    expect(result.code).to.equal(0);
    expect(requests).to.deep.equal([
      {
        line: "POST /api/v1/agent/keys",
        key: full.api_key,
        body: {
          operations: ["vault.deposit", "vault.withdraw"],
          usdc_per_day: "100000000",
          expires_in_seconds: 604_800,
        },
      },
    ]);
    expect(result.stdout).to.equal(
      "scoped key nap-Sc0pedK3: vault.deposit, vault.withdraw; at most 100 USDC a day; expires 2026-12-03T00:00:00.000Z\n" +
        `API key (shown once, store it now): ${SCOPED_KEY}\n`,
    );
    expect(readFileSync(credentialsFile, "utf8")).to.equal(before);
  });

  it("--json prints the API's answer, the key in it", async function () {
    const result = await run(["keys", "create", "--read-only", "--json", "--credentials", credentialsFile]);
    expect(result.code).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal(ISSUED);
    expect(requests[0].body).to.deep.equal({ read_only: true });
  });

  it("attack: a scoped key saved over the full key's file loses the full key: refused without --force, before any request", async function () {
    const before = readFileSync(credentialsFile, "utf8");
    const result = await run([
      "keys",
      "create",
      "--read-only",
      "--save",
      credentialsFile,
      "--credentials",
      credentialsFile,
    ]);
    expect(result.code).to.equal(2);
    expect(result.stderr.split("\n")[0]).to.equal(
      `error: keys create: ${credentialsFile} holds the agent's full key; saving the scoped key there replaces it: pass --force to do so`,
    );
    expect(requests).to.deep.equal([]);
    expect(readFileSync(credentialsFile, "utf8")).to.equal(before);
  });

  it("--save FILE writes the scoped key to a file of its own, mode 0600, without the owner's key, and does not print it", async function () {
    const scopedFile = path.join(folder, "llm.json");
    const result = await run([
      "keys",
      "create",
      "--operations",
      "vault.deposit",
      "--save",
      scopedFile,
      "--credentials",
      credentialsFile,
    ]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.not.contain(SCOPED_KEY);
    expect(result.stdout).to.contain(`saved to ${scopedFile} (mode 0600); it is not shown again`);
    expect(statSync(scopedFile).mode & 0o777).to.equal(0o600);
    expect(readCredentials(scopedFile)).to.deep.equal({
      api_url: url,
      agent_id: full.agent_id,
      agent_name: full.agent_name,
      api_key: SCOPED_KEY,
      api_key_prefix: ISSUED.api_key_prefix,
      owner_address: full.owner_address,
    });
    expect(readCredentials(credentialsFile).api_key).to.equal(full.api_key);
    // A second save to the same file wants --force, like every credentials file: refused before a key is issued.
    const again = await run(["keys", "create", "--read-only", "--save", scopedFile, "--credentials", credentialsFile]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.equal(
      `error: ${scopedFile} exists (an agent is registered already); pass --force to replace it\n`,
    );
    expect(requests).to.have.length(1);
  });

  it("--save over the full key's file with --force replaces it: asked for, so done", async function () {
    const result = await run([
      "keys",
      "create",
      "--read-only",
      "--save",
      credentialsFile,
      "--force",
      "--credentials",
      credentialsFile,
    ]);
    expect(result.code, result.stderr).to.equal(0);
    expect(readCredentials(credentialsFile).api_key).to.equal(SCOPED_KEY);
    expect(existsSync(credentialsFile)).to.equal(true);
  });

  it("revokes by prefix with DELETE, and lists the keys with their scope and state, with the full key", async function () {
    const revoke = await run(["keys", "revoke", "nap-Sc0pedK3", "--credentials", credentialsFile]);
    expect(revoke.code, revoke.stderr).to.equal(0);
    expect(revoke.stdout).to.equal("revoked scoped key nap-Sc0pedK3: it no longer works\n");
    const list = await run(["keys", "list", "--credentials", credentialsFile]);
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout).to.equal(
      "nap-Fu11K3yA  full  active  (created 2026-11-20T10:00:00.000Z, last used 2026-11-26T09:00:00.000Z)\n" +
        'nap-Sc0pedK3  scoped "llm"  active  vault.deposit, vault.withdraw; at most 100 USDC a day  ' +
        "(created 2026-11-26T09:30:00.000Z, never used, expires 2026-12-03T00:00:00.000Z)\n",
    );
    expect(requests.map((r) => [r.line, r.key])).to.deep.equal([
      ["DELETE /api/v1/agent/keys/nap-Sc0pedK3", full.api_key],
      ["GET /api/v1/agent/keys", full.api_key],
    ]);
  });

  it("refuses malformed command lines with exit 2 and the reason, before any request", async function () {
    const cases: [string[], string][] = [
      [["keys", "create"], "keys create: give --read-only or --operations OP,OP (not both)"],
      [
        ["keys", "create", "--read-only", "--operations", "faucet"],
        "keys create: give --read-only or --operations OP,OP (not both)",
      ],
      [
        ["keys", "create", "--read-only", "--expires-in", "a week"],
        "keys create: --expires-in must be a duration such as 7d, 12h, 90m or 3600s",
      ],
      [
        ["keys", "create", "--operations", "faucet", "--usdc-per-day", "1.0000001"],
        "keys create: --usdc-per-day must be an amount of USDC with at most 6 decimals, such as 100",
      ],
      [["keys", "revoke"], "keys: list, create (--read-only | --operations OP,OP) or revoke PREFIX"],
      [["keys", "rotate"], "keys: list, create (--read-only | --operations OP,OP) or revoke PREFIX"],
    ];
    for (const [argv, message] of cases) {
      const result = await run([...argv, "--credentials", credentialsFile]);
      expect(result.code, argv.join(" ")).to.equal(2);
      expect(result.stderr.split("\n")[0]).to.equal(`error: ${message}`);
      expect(result.stderr).to.contain("Usage: nap <command>");
    }
    expect(requests).to.deep.equal([]);
  });

  it("reads durations and USDC amounts exactly", function () {
    expect([
      durationSeconds("7d"),
      durationSeconds("12h"),
      durationSeconds("90m"),
      durationSeconds("3600"),
    ]).to.deep.equal([604_800, 43_200, 5_400, 3_600]);
    expect([usdcBaseUnits("100"), usdcBaseUnits("2.5"), usdcBaseUnits("0.000001")]).to.deep.equal([
      "100000000",
      "2500000",
      "1",
    ]);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), (units) => {
        const whole = units / 1_000_000n;
        const fraction = (units % 1_000_000n).toString().padStart(6, "0");
        expect(usdcBaseUnits(`${whole}.${fraction}`)).to.equal(units.toString());
        const shown = scopeText({ read_only: false, operations: ["faucet"], usdc_per_day: units.toString() });
        const amount = /at most (\S+) USDC a day$/.exec(shown)![1];
        expect(usdcBaseUnits(amount)).to.equal(units.toString());
      }),
    );
    expect(scopeOf({ "read-only": true, label: "reader" })).to.deep.equal({ read_only: true, label: "reader" });
    expect(scopeText({ read_only: true, operations: [], usdc_per_day: null })).to.equal("read-only");
  });
});
