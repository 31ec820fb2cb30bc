import { readFileSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { Wallet } from "ethers";

/**
 * The wallet of a key file the user holds: an encrypted keystore (Web3 Secret Storage, as geth, Foundry's cast and
 * ethers write it), or a private key as hex in a file only its owner can read. Nothing of it leaves this process:
 * it only signs.
 */

export class KeyFileError extends Error {}

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** The passphrase from the environment, else asked on the terminal without echo. */
async function passphrase(file: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.NAP_KEY_PASSPHRASE !== undefined) return env.NAP_KEY_PASSPHRASE;
  if (!process.stdin.isTTY) {
    throw new KeyFileError(`${file} is an encrypted keystore: set NAP_KEY_PASSPHRASE or run on a terminal`);
  }
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const prompt = createInterface({ input: process.stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve) => {
      prompt.question(`passphrase of ${file}: `, (answer) => {
        process.stderr.write("\n");
        resolve(answer);
      });
      muted = true;
    });
  } finally {
    prompt.close();
  }
}

export async function walletFromKeyFile(file: string, env: NodeJS.ProcessEnv = process.env): Promise<Wallet> {
  let text: string;
  let mode: number;
  try {
    text = readFileSync(file, "utf8").trim();
    mode = statSync(file).mode;
  } catch (error) {
    throw new KeyFileError(`cannot read the key file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  if (text.startsWith("{")) {
    try {
      return (await Wallet.fromEncryptedJson(text, await passphrase(file, env))) as Wallet;
    } catch (error) {
      if (error instanceof KeyFileError) throw error;
      const { shortMessage, message } = error as { shortMessage?: string; message: string };
      throw new KeyFileError(`cannot decrypt the keystore ${file}: ${shortMessage ?? message}`);
    }
  }
  // A key in clear text is the wallet itself: like ssh with a private key, refuse one that others can read.
  if ((mode & 0o077) !== 0) {
    throw new KeyFileError(
      `${file} holds a private key and others can read it (mode ${(mode & 0o777).toString(8)}): chmod 600 ${file}`,
    );
  }
  if (!PRIVATE_KEY.test(text)) {
    throw new KeyFileError(`${file} is neither a keystore JSON nor a private key (64 hex characters)`);
  }
  return new Wallet(text.startsWith("0x") ? text : `0x${text}`);
}
