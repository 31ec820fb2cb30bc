import type { RpcProvider } from "../chain";
import type { ChainLog } from "../chain/events";

/** The raw JSON-RPC reads of the indexer: logs of a block range and block headers (number, hash, parent, time). */

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: number;
}

export interface RangeLog extends ChainLog {
  readonly blockHash: string;
}

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

interface RawHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

const hex = (value: number) => `0x${value.toString(16)}`;

export async function getLogs(
  provider: RpcProvider,
  addresses: readonly string[],
  fromBlock: number,
  toBlock: number,
): Promise<RangeLog[]> {
  const raw = (await provider.send("eth_getLogs", [
    { address: addresses, fromBlock: hex(fromBlock), toBlock: hex(toBlock) },
  ])) as RawLog[];
  return raw
    .filter((log) => !log.removed)
    .map((log) => ({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: Number(log.blockNumber),
      blockHash: log.blockHash.toLowerCase(),
      transactionHash: log.transactionHash,
      index: Number(log.logIndex),
    }));
}

/** The header of block `number`, or null when the node has no such block (yet, or any more). */
export async function getHeader(provider: RpcProvider, number: number): Promise<BlockHeader | null> {
  const raw = (await provider.send("eth_getBlockByNumber", [hex(number), false])) as RawHeader | null;
  if (!raw) return null;
  return {
    number: Number(raw.number),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: Number(raw.timestamp),
  };
}
