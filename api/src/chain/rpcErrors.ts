import { isError } from "ethers";
import { ChainUnavailableError } from "../errors";

/**
 * Classification of errors thrown by ethers providers (JSON-RPC nodes and Hardhat's in-process provider), so that
 * "the chain did not answer" is told apart from "the node refused this transaction" and from a revert.
 */

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENOTFOUND",
  "EPIPE",
  "UND_ERR_SOCKET",
]);
const NETWORK_TEXT = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up|fetch failed|network error|getaddrinfo/i;

function* causes(err: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    yield current as Record<string, unknown>;
    const record = current as Record<string, unknown>;
    current = record.cause ?? record.error;
  }
}

/** True when the error means the RPC endpoint could not be reached or did not answer in time. */
export function isNetworkError(err: unknown): boolean {
  if (isError(err, "NETWORK_ERROR") || isError(err, "TIMEOUT")) return true;
  for (const item of causes(err)) {
    if (typeof item.code === "string" && NETWORK_CODES.has(item.code)) return true;
    // viem's HTTP client (rpc/jsonRpc.ts) names a request that got no answer in time so.
    if (item.name === "TimeoutError") return true;
    if (typeof item.message === "string" && NETWORK_TEXT.test(item.message)) return true;
  }
  return false;
}

/**
 * True when the node refused a transaction because its nonce is below the account's count: the nonce was used by a
 * mined transaction (Hardhat: "nonce has already been used"; geth: "nonce too low"; ethers: NONCE_EXPIRED).
 */
export function isNonceTooLow(err: unknown): boolean {
  if (isError(err, "NONCE_EXPIRED")) return true;
  for (const item of causes(err)) {
    if (typeof item.message === "string" && /nonce too low|nonce has already been used/i.test(item.message)) {
      return true;
    }
  }
  return false;
}

/** True when the node says the sender cannot pay for the transaction. */
export function isInsufficientFunds(err: unknown): boolean {
  if (isError(err, "INSUFFICIENT_FUNDS")) return true;
  for (const item of causes(err)) {
    if (typeof item.message === "string" && /insufficient funds|sender doesn't have enough funds/i.test(item.message)) {
      return true;
    }
  }
  return false;
}

/** True when the error is a revert (call exception) rather than a transport or node problem. */
export function isRevert(err: unknown): boolean {
  if (isError(err, "CALL_EXCEPTION")) return true;
  for (const item of causes(err)) {
    if (typeof item.message === "string" && /revert|VM Exception/i.test(item.message)) return true;
  }
  return false;
}

/** First line of an error's message, bounded, for journal entries and logs. */
export function shortMessage(err: unknown): string {
  const message = err instanceof Error ? ((err as { shortMessage?: string }).shortMessage ?? err.message) : String(err);
  return message.split("\n")[0].slice(0, 300);
}

/**
 * Runs a chain read; a transport failure becomes ChainUnavailableError naming what could not be read (never the
 * endpoint or the transport error, which may carry the RPC host and port).
 */
export async function readChain<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isNetworkError(error))
      throw new ChainUnavailableError(`the chain is unreachable: cannot read ${what}; try again later`);
    throw error;
  }
}
