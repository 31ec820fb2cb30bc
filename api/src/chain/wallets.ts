import { inspect } from "node:util";
import type { Provider } from "ethers";
import type { DerivedSigner } from "./signers/derived";
import { HdSigner } from "./signers/hd";
import { unlockKeystore } from "./signers/keystore";
import { refusePublicAccounts, refusePublicPhrase } from "./signers/publicKeys";
import { RemoteSigner } from "./signers/remote";
import {
  agentWallet,
  ServerWalletsNotConfiguredError,
  type Eip1559Transaction,
  type SignerBackend,
  type WalletRef,
} from "./signers/refs";

export { DerivedSigner } from "./signers/derived";
export {
  AGENT_PATH_PREFIX,
  agentWallet,
  InvalidServerWalletMnemonicError,
  MAX_AGENT_INDEX,
  RELAYER_PATH,
  ServerWalletsNotConfiguredError,
  walletLabel,
  walletPath,
  type Eip1559Transaction,
  type SignerBackend,
  type WalletRef,
} from "./signers/refs";

/**
 * Server-side wallets: the relayer (faucet drips, ERC-7540 fulfilment, badge minting, screening) and one wallet per
 * agent (the index stored with the agent). Who signs is chosen by the settings (docs/operations.md, "Server
 * wallets and the signer"):
 * - mnemonic (SERVER_WALLET_MNEMONIC): derived in this process, relayer m/44'/60'/0'/0/0, agent i m/44'/60'/1'/0/i;
 * - keystore (SERVER_WALLET_KEYSTORE + passphrase): the same derivation from a seed kept encrypted at rest;
 * - remote (REMOTE_SIGNER_URL): a JSON-RPC signer holds the keys; this process holds none.
 *
 * Key material lives only in JavaScript private fields (#...), which JSON.stringify, util.inspect and pino never
 * read, and every object handed out prints as its address and path only. Nothing here writes a key anywhere.
 */

/** How the server wallets sign, from the settings. */
export type ServerWalletSettings =
  | { readonly mode: "mnemonic"; readonly mnemonic: string }
  | { readonly mode: "keystore"; readonly file: string; readonly passphrase: string }
  | { readonly mode: "remote"; readonly url: string; readonly timeoutMs?: number };

export type ServerWalletMode = "none" | ServerWalletSettings["mode"];

/** Thrown when a keystore or remote signer is used before `open` (start-up) unlocked or listed it (503). */
export class ServerWalletsNotOpenError extends ServerWalletsNotConfiguredError {
  override readonly message = "server wallets are not unlocked yet: the service is starting";
}

/**
 * The service's wallets. Construct once at start-up; `configured` is false without any signer setting, and then every
 * request for an address or signer throws ServerWalletsNotConfiguredError. A keystore or remote signer answers once
 * `open` has unlocked or listed it; a mnemonic answers at once.
 */
export class ServerWallets {
  readonly configured: boolean;
  readonly mode: ServerWalletMode;
  #settings: ServerWalletSettings | null;
  #backend: SignerBackend | null = null;

  /** @param settings a BIP-39 phrase (mnemonic mode), the settings of a mode, or undefined/empty for none. */
  constructor(settings: ServerWalletSettings | string | undefined | null) {
    const given = typeof settings === "string" ? mnemonicSettings(settings) : (settings ?? null);
    this.configured = given !== null;
    this.mode = given?.mode ?? "none";
    this.#settings = given;
    if (given?.mode === "mnemonic") {
      this.#backend = HdSigner.fromPhrase(given.mnemonic);
    }
  }

  /**
   * Start-up: unlocks the keystore or lists the remote signer's accounts, then refuses published development keys
   * when the chain is not a local one. The passphrase and phrase are dropped once used.
   */
  async open(chainId: number): Promise<void> {
    const settings = this.#settings;
    this.#settings = null;
    if (settings === null) return;
    if (settings.mode === "mnemonic") {
      refusePublicPhrase(settings.mnemonic, chainId);
    } else if (settings.mode === "keystore") {
      const phrase = await unlockKeystore(settings.file, settings.passphrase);
      refusePublicPhrase(phrase, chainId);
      this.#backend = HdSigner.fromPhrase(phrase);
    } else {
      const remote = new RemoteSigner(settings.url, { timeoutMs: settings.timeoutMs });
      refusePublicAccounts(await remote.listAccounts(), chainId);
      this.#backend = remote;
    }
  }

  /** True when signatures come from outside this process: the engine then checks each before broadcast. */
  get signsRemotely(): boolean {
    return this.mode === "remote";
  }

  /** Address of agent number `index` (checksummed). */
  agentAddress(index: number): string {
    return this.#open().address(agentWallet(index));
  }

  /** Address of the relayer (checksummed). */
  relayerAddress(): string {
    return this.#open().address({ kind: "relayer" });
  }

  /** Address of the wallet a reference names. */
  address(ref: WalletRef): string {
    return this.#open().address(ref);
  }

  /** Signs an EIP-1559 transaction from the wallet a reference names; only the transaction engine should call this. */
  signTransaction(ref: WalletRef, tx: Eip1559Transaction): string | Promise<string> {
    return this.#open().signTransaction(ref, tx);
  }

  /** Signer of agent number `index` (keys in this process only); only the transaction engine should call this. */
  agentSigner(index: number, provider: Provider | null = null): DerivedSigner {
    return this.#local().signer(agentWallet(index), provider);
  }

  /** Signer of the relayer (keys in this process only); only the transaction engine should call this. */
  relayerSigner(provider: Provider | null = null): DerivedSigner {
    return this.#local().signer({ kind: "relayer" }, provider);
  }

  /** Signer of the wallet a reference names (without a provider: one per wallet, kept). */
  signer(ref: WalletRef, provider: Provider | null = null): DerivedSigner {
    return this.#local().signer(ref, provider);
  }

  toJSON(): { configured: boolean } {
    return { configured: this.configured };
  }

  [inspect.custom](): string {
    return `ServerWallets { configured: ${this.configured} }`;
  }

  #open(): SignerBackend {
    if (!this.configured) throw new ServerWalletsNotConfiguredError();
    if (!this.#backend) throw new ServerWalletsNotOpenError();
    return this.#backend;
  }

  #local(): HdSigner {
    const backend = this.#open();
    if (!(backend instanceof HdSigner)) throw new Error("internal: a remote signer's keys are not in this process");
    return backend;
  }
}

function mnemonicSettings(phrase: string): ServerWalletSettings | null {
  const mnemonic = phrase.trim().replace(/\s+/g, " ");
  return mnemonic ? { mode: "mnemonic", mnemonic } : null;
}
