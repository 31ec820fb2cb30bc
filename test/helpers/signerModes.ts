import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encryptKeystoreJson, HDNodeWallet, Mnemonic } from "ethers";
import { AGENT_PATH_PREFIX, RELAYER_PATH } from "../../api/src/chain/wallets";
import { startRemoteSigner, type TestRemoteSigner } from "./remoteSigner";

/**
 * The service's environment for each way of holding the server wallets' keys, all from the same seed so that the
 * wallets' addresses are the same in every mode: the mnemonic in the environment, a keystore file with its passphrase
 * in a file, or a remote signer process holding the relayer's and the first agents' keys.
 */

export const SIGNER_MODES = ["mnemonic", "keystore", "remote"] as const;
export type SignerMode = (typeof SIGNER_MODES)[number];

export interface SignerSetup {
  /** The settings to give the service (no SERVER_WALLET_MNEMONIC outside the mnemonic mode). */
  readonly env: Record<string, string>;
  /** The remote signer, in the remote mode. */
  readonly signer?: TestRemoteSigner;
  close(): Promise<void>;
}

/** Fast scrypt for tests; operators' files use ethers' default cost. */
const TEST_SCRYPT = { scrypt: { N: 1 << 10 } };

export async function signerSetup(mode: SignerMode, mnemonic: string, agentKeys = 8): Promise<SignerSetup> {
  if (mode === "mnemonic") return { env: { SERVER_WALLET_MNEMONIC: mnemonic }, close: async () => undefined };
  if (mode === "keystore") {
    const dir = mkdtempSync(join(tmpdir(), "nap-signer-"));
    const wallet = HDNodeWallet.fromPhrase(mnemonic);
    const passphrase = `passphrase-${Math.random().toString(36).slice(2)}`;
    const json = await encryptKeystoreJson(
      {
        address: wallet.address,
        privateKey: wallet.privateKey,
        mnemonic: { path: wallet.path ?? undefined, locale: "en", entropy: Mnemonic.fromPhrase(mnemonic).entropy },
      },
      passphrase,
      TEST_SCRYPT,
    );
    writeFileSync(join(dir, "seed.json"), json, { mode: 0o600 });
    writeFileSync(join(dir, "passphrase"), `${passphrase}\n`, { mode: 0o600 });
    return {
      env: {
        SERVER_WALLET_KEYSTORE: join(dir, "seed.json"),
        SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE: join(dir, "passphrase"),
      },
      close: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const keys = [
    HDNodeWallet.fromPhrase(mnemonic, undefined, RELAYER_PATH),
    ...Array.from({ length: agentKeys }, (_, i) =>
      HDNodeWallet.fromPhrase(mnemonic, undefined, `${AGENT_PATH_PREFIX}/${i}`),
    ),
  ];
  const signer = await startRemoteSigner(keys);
  return { env: { REMOTE_SIGNER_URL: signer.url }, signer, close: () => signer.close() };
}
