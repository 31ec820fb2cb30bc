import { inspect } from "node:util";
import {
  AbstractSigner,
  getBytes,
  isHexString,
  Wallet,
  type Provider,
  type TransactionRequest,
  type TypedDataDomain,
  type TypedDataField,
} from "ethers";
import { serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from "viem";
import { keccak256Bytes } from "../keccak";
import { curve } from "../secp256k1";
import type { Eip1559Transaction } from "./refs";

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
