import { inspect } from "node:util";
import {
  AbstractSigner,
  getBytes,
  HDNodeWallet,
  isHexString,
  Mnemonic,
  Wallet,
  type Provider,
  type TransactionRequest,
  type TypedDataDomain,
  type TypedDataField,
} from "ethers";
import { serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from "viem";
import { NotConfiguredError } from "../errors";
import { keccak256Bytes } from "./keccak";
import { curve } from "./secp256k1";

/**
 * Server-side wallets, all derived from one BIP-39 mnemonic (SERVER_WALLET_MNEMONIC):
 * - the relayer (faucet drips, ERC-7540 fulfilment, badge minting, screening): m/44'/60'/0'/0/0
 * - agent number i (the index stored with the agent): m/44'/60'/1'/0/i
 *
 * Key material lives only in JavaScript private fields (#...), which JSON.stringify, util.inspect and pino never
 * read, and every object handed out prints as its address and path only. Nothing here writes a key anywhere.
 */

/** HD path of the service's relayer wallet. */
export const RELAYER_PATH = "m/44'/60'/0'/0/0";
/** HD path prefix of the agent wallets; the agent's index is the last component. */
export const AGENT_PATH_PREFIX = "m/44'/60'/1'/0";

/** Largest agent index: BIP-32 non-hardened child numbers are below 2^31. */
export const MAX_AGENT_INDEX = 2 ** 31 - 1;

/** The fields of an EIP-1559 (type 2) transaction, all given; no access list. */
export interface Eip1559Transaction {
  chainId: bigint;
  nonce: number;
  /** 0x address. */
  to: string;
  /** 0x hex calldata. */
  data: string;
  value: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A serialisable reference to a server wallet, as stored in the transaction journal. */
export type WalletRef = { readonly kind: "relayer" } | { readonly kind: "agent"; readonly index: number };

/** The reference of agent number `index`'s wallet. */
export function agentWallet(index: number): WalletRef {
  return { kind: "agent", index };
}

/** Path of the wallet a reference names. */
export function walletPath(ref: WalletRef): string {
  return ref.kind === "relayer" ? RELAYER_PATH : `${AGENT_PATH_PREFIX}/${checkIndex(ref.index)}`;
}

/** Short label for logs and messages ("relayer", "agent#3"). */
export function walletLabel(ref: WalletRef): string {
  return ref.kind === "relayer" ? "relayer" : `agent#${ref.index}`;
}

/** Thrown when an onchain operation needs a server wallet and no mnemonic is configured (503). */
export class ServerWalletsNotConfiguredError extends NotConfiguredError {
  constructor() {
    super("server wallets are not configured: set SERVER_WALLET_MNEMONIC");
  }
}

/** Thrown at start-up when SERVER_WALLET_MNEMONIC is set but is not a valid BIP-39 phrase (never echoes it). */
export class InvalidServerWalletMnemonicError extends Error {
  constructor() {
    super("SERVER_WALLET_MNEMONIC is not a valid BIP-39 mnemonic (12-24 English words with a valid checksum)");
    this.name = "InvalidServerWalletMnemonicError";
  }
}

function checkIndex(index: number): number {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_AGENT_INDEX) {
    throw new RangeError(`agent wallet index must be an integer from 0 to ${MAX_AGENT_INDEX}, got ${index}`);
  }
  return index;
}

/**
 * A signer for one derived wallet. It signs like an ethers Wallet but holds the key in a private field and
 * prints (JSON, util.inspect, template strings) as `{ address, path }` only.
 */
export class DerivedSigner extends AbstractSigner {
  readonly address: string;
  readonly path: string;
  readonly #wallet: Wallet;
  readonly #privateKey: Uint8Array;

  constructor(wallet: Wallet, path: string, provider: Provider | null) {
    super(provider);
    this.#wallet = provider ? wallet.connect(provider) : wallet;
    this.#privateKey = getBytes(wallet.privateKey);
    this.address = wallet.address;
    this.path = path;
  }

  override async getAddress(): Promise<string> {
    return this.address;
  }

  override connect(provider: Provider | null): DerivedSigner {
    return new DerivedSigner(this.#wallet, this.path, provider);
  }

  override async signTransaction(tx: TransactionRequest): Promise<string> {
    return this.#wallet.signTransaction(tx);
  }

  /**
   * Signs an EIP-1559 transaction synchronously (no provider round trip); returns the raw signed bytes, byte for byte
   * what ethers' Wallet produces (test/api/chain/wallets.test.ts checks it for any fields). viem's
   * `serializeTransaction` encodes the transaction, once without the signature (its Keccak is the digest, hashed by
   * the WebAssembly Keccak) and once with it; the ECDSA signature is made by libsecp256k1 (chain/secp256k1.ts,
   * RFC 6979 nonces and low s), which replaces ethers' JavaScript curve on the engine's path (bench/chain.ts).
   */
  signPopulated(fields: Eip1559Transaction): string {
    if (!isHexString(fields.to, 20)) throw new TypeError(`transaction to ${fields.to}: not an address`);
    if (!isHexString(fields.data, true)) throw new TypeError("transaction data: not hex bytes");
    const transaction: TransactionSerializableEIP1559 = {
      type: "eip1559",
      chainId: Number(fields.chainId),
      nonce: fields.nonce,
      maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
      maxFeePerGas: fields.maxFeePerGas,
      gas: fields.gasLimit,
      to: fields.to as Hex,
      value: fields.value,
      data: fields.data as Hex,
    };
    const digest = keccak256Bytes(Buffer.from(serializeTransaction(transaction).slice(2), "hex"));
    const { signature, recoveryId } = curve.signRecoverable(digest, this.#privateKey);
    return serializeTransaction(transaction, {
      r: `0x${Buffer.from(signature.subarray(0, 32)).toString("hex")}`,
      s: `0x${Buffer.from(signature.subarray(32)).toString("hex")}`,
      yParity: recoveryId & 1,
    });
  }

  override async signMessage(message: string | Uint8Array): Promise<string> {
    return this.#wallet.signMessage(message);
  }

  override async signTypedData(
    domain: TypedDataDomain,
    types: Record<string, TypedDataField[]>,
    value: Record<string, unknown>,
  ): Promise<string> {
    return this.#wallet.signTypedData(domain, types, value);
  }

  toJSON(): { address: string; path: string } {
    return { address: this.address, path: this.path };
  }

  override toString(): string {
    return `DerivedSigner(${this.address} at ${this.path})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/**
 * The service's wallets. Construct once at start-up from the configuration; `configured` is false when no
 * mnemonic is set, and then every request for an address or signer throws ServerWalletsNotConfiguredError.
 */
export class ServerWallets {
  readonly configured: boolean;
  readonly #agents: HDNodeWallet | null;
  readonly #relayer: Wallet | null;
  readonly #agentWallets = new Map<number, Wallet>();
  readonly #signers = new Map<string, DerivedSigner>();

  /** @param mnemonic BIP-39 phrase, or undefined/empty when the service runs without server wallets. */
  constructor(mnemonic: string | undefined | null) {
    const phrase = mnemonic?.trim().replace(/\s+/g, " ");
    if (!phrase) {
      this.configured = false;
      this.#agents = null;
      this.#relayer = null;
      return;
    }
    let root: HDNodeWallet;
    try {
      // From the seed rather than the phrase: the derived nodes then carry no `mnemonic` field to leak.
      root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(phrase).computeSeed());
    } catch {
      throw new InvalidServerWalletMnemonicError();
    }
    this.configured = true;
    this.#agents = root.derivePath(AGENT_PATH_PREFIX);
    this.#relayer = new Wallet(root.derivePath(RELAYER_PATH).privateKey);
  }

  /** Address of agent number `index` (checksummed). */
  agentAddress(index: number): string {
    return this.#agentWallet(index).address;
  }

  /** Address of the relayer (checksummed). */
  relayerAddress(): string {
    return this.#relayerWallet().address;
  }

  /** Address of the wallet a reference names. */
  address(ref: WalletRef): string {
    return ref.kind === "relayer" ? this.relayerAddress() : this.agentAddress(ref.index);
  }

  /** Signer of agent number `index`; only the transaction engine (api/src/tx) should call this. */
  agentSigner(index: number, provider: Provider | null = null): DerivedSigner {
    return new DerivedSigner(this.#agentWallet(index), `${AGENT_PATH_PREFIX}/${index}`, provider);
  }

  /** Signer of the relayer; only the transaction engine (api/src/tx) should call this. */
  relayerSigner(provider: Provider | null = null): DerivedSigner {
    return new DerivedSigner(this.#relayerWallet(), RELAYER_PATH, provider);
  }

  /** Signer of the wallet a reference names (without a provider: one per wallet, kept). */
  signer(ref: WalletRef, provider: Provider | null = null): DerivedSigner {
    if (provider) return ref.kind === "relayer" ? this.relayerSigner(provider) : this.agentSigner(ref.index, provider);
    const label = walletLabel(ref);
    let signer = this.#signers.get(label);
    if (!signer) {
      signer = ref.kind === "relayer" ? this.relayerSigner() : this.agentSigner(ref.index);
      this.#signers.set(label, signer);
    }
    return signer;
  }

  toJSON(): { configured: boolean } {
    return { configured: this.configured };
  }

  [inspect.custom](): string {
    return `ServerWallets { configured: ${this.configured} }`;
  }

  #agentWallet(index: number): Wallet {
    checkIndex(index);
    if (!this.#agents) throw new ServerWalletsNotConfiguredError();
    let wallet = this.#agentWallets.get(index);
    if (!wallet) {
      wallet = new Wallet(this.#agents.deriveChild(index).privateKey);
      this.#agentWallets.set(index, wallet);
    }
    return wallet;
  }

  #relayerWallet(): Wallet {
    if (!this.#relayer) throw new ServerWalletsNotConfiguredError();
    return this.#relayer;
  }
}
