import { expect } from "chai";
import fc from "fast-check";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { readCredentials, writeCredentials, type Credentials } from "@nap/sdk/credentials";
import { safeJson, safeText } from "../../packages/cli/src/safeText";
import { runCli as run } from "./helpers/runCli";

/**
 * The CLI as the client of a hostile or broken server, and the owner of a credentials file: escape sequences in
 * what a server says, a credentials file others can read, a server that never answers.
 */

/** Controls a terminal may act on: C0 but newline and tab, DEL, C1, and the bidirectional formatting characters. */
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(`${request.method} ${request.url}`);
    handler(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
};

/** A hyperlink to a phishing page around the text, then a screen clear and a window title. */
const HOSTILE_NAME =
  "\x1b]8;;https://phish.example/\x07Safe Vault\x1b]8;;\x07\x1b[2J\x1b[H\x1b]0;pwned\x1b\\\x9b31m\u202e";

const VAULT = {
  name: HOSTILE_NAME,
  address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  total_assets: "12.5",
  asset: "USDC",
  apy: 4.2,
  status: "active\r\x1b[1Afaked line",
};

describe("CLI: against a hostile or broken server", function () {
  let folder: string;
  beforeEach(function () {
    folder = mkdtempSync(path.join(tmpdir(), "nap-cli-"));
  });
  afterEach(async function () {
    rmSync(folder, { recursive: true, force: true });
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe("safeText", function () {
    it("property: its output never holds ESC, another C0 control but newline and tab, DEL, C1 or a bidi control", function () {
      const controls = fc.constantFrom(
        ..."\x1b\x07\x00\x08\r\x0b\x0c\x7f\x9b\x9c\x9d\x90\x85\u202e\u2066[]\\;0123mP_^X".split(""),
      );
      const hostile = fc.string({ unit: fc.oneof(controls, fc.constantFrom("a", " ", "\n", "\t", "é", "🙂")) });
      fc.assert(
        fc.property(fc.oneof(hostile, fc.string({ unit: "binary" })), (text) => {
          const safe = safeText(text);
          return !TERMINAL_CONTROL.test(safe) && safeText(safe) === safe;
        }),
        { numRuns: 1_000 },
      );
    });

    it("property: printable text (newlines and tabs included) passes unchanged", function () {
      const printable = fc
        .string({ unit: "binary" })
        .map((text) => text.replace(new RegExp(TERMINAL_CONTROL.source, "g"), ""));
      fc.assert(
        fc.property(printable, (text) => safeText(text) === text),
        { numRuns: 2_000 },
      );
    });

    it("removes whole sequences: CSI, OSC to BEL or ST, a two-byte ESC, and their 8-bit forms", function () {
      expect(safeText(HOSTILE_NAME)).to.equal("Safe Vault");
      expect(safeText("a\x1b[38;5;196mred\x1b[0m b")).to.equal("ared b");
      expect(safeText("reset\x1bc here\x1b(B")).to.equal("reset here");
      expect(safeText("\x9d8;;http://x\x9clink")).to.equal("link");
      expect(safeText("keeps\tthe\nlines")).to.equal("keeps\tthe\nlines");
      expect(safeText("a lone ESC\x1b")).to.equal("a lone ESC");
    });

    it("escape-sequence flood: 1 MiB of unterminated OSC and DCS introducers is cleaned in linear time", function () {
      this.timeout(5_000);
      for (const unit of ["\x1b]", "\x90", "\x9d0;", "\x9b0", "\x1b[0"]) {
        const flood = unit.repeat(Math.ceil((1024 * 1024) / unit.length));
        const started = Date.now();
        const safe = safeText(flood);
        expect(Date.now() - started, JSON.stringify(unit)).to.be.below(1_000);
        expect(safe).not.to.match(TERMINAL_CONTROL);
      }
    });

    it("safeJson escapes what JSON.stringify leaves raw, and parses back to the same value", function () {
      const value = { name: HOSTILE_NAME };
      const text = safeJson(value);
      expect(text).not.to.match(TERMINAL_CONTROL);
      expect(JSON.parse(text)).to.deep.equal(value);
    });
  });

  it("escape sequences: a vault name and status with OSC hyperlinks, screen clears and bidi overrides are printed without them", async function () {
    const api = await serve((_request, response) => json(response, 200, { vaults: [VAULT], total: 1 }));
    const lines = await run(["vaults", "--api", api.url]);
    expect(lines.code).to.equal(0);
    expect(lines.stdout).to.equal(
      "Safe Vault (0x5FbDB2315678afecb367f032d93F642f64180aa3): 12.5 USDC, APY 4.2%, activefaked line\n",
    );
    const asJson = await run(["vaults", "--api", api.url, "--json"]);
    expect(asJson.stdout).not.to.match(TERMINAL_CONTROL);
    expect(JSON.parse(asJson.stdout)).to.deep.equal({ vaults: [VAULT], total: 1 });
  });

  it("escape sequences: a server's error message that retitles the window and forges a line is printed as text", async function () {
    const api = await serve((_request, response) =>
      json(response, 400, { error: "bad\x1b]0;pwned\x07 request\x1b[31m\r\nerror: forged\x1b[0m" }),
    );
    const failed = await run(["vaults", "--api", api.url]);
    expect(failed.code).to.equal(1);
    expect(failed.stdout).to.equal("");
    expect(failed.stderr).to.equal("error 400: bad request\nerror: forged\n");
    const asJson = await run(["vaults", "--api", api.url, "--json"]);
    expect(asJson.stderr).not.to.match(TERMINAL_CONTROL);
    expect(JSON.parse(asJson.stderr)).to.deep.equal({
      error: "bad\x1b]0;pwned\x07 request\x1b[31m\r\nerror: forged\x1b[0m",
      status: 400,
    });
  });

  describe("the credentials file", function () {
    const credentials = (apiUrl: string): Credentials => ({
      api_url: apiUrl,
      agent_id: "agent-1",
      agent_name: "agent",
      api_key: "nap-secret-key",
      api_key_prefix: "nap-secr",
      owner_address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      owner_private_key: `0x${"11".repeat(32)}`,
    });
    const wallet = { configured: false, message: "server wallets are not configured" };

    it("loose credentials file: one at mode 0644 is refused before any request, naming the file, its mode and the chmod that fixes it", async function () {
      const api = await serve((_request, response) => json(response, 200, wallet));
      const file = path.join(folder, "credentials.json");
      writeCredentials(file, credentials(api.url), false);
      chmodSync(file, 0o644);
      const refused = await run(["status", "--credentials", file]);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.equal(
        `error: ${file} has mode 0644: group or others can access the API key and owner key it holds; ` +
          `run \`chmod 600 ${file}\` (or pass --insecure-credentials to read it anyway)\n`,
      );
      // Commands that need no agent read the file's URL only: refused too, not silently sent elsewhere.
      const publicRead = await run(["vaults", "--credentials", file]);
      expect(publicRead.code).to.equal(1);
      expect(publicRead.stderr).to.match(/has mode 0644/);
      chmodSync(file, 0o640);
      expect((await run(["status", "--credentials", file])).stderr).to.match(/has mode 0640: /);
      expect(api.paths).to.deep.equal([]);

      chmodSync(file, 0o600);
      const fixed = await run(["status", "--credentials", file]);
      expect(fixed).to.deep.equal({ code: 0, stdout: "server wallets are not configured\n", stderr: "" });
      expect(api.paths).to.deep.equal(["GET /api/v1/agent/wallet"]);
    });

    it("loose credentials file: --insecure-credentials or NAP_INSECURE_CREDENTIALS=1 reads it with a loud warning", async function () {
      const api = await serve((_request, response) => json(response, 200, wallet));
      const file = path.join(folder, "credentials.json");
      writeCredentials(file, credentials(api.url), false);
      chmodSync(file, 0o604);
      const warning =
        `WARNING: ${file} has mode 0604: group or others can access the API key and owner key it holds; ` +
        `run \`chmod 600 ${file}\`\n`;
      const flagged = await run(["status", "--credentials", file, "--insecure-credentials"]);
      expect(flagged).to.deep.equal({ code: 0, stdout: "server wallets are not configured\n", stderr: warning });
      const previous = process.env.NAP_INSECURE_CREDENTIALS;
      process.env.NAP_INSECURE_CREDENTIALS = "1";
      try {
        const warnings: string[] = [];
        expect(readCredentials(file, { warn: (message) => warnings.push(message) }).api_key).to.equal("nap-secret-key");
        expect(warnings).to.deep.equal([warning.trimEnd()]);
      } finally {
        if (previous === undefined) delete process.env.NAP_INSECURE_CREDENTIALS;
        else process.env.NAP_INSECURE_CREDENTIALS = previous;
      }
    });

    it("is written 0600 in a folder created 0700, also when it replaces a file that was 0644", function () {
      const file = path.join(folder, "nested", ".nap", "credentials.json");
      writeCredentials(file, credentials("http://127.0.0.1:1"), false);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(statSync(path.dirname(file)).mode & 0o777).to.equal(0o700);
      writeFileSync(file, "{}", { mode: 0o644 });
      chmodSync(file, 0o644);
      writeCredentials(file, credentials("http://127.0.0.1:2"), true);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(readCredentials(file).api_url).to.equal("http://127.0.0.1:2");
    });
  });

  it("hung server: nap vaults --timeout 0.3 exits 1 after 0.3 s with the path and the timeout (NAP_TIMEOUT_SECONDS too)", async function () {
    this.timeout(10_000);
    const api = await serve(() => undefined);
    const started = Date.now();
    const flagged = await run(["vaults", "--api", api.url, "--timeout", "0.3"]);
    expect(Date.now() - started).to.be.within(300, 2_000);
    expect(flagged).to.deep.equal({
      code: 1,
      stdout: "",
      stderr: "error: GET /api/v1/vaults: no complete answer within 300 ms (timeoutMs)\n",
    });
    const previous = process.env.NAP_TIMEOUT_SECONDS;
    process.env.NAP_TIMEOUT_SECONDS = "0.2";
    try {
      expect((await run(["vaults", "--api", api.url])).stderr).to.equal(
        "error: GET /api/v1/vaults: no complete answer within 200 ms (timeoutMs)\n",
      );
    } finally {
      if (previous === undefined) delete process.env.NAP_TIMEOUT_SECONDS;
      else process.env.NAP_TIMEOUT_SECONDS = previous;
    }
  });

  it("oversized answer: nap vaults --max-response-bytes 100 stops reading there and says so", async function () {
    const api = await serve((_request, response) => json(response, 200, { vaults: [VAULT, VAULT], total: 2 }));
    const capped = await run(["vaults", "--api", api.url, "--max-response-bytes", "100"]);
    expect(capped).to.deep.equal({
      code: 1,
      stdout: "",
      stderr:
        "error: GET /api/v1/vaults: the answer is larger than 100 bytes (maxResponseBytes); reading stopped there\n",
    });
  });
});
