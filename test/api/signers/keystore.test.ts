import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { inspect } from "node:util";
import { encryptKeystoreJson, HDNodeWallet, Mnemonic, Wallet } from "ethers";
import { KeystoreUnlockError } from "../../../api/src/chain/signers/keystore";
import { ServerWallets, ServerWalletsNotOpenError, type Eip1559Transaction } from "../../../api/src/chain/wallets";
import { ConfigError, loadConfig } from "../../../api/src/config";
import { createLogger } from "../../../api/src/logger";
import { DEV_MNEMONIC } from "../tx/helpers";
import { startTestApp } from "../helpers/app";

/**
 * The keystore mode (SERVER_WALLET_KEYSTORE): one Web3 Secret Storage file holding the HD seed encrypted, unlocked at
 * start-up with a passphrase setting; the service's environment holds no mnemonic.
 */

const PASSPHRASE = "correct horse battery staple 7d1f";
/** Fast scrypt for tests; operators' files use ethers' default cost. */
const TEST_SCRYPT = { scrypt: { N: 1 << 10 } };

/** Writes a keystore of `phrase`'s wallet (its seed inside) to `dir`; returns its path. */
async function writeKeystore(dir: string, phrase: string, passphrase = PASSPHRASE, name = "seed.json") {
  const wallet = HDNodeWallet.fromPhrase(phrase);
  const json = await encryptKeystoreJson(
    {
      address: wallet.address,
      privateKey: wallet.privateKey,
      mnemonic: { path: wallet.path ?? undefined, locale: "en", entropy: Mnemonic.fromPhrase(phrase).entropy },
    },
    passphrase,
    TEST_SCRYPT,
  );
  const file = join(dir, name);
  writeFileSync(file, json);
  return file;
}

const TX: Eip1559Transaction = {
  chainId: 31337n,
  nonce: 7,
  to: "0x00000000000000000000000000000000000000b0",
  data: "0xdeadbeef",
  value: 5n,
  gasLimit: 60_000n,
  maxFeePerGas: 2_000_000_000n,
  maxPriorityFeePerGas: 1_000_000n,
};

