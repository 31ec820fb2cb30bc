import { getBigInt, toQuantity } from "ethers";
import type { RpcSender } from "./jsonRpc";

/**
 * The JSON-RPC actions of the indexer and the transaction engine, one function each, sent as they are through a
 * connection or a round (jsonRpc.ts, round.ts). They read only the fields their callers use, without the formatting of
 * a client's own actions (ethers' Provider methods checksum every address and recover each transaction's sender from
 * its signature in JavaScript; the engine and the indexer read neither). Errors are the connection's.
 */

/** A log as the node gives it (`eth_getLogs`, a receipt's logs). */
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

/** A log of the chain: the one log type of the service (events.ts decodes it). */
export interface ChainLog {
  /** As the node gives it (nodes give lowercase). */
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: number;
  /** Lowercase. */
  readonly blockHash: string;
  readonly transactionHash: string;
  readonly index: number;
}

export interface BlockHeader {
  number: number;
  /** Lowercase. */
  hash: string;
  parentHash: string;
  timestamp: number;
}

/** What the engine and the use cases read of a mined transaction's receipt. */
export interface MinedReceipt {
  readonly hash: string;
  readonly blockNumber: number;
  /** 1 success, 0 reverted. */
  readonly status: number;
  readonly gasUsed: bigint;
  readonly logs: readonly ChainLog[];
}

interface RawHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

interface RawReceipt {
  transactionHash: string;
  blockNumber: string;
  status: string;
  gasUsed: string;
  logs: RawLog[];
}

const hex = (value: number) => `0x${value.toString(16)}`;

function logOf(raw: RawLog): ChainLog {
  return {
    address: raw.address,
    topics: raw.topics,
    data: raw.data,
    blockNumber: Number(raw.blockNumber),
    blockHash: raw.blockHash.toLowerCase(),
    transactionHash: raw.transactionHash,
    index: Number(raw.logIndex),
  };
}

function headerOf(raw: RawHeader): BlockHeader {
  return {
    number: Number(raw.number),
    hash: raw.hash.toLowerCase(),
    parentHash: raw.parentHash.toLowerCase(),
    timestamp: Number(raw.timestamp),
  };
}

/** `eth_blockNumber`. */
export async function getBlockNumber(via: RpcSender): Promise<number> {
  return Number(await via.send("eth_blockNumber", []));
}

/** The logs of `addresses` in blocks `fromBlock`..`toBlock`, in chain order (logs the node marks removed left out). */
export async function getLogs(
  via: RpcSender,
  addresses: readonly string[],
  fromBlock: number,
  toBlock: number,
): Promise<ChainLog[]> {
  const raw = (await via.send("eth_getLogs", [
    { address: addresses, fromBlock: hex(fromBlock), toBlock: hex(toBlock) },
  ])) as RawLog[];
  const logs: ChainLog[] = [];
  for (const log of raw) if (!log.removed) logs.push(logOf(log));
  return logs;
}

/** The header of block `number`, or null when the node has no such block (yet, or any more). */
export async function getBlockHeader(via: RpcSender, number: number): Promise<BlockHeader | null> {
  const raw = (await via.send("eth_getBlockByNumber", [hex(number), false])) as RawHeader | null;
  return raw ? headerOf(raw) : null;
}

/** The headers of `numbers`, by number (a block the node does not have is left out). */
export async function getBlockHeaders(via: RpcSender, numbers: Iterable<number>): Promise<Map<number, BlockHeader>> {
  const headers = await Promise.all([...new Set(numbers)].map((number) => getBlockHeader(via, number)));
  return new Map(headers.filter((header) => header !== null).map((header) => [header.number, header]));
}

/** `eth_call` of `data` on `to` at `block`: the raw return data. */
export async function call(via: RpcSender, to: string, data: string, block: number): Promise<string> {
  return (await via.send("eth_call", [{ to, data }, hex(block)])) as string;
}

/** The receipt of a mined transaction, or null. */
export async function getTransactionReceipt(via: RpcSender, hash: string): Promise<MinedReceipt | null> {
  const raw = (await via.send("eth_getTransactionReceipt", [hash])) as RawReceipt | null;
  if (!raw) return null;
  return {
    hash: raw.transactionHash,
    blockNumber: Number(raw.blockNumber),
    status: Number(raw.status),
    gasUsed: getBigInt(raw.gasUsed),
    logs: raw.logs.map(logOf),
  };
}

/** True when the node knows the transaction (pending or mined). */
export async function knowsTransaction(via: RpcSender, hash: string): Promise<boolean> {
  return (await via.send("eth_getTransactionByHash", [hash])) !== null;
}

/** The account's transaction count (its next nonce) at `latest` or counting its `pending` transactions. */
export async function getTransactionCount(via: RpcSender, address: string, tag: "latest" | "pending"): Promise<number> {
  return Number(await via.send("eth_getTransactionCount", [address, tag]));
}

export async function getBalance(via: RpcSender, address: string, block: number): Promise<bigint> {
  return getBigInt((await via.send("eth_getBalance", [address, hex(block)])) as string);
}

export async function estimateGas(
  via: RpcSender,
  tx: { from: string; to: string; data: string; value: bigint },
): Promise<bigint> {
  return getBigInt((await via.send("eth_estimateGas", [{ ...tx, value: toQuantity(tx.value) }])) as string);
}

export async function sendRawTransaction(via: RpcSender, rawTx: string): Promise<void> {
  await via.send("eth_sendRawTransaction", [rawTx]);
}
