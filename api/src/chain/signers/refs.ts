import { NotConfiguredError } from "../../errors";

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

/**
 * What signs for the server wallets: the HD seed in this process (mnemonic or keystore) or a remote signer. Every
 * implementation answers addresses synchronously once opened, so that the use cases read them without a round trip.
 */
export interface SignerBackend {
  /** Address of the wallet a reference names (checksummed). */
  address(ref: WalletRef): string;
  /** Signs an EIP-1559 transaction from that wallet; the raw signed bytes (0x hex). */
  signTransaction(ref: WalletRef, tx: Eip1559Transaction): string | Promise<string>;
}

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

export function checkIndex(index: number): number {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_AGENT_INDEX) {
    throw new RangeError(`agent wallet index must be an integer from 0 to ${MAX_AGENT_INDEX}, got ${index}`);
  }
  return index;
}

/** Thrown when an onchain operation needs a server wallet and no signer is configured (503). */
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