describe("Signer boundary: the keystore mode (Web3 Secret Storage, unlocked at start-up)", () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "nap-keystore-"));
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("unlocks the keystore at start-up and signs byte for byte as the same seed given as a mnemonic", async () => {
    const file = await writeKeystore(dir, DEV_MNEMONIC);
    const wallets = new ServerWallets({ mode: "keystore", file, passphrase: PASSPHRASE });
    expect(wallets.configured).to.equal(true);
    expect(wallets.mode).to.equal("keystore");
    expect(() => wallets.agentAddress(0))
      .to.throw(ServerWalletsNotOpenError)
      .with.property("message", "server wallets are not unlocked yet: the service is starting");
    await wallets.open(31337);
    const fromMnemonic = new ServerWallets(DEV_MNEMONIC);
    expect(wallets.relayerAddress()).to.equal(fromMnemonic.relayerAddress());
    for (const index of [0, 1, 19, 4096])
      expect(wallets.agentAddress(index)).to.equal(fromMnemonic.agentAddress(index));
    const signed = await wallets.signTransaction({ kind: "agent", index: 3 }, TX);
    expect(signed).to.equal(await fromMnemonic.signTransaction({ kind: "agent", index: 3 }, TX));
    expect(wallets.signsRemotely).to.equal(false);
  });

  it("never prints the passphrase, the seed or a key through JSON, inspect or pino, before and after unlocking", async () => {
    const file = await writeKeystore(dir, DEV_MNEMONIC, PASSPHRASE, "printing.json");
    const wallets = new ServerWallets({ mode: "keystore", file, passphrase: PASSPHRASE });
    const secrets = [
      PASSPHRASE,
      Mnemonic.fromPhrase(DEV_MNEMONIC).computeSeed().slice(2),
      HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, "m/44'/60'/1'/0/0").privateKey.slice(2),
      ...DEV_MNEMONIC.split(" ").filter((w) => w.length > 5),
    ];
    const printed = () => {
      let logged = "";
      const sink = new Writable({ write: (chunk, _enc, done) => ((logged += String(chunk)), done()) });
      createLogger("info", sink).info({ wallets }, "wallets");
      return [JSON.stringify(wallets), inspect(wallets, { showHidden: true, depth: 10 }), `${wallets}`, logged];
    };
    const before = printed();
    await wallets.open(31337);
    wallets.agentAddress(0);
    for (const output of [...before, ...printed()]) {
      for (const secret of secrets) expect(output.toLowerCase()).to.not.contain(secret.toLowerCase());
    }
    expect(JSON.parse(JSON.stringify(wallets))).to.deep.equal({ configured: true });
  });

  it("a wrong passphrase refuses start-up with a clear message, no key or passphrase in the message or the logs", async () => {
    const file = await writeKeystore(dir, DEV_MNEMONIC, PASSPHRASE, "wrong-passphrase.json");
    const wrong = "not the passphrase 0000";
    let logged = "";
    const sink = new Writable({ write: (chunk, _enc, done) => ((logged += String(chunk)), done()) });
    const api = await startTestApp({
      env: { SERVER_WALLET_KEYSTORE: file, SERVER_WALLET_KEYSTORE_PASSPHRASE: wrong, LOG_LEVEL: "trace" },
      extra: { logger: createLogger("trace", sink) },
    });
    try {
      const error = await api.app.useCases.start().then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error).to.be.instanceOf(KeystoreUnlockError);
      expect(error?.message).to.equal(
        `SERVER_WALLET_KEYSTORE: cannot decrypt ${file} with the passphrase given ` +
          "(SERVER_WALLET_KEYSTORE_PASSPHRASE or SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE): wrong passphrase or damaged file",
      );
      const seed = Mnemonic.fromPhrase(DEV_MNEMONIC).computeSeed().slice(2);
      const secrets = [wrong, PASSPHRASE, seed, ...DEV_MNEMONIC.split(" ").filter((w) => w.length > 5)];
      for (const output of [error?.message ?? "", logged]) {
        for (const secret of secrets) expect(output.toLowerCase()).to.not.contain(secret.toLowerCase());
      }
      // The wallets stay locked: nothing can be signed.
      expect(() => api.app.useCases.wallets.wallets.agentAddress(0)).to.throw(ServerWalletsNotOpenError);
    } finally {
      await api.close();
    }
  });

  it("refuses a keystore of a single key (no HD seed to derive agents from)", async () => {
    const single = Wallet.createRandom();
    const file = join(dir, "single.json");
    writeFileSync(
      file,
      await encryptKeystoreJson({ address: single.address, privateKey: single.privateKey }, PASSPHRASE, TEST_SCRYPT),
    );
    const wallets = new ServerWallets({ mode: "keystore", file, passphrase: PASSPHRASE });
    const error = await wallets.open(31337).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.equal(
      `SERVER_WALLET_KEYSTORE: ${file} holds a single key, not an HD seed: agents' wallets cannot be derived from it ` +
        "(write it from a mnemonic wallet, docs/operations.md)",
    );
    expect(error?.message.toLowerCase()).to.not.contain(single.privateKey.slice(2).toLowerCase());
  });

  it("refuses a missing file and a file that is not a keystore, naming the setting", async () => {
    const missing = join(dir, "absent.json");
    const notKeystore = join(dir, "not-keystore.json");
    writeFileSync(notKeystore, JSON.stringify({ hello: "world" }));
    const messages = await Promise.all(
      [missing, notKeystore].map((file) =>
        new ServerWallets({ mode: "keystore", file, passphrase: PASSPHRASE }).open(31337).then(
          () => "",
          (e: unknown) => (e as Error).message,
        ),
      ),
    );
    expect(messages).to.deep.equal([
      `SERVER_WALLET_KEYSTORE: cannot read ${missing} (ENOENT)`,
      `SERVER_WALLET_KEYSTORE: ${notKeystore} is not a Web3 Secret Storage (version 3) keystore`,
    ]);
  });

  describe("settings", () => {
    it("reads the passphrase from SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE (one trailing line break dropped)", () => {
      const passphraseFile = join(dir, "passphrase.txt");
      writeFileSync(passphraseFile, `${PASSPHRASE}\n`);
      const config = loadConfig({
        SERVER_WALLET_KEYSTORE: "/secrets/seed.json",
        SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE: passphraseFile,
      });
      expect(config.serverWalletKeystore).to.deep.equal({ file: "/secrets/seed.json", passphrase: PASSPHRASE });
      expect(config.serverWalletMnemonic).to.equal(undefined);
      expect(config.remoteSignerUrl).to.equal(undefined);
    });

    it("takes REMOTE_SIGNER_URL (http or https only)", () => {
      expect(loadConfig({ REMOTE_SIGNER_URL: "http://127.0.0.1:9000" }).remoteSignerUrl).to.equal(
        "http://127.0.0.1:9000",
      );
      expect(() => loadConfig({ REMOTE_SIGNER_URL: "ftp://signer" })).to.throw(
        ConfigError,
        "REMOTE_SIGNER_URL: must use http or https",
      );
    });

    for (const [env, message] of [
      [
        { SERVER_WALLET_MNEMONIC: DEV_MNEMONIC, REMOTE_SIGNER_URL: "http://127.0.0.1:9000" },
        "Invalid configuration: set only one of SERVER_WALLET_MNEMONIC, SERVER_WALLET_KEYSTORE, REMOTE_SIGNER_URL",
      ],
      [
        { SERVER_WALLET_KEYSTORE: "/k.json", SERVER_WALLET_KEYSTORE_PASSPHRASE: "p", REMOTE_SIGNER_URL: "http://s" },
        "Invalid configuration: set only one of SERVER_WALLET_MNEMONIC, SERVER_WALLET_KEYSTORE, REMOTE_SIGNER_URL",
      ],
      [
        { SERVER_WALLET_KEYSTORE: "/k.json" },
        "Invalid configuration: SERVER_WALLET_KEYSTORE needs exactly one of SERVER_WALLET_KEYSTORE_PASSPHRASE and " +
          "SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE",
      ],
      [
        { SERVER_WALLET_KEYSTORE_PASSPHRASE: "secret-passphrase" },
        "Invalid configuration: SERVER_WALLET_KEYSTORE_PASSPHRASE needs SERVER_WALLET_KEYSTORE",
      ],
      [
        { SERVER_WALLET_KEYSTORE: "/k.json", SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE: "/nonexistent/passphrase" },
        "Invalid configuration: SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE: cannot read /nonexistent/passphrase (ENOENT)",
      ],
    ] as const) {
      it(`refuses ${Object.keys(env).join(" + ")}: ${message.slice(23, 80)}`, () => {
        let error: Error | null = null;
        try {
          loadConfig(env);
        } catch (e) {
          error = e as Error;
        }
        expect(error).to.be.instanceOf(ConfigError);
        expect(error?.message).to.equal(message);
        expect(error?.message).to.not.contain("secret-passphrase");
      });
    }
  });
});
