import type { RpcProvider } from "../chain";
import type { ChainLog } from "../chain/events";

/**
 * The raw JSON-RPC reads of the indexer: logs of a block range, block headers (number, hash, parent, time) and plain
 * `eth_call`s. Requests issued together (one `Promise.all`) go out as one JSON-RPC batch: ethers' JsonRpcProvider
 * gathers the requests of one tick into a single HTTP request.
 */

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
  const logs: RangeLog[] = [];
  for (const log of raw) {
    if (log.removed) continue;
    logs.push({
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: Number(log.blockNumber),
      blockHash: log.blockHash.toLowerCase(),
      transactionHash: log.transactionHash,
      index: Number(log.logIndex),
    });
  }
  return logs;
}

/** The header of block `number`, or null when the node has no such block (yet, or any more). */
export async function getHeader(provider: RpcProvider, number: number): Promise<BlockHeader | null> {
  const raw = (await provider.send("eth_getBlockByNumber", [hex(number), false])) as RawHeader | null;
  return raw ? headerOf(raw) : null;
}

/** The headers of `numbers` in one batch, by number (a block the node does not have is left out). */
export async function getHeaders(provider: RpcProvider, numbers: Iterable<number>): Promise<Map<number, BlockHeader>> {
  const headers = await Promise.all([...new Set(numbers)].map((number) => getHeader(provider, number)));
  return new Map(headers.filter((header) => header !== null).map((header) => [header.number, header]));
}

/** `eth_call` of `data` on `to` at `block`: the raw return data. */
export async function call(provider: RpcProvider, to: string, data: string, block: number): Promise<string> {
  return (await provider.send("eth_call", [{ to, data }, hex(block)])) as string;
}

function headerOf(raw: RawHeader): BlockHeader {
  return {
    number: Number(raw.number),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: Number(raw.timestamp),
  };
}
