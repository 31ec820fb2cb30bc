import { getBigInt, toQuantity } from "ethers";
import type { RpcProvider } from "../chain";
import { checksumAddress } from "../chain/keccak";

/**
 * The engine's JSON-RPC calls, sent as they are through the provider's `send` (JsonRpcProvider, Hardhat's provider):
 * ethers' Provider methods wrap each answer in formatted objects (checksummed addresses, a TransactionResponse whose
 * sender is recovered from the signature in JavaScript) that the engine does not read, at a few milliseconds of CPU
 * per transaction. Errors are the provider's own (ethers maps node errors to its codes for `send` too).
 */

/** One log of a mined transaction. */
export interface ReceiptLog {
  /** EIP-55 checksummed. */
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly index: number;
  readonly blockNumber: number;
  readonly transactionHash: string;
}

/** What the engine and the use cases read of a receipt. */
export interface MinedReceipt {
  readonly hash: string;
  readonly blockNumber: number;
  /** 1 success, 0 reverted. */
  readonly status: number;
  readonly gasUsed: bigint;
  readonly logs: readonly ReceiptLog[];
}

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
  blockNumber: string;
  transactionHash: string;
}

interface RawReceipt {
  transactionHash: string;
  blockNumber: string;
  status: string;
  gasUsed: string;
  logs: RawLog[];
}

export class Rpc {
  constructor(private readonly provider: RpcProvider) {}

  async sendRawTransaction(rawTx: string): Promise<void> {
    await this.provider.send("eth_sendRawTransaction", [rawTx]);
  }

  async estimateGas(tx: { from: string; to: string; data: string; value: bigint }): Promise<bigint> {
    return getBigInt((await this.provider.send("eth_estimateGas", [{ ...tx, value: toQuantity(tx.value) }])) as string);
  }

  async balance(address: string, block: number): Promise<bigint> {
    return getBigInt((await this.provider.send("eth_getBalance", [address, toQuantity(block)])) as string);
  }

  async transactionCount(address: string, tag: "latest" | "pending"): Promise<number> {
    return Number((await this.provider.send("eth_getTransactionCount", [address, tag])) as string);
  }

  /** True when the node knows the transaction (pending or mined). */
  async knows(hash: string): Promise<boolean> {
    return (await this.provider.send("eth_getTransactionByHash", [hash])) !== null;
  }

  /** The receipt of a mined transaction, or null. */
  async receipt(hash: string): Promise<MinedReceipt | null> {
    const raw = (await this.provider.send("eth_getTransactionReceipt", [hash])) as RawReceipt | null;
    if (!raw) return null;
    return {
      hash: raw.transactionHash,
      blockNumber: Number(raw.blockNumber),
      status: Number(raw.status),
      gasUsed: getBigInt(raw.gasUsed),
      logs: raw.logs.map((log) => ({
        address: checksumAddress(log.address),
        topics: log.topics,
        data: log.data,
        index: Number(log.logIndex),
        blockNumber: Number(log.blockNumber),
        transactionHash: log.transactionHash,
      })),
    };
  }
}
