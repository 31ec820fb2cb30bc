import { readFile } from "node:fs/promises";
import { decryptKeystoreJson, isKeystoreJson, Mnemonic } from "ethers";

/**
 * The keystore mode's secret at rest: one Web3 Secret Storage file (SERVER_WALLET_KEYSTORE) that holds the HD seed's
 * mnemonic encrypted with the passphrase (the `x-ethers` part ethers writes for a mnemonic wallet), so that every
 * agent's wallet is still derived from it and a new agent needs no new file. Messages never carry the passphrase,
 * the file's contents or a key.
 */

/** Thrown at start-up when the keystore cannot be read, decrypted or holds no seed. */
export class KeystoreUnlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeystoreUnlockError";
  }
}

/** Reads and decrypts the keystore; resolves to the BIP-39 phrase of its seed. */
export async function unlockKeystore(file: string, passphrase: string): Promise<string> {
  let json: string;
  try {
    json = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new KeystoreUnlockError(`SERVER_WALLET_KEYSTORE: cannot read ${file} (${code})`);
  }
  if (!isKeystoreJson(json)) {
    throw new KeystoreUnlockError(`SERVER_WALLET_KEYSTORE: ${file} is not a Web3 Secret Storage (version 3) keystore`);
  }
  let account;
  try {
    account = await decryptKeystoreJson(json, passphrase);
  } catch {
    throw new KeystoreUnlockError(
      `SERVER_WALLET_KEYSTORE: cannot decrypt ${file} with the passphrase given ` +
        "(SERVER_WALLET_KEYSTORE_PASSPHRASE or SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE): wrong passphrase or damaged file",
    );
  }
  if (!account.mnemonic?.entropy) {
    throw new KeystoreUnlockError(
      `SERVER_WALLET_KEYSTORE: ${file} holds a single key, not an HD seed: agents' wallets cannot be derived from it ` +
        "(write it from a mnemonic wallet, docs/operations.md)",
    );
  }
  return Mnemonic.fromEntropy(account.mnemonic.entropy).phrase;
}
