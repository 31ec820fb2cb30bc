import { expect } from "chai";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encryptKeystoreJson, Wallet } from "ethers";
import { main, USAGE } from "../../packages/cli/src/main";
import { Output } from "../../packages/cli/src/output";
import { walletFromKeyFile } from "../../packages/cli/src/wallet/keyFile";
import { fakeService, ROUTER, VAULT, type FakeService } from "../sdk/helpers/signedWritesService";

/**
 * `nap wallet`: the key file a user holds (a raw key only its owner reads, or an encrypted keystore), the command
 * line's mistakes, and a service that prepares altered typed data. The runs against the real service are in
 * test/e2e/sdk-signed-writes.test.ts.
 */

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

async function nap(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = new Output(
    argv.includes("--json"),
    { write: (chunk: string) => ((stdout += chunk), true) } as unknown as NodeJS.WritableStream,
    { write: (chunk: string) => ((stderr += chunk), true) } as unknown as NodeJS.WritableStream,
  );
  const code = await main(argv, out);
  return { code, stdout, stderr };
}

describe("CLI: nap wallet, signed writes from a key file", function () {
  const dir = mkdtempSync(path.join(tmpdir(), "nap-wallet-cli-"));
  let service: FakeService | undefined;
  after(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  const keyFile = (name: string, text: string, mode: number) => {
    const file = path.join(dir, name);
    writeFileSync(file, text, { mode });
    chmodSync(file, mode);
    return file;
  };

  it("the usage lists the wallet commands and their options", function () {
    for (const line of [
      "  wallet deposit VAULT AMOUNT_USDC --key-file FILE [--receiver ADDRESS] [--min-shares RAW]",
      "  wallet withdraw VAULT --shares RAW --key-file FILE [--receiver ADDRESS] [--min-assets RAW]",
      "  wallet relay RELAY_ID              a signed write's relay: submitted, confirmed (with shares or assets) or failed",
      "Wallet options: --key-file FILE (default $NAP_KEY_FILE): an encrypted keystore JSON, its passphrase from",
    ]) {
      expect(USAGE.split("\n")).to.include(line);
    }
  });

  it("key file: a raw key readable by its owner alone is the wallet, with or without 0x; others' access is refused", async function () {
    const address = new Wallet(KEY).address;
    expect((await walletFromKeyFile(keyFile("a.key", `${KEY}\n`, 0o600))).address).to.equal(address);
    expect((await walletFromKeyFile(keyFile("b.key", KEY.slice(2), 0o400))).address).to.equal(address);
    const loose = keyFile("c.key", KEY, 0o640);
    expect(((await walletFromKeyFile(loose).catch((e: unknown) => e)) as Error).message).to.equal(
      `${loose} holds a private key and others can read it (mode 640): chmod 600 ${loose}`,
    );
    const junk = keyFile("d.key", "not a key", 0o600);
    expect(((await walletFromKeyFile(junk).catch((e: unknown) => e)) as Error).message).to.equal(
      `${junk} is neither a keystore JSON nor a private key (64 hex characters)`,
    );
    const missing = path.join(dir, "none.key");
    expect(((await walletFromKeyFile(missing).catch((e: unknown) => e)) as Error).message).to.equal(
      `cannot read the key file ${missing}: ENOENT`,
    );
  });

  it("key file: a keystore asks for NAP_KEY_PASSPHRASE when no terminal can ask", async function () {
    const account = { address: new Wallet(KEY).address, privateKey: KEY };
    const store = keyFile("e.json", await encryptKeystoreJson(account, "pass", { scrypt: { N: 1024 } }), 0o644);
    const refused = (await walletFromKeyFile(store, {}).catch((e: unknown) => e)) as Error;
    expect(refused.message).to.equal(`${store} is an encrypted keystore: set NAP_KEY_PASSPHRASE or run on a terminal`);
    const opened = await walletFromKeyFile(store, { NAP_KEY_PASSPHRASE: "pass" });
    expect(opened.address).to.equal(new Wallet(KEY).address);
  });

  it("command line mistakes exit 2 with the usage, before any request", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000) });
    const file = keyFile("f.key", KEY, 0o600);
    const cases: [string[], string][] = [
      [["wallet", "deposit", VAULT, "1"], "wallet deposit: --key-file FILE (or $NAP_KEY_FILE) is required"],
      [
        ["wallet", "deposit", VAULT, "1.0000001", "--key-file", file],
        "wallet deposit: AMOUNT_USDC is required (USDC, at most 6 decimals)",
      ],
      [["wallet", "withdraw", VAULT, "--key-file", file], "--shares RAW is required (base units, a whole number)"],
      [
        ["wallet", "claim", VAULT, "--shares", "1.5", "--key-file", file],
        "--shares must be a whole number of base units, got 1.5",
      ],
      [
        ["wallet", "claim", VAULT, "5", "--key-file", file],
        "wallet claim: unexpected 5 (amounts of shares go in --shares RAW)",
      ],
      [["wallet", "send", VAULT], "wallet: one of deposit, withdraw, redeem-request, claim, cancel, relay"],
    ];
    for (const [argv, message] of cases) {
      const run = await nap([...argv, "--api", service.url]);
      expect(run.code, argv.join(" ")).to.equal(2);
      expect(run.stderr.split("\n")[0]).to.equal(`error: ${message}`);
    }
    expect(service.requests).to.deep.equal([]);
  });

  it("altered typed data: a service that prepares a receiver of its own gets nothing signed; exit 1 with the difference", async function () {
    const attacker = "0x000000000000000000000000000000000000dEaD";
    service = await fakeService({
      now: Math.floor(Date.now() / 1000),
      alter: (prepared) => Object.assign(prepared.intent.message, { receiver: attacker }),
    });
    const file = keyFile("g.key", KEY, 0o600);
    const run = await nap(["wallet", "deposit", VAULT, "25", "--key-file", file, "--api", service.url]);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include(
      `error: GET /v1/vaults/${VAULT}/deposit/typed-data: the service's typed data does not match the request; ` +
        `nothing was signed: intent.message.receiver is ${attacker}, asked ${new Wallet(KEY).address}\n`,
    );
    expect(service.submitted()).to.deep.equal([]);
  });

  it("--no-wait answers the relay to follow; --router pins the router the typed data must name", async function () {
    service = await fakeService({ now: Math.floor(Date.now() / 1000) });
    const file = keyFile("h.key", KEY, 0o600);
    const sent = await nap([
      "wallet",
      "cancel",
      VAULT,
      "--key-file",
      file,
      "--no-wait",
      "--router",
      ROUTER,
      "--api",
      service.url,
    ]);
    expect(sent.code, sent.stderr).to.equal(0);
    expect(sent.stdout).to.equal(
      `sent by signature: relay 0x${"ab".repeat(32)}, tx 0x${"ef".repeat(32)} (follow: nap wallet relay 0x${"ab".repeat(32)})\n`,
    );
    const other = Wallet.createRandom().address;
    const pinned = await nap(["wallet", "cancel", VAULT, "--key-file", file, "--router", other, "--api", service.url]);
    expect(pinned.code).to.equal(1);
    expect(pinned.stderr).to.include(`nothing was signed: router is ${ROUTER}, asked ${other}`);
  });
});
