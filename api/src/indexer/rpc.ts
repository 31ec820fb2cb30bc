import type { ChainLog } from "../chain/events";
import type { RpcSender } from "../chain/rpcRound";

/**
 * The raw JSON-RPC reads of the indexer: logs of a block range, block headers (number, hash, parent, time) and plain
 * `eth_call`s, each sent through the provider (which gathers the requests of one turn of the event loop into one
 * JSON-RPC batch) or through a round the caller sends when it chooses (chain/rpcRound.ts).
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
  via: RpcSender,
  addresses: readonly string[],
  fromBlock: number,
  toBlock: number,
): Promise<RangeLog[]> {
  const raw = (await via.send("eth_getLogs", [
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
export async function getHeader(via: RpcSender, number: number): Promise<BlockHeader | null> {
  const raw = (await via.send("eth_getBlockByNumber", [hex(number), false])) as RawHeader | null;
  return raw ? headerOf(raw) : null;
}

/** The headers of `numbers` in one batch, by number (a block the node does not have is left out). */
export async function getHeaders(via: RpcSender, numbers: Iterable<number>): Promise<Map<number, BlockHeader>> {
  const headers = await Promise.all([...new Set(numbers)].map((number) => getHeader(via, number)));
  return new Map(headers.filter((header) => header !== null).map((header) => [header.number, header]));
}

/** `eth_call` of `data` on `to` at `block`: the raw return data. */
export async function call(via: RpcSender, to: string, data: string, block: number): Promise<string> {
  return (await via.send("eth_call", [{ to, data }, hex(block)])) as string;
}

function headerOf(raw: RawHeader): BlockHeader {
  return {
    number: Number(raw.number),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: Number(raw.timestamp),
  };
}
