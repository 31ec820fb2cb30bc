import { formatEther } from "ethers";
import type { DecodedRevert, JsonValue } from "../chain/errors";

/**
 * Errors of the transaction engine. Each carries the HTTP status the error middleware answers with, a stable
 * `code`, and a message that tells the agent what to do. They are stored in the journal (toJournal) so that a
 * retry with the same Idempotency-Key gets the same answer (fromJournal), also after a restart.
 *
 * Shape kept compatible with the service's AppError (status, headers, message); at merge TxError can extend it.
 */

/** The serialisable form of an engine error, as kept in a journal entry. */
export interface JournalError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, JsonValue>;
}

export abstract class TxError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  readonly headers: Record<string, string> = {};
  readonly details: Record<string, JsonValue>;

  constructor(message: string, details: Record<string, JsonValue> = {}) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }

  toJournal(): JournalError {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** 400: the wallet cannot pay for gas; the agent should use the faucet. */
export class InsufficientGasError extends TxError {
  readonly status = 400;
  readonly code = "INSUFFICIENT_GAS";
  static create(address: string, balanceWei: bigint, requiredWei: bigint): InsufficientGasError {
    return new InsufficientGasError(
      `wallet ${address} has ${formatEther(balanceWei)} ETH but this transaction needs up to ` +
        `${formatEther(requiredWei)} ETH for gas and value: request test ETH with POST /api/v1/agent/faucet`,
      { address, balance_wei: balanceWei.toString(), required_wei: requiredWei.toString() },
    );
  }
}

/** 400: the contract rejected the call (at estimation or onchain); carries the decoded custom error. */
export class ContractRevertError extends TxError {
  readonly status = 400;
  readonly code = "CONTRACT_REVERT";
  /** The decoded error, or null when the revert data was empty or unknown. */
  get revert(): DecodedRevert | null {
    return (this.details.revert as unknown as DecodedRevert | undefined) ?? null;
  }
  static create(
    revert: DecodedRevert | null,
    description: string,
    extra: Record<string, JsonValue> = {},
  ): ContractRevertError {
    const details: Record<string, JsonValue> = { ...extra };
    if (revert) details.revert = revert as unknown as JsonValue;
    return new ContractRevertError(`the contract rejected the transaction: ${description}`, details);
  }
}

/** 503 with Retry-After: the condition is temporary and the same request (same Idempotency-Key) may be retried. */
abstract class RetryLaterError extends TxError {
  readonly status = 503;
  constructor(message: string, details: Record<string, JsonValue> = {}) {
    super(message, details);
    this.headers["Retry-After"] = "5";
  }
}

/** 503: the chain's RPC endpoint did not answer. */
export class ChainUnavailableError extends RetryLaterError {
  readonly code = "CHAIN_UNAVAILABLE";
  static create(cause: unknown): ChainUnavailableError {
    const reason = cause instanceof Error ? cause.message.split("\n")[0].slice(0, 200) : String(cause);
    return new ChainUnavailableError(`the chain is unreachable, try again later (${reason})`);
  }
}

/** 503: another instance holds this wallet's lease for longer than the engine waits. */
export class WalletBusyError extends RetryLaterError {
  readonly code = "WALLET_BUSY";
}

/** 503: the transaction was sent but is not mined within the wait; a retry with the same key picks it up. */
export class TxPendingError extends RetryLaterError {
  readonly code = "TX_PENDING";
}

/** 409: the Idempotency-Key was already used for another operation or another wallet. */
export class IdempotencyConflictError extends TxError {
  readonly status = 409;
  readonly code = "IDEMPOTENCY_CONFLICT";
}

/** 400: a later step of a multi-step operation did not run because an earlier step failed. */
export class PreviousStepFailedError extends TxError {
  readonly status = 400;
  readonly code = "PREVIOUS_STEP_FAILED";
}

/** 502: the node refused the signed transaction for a reason none of the above covers. */
export class TxRejectedError extends TxError {
  readonly status = 502;
  readonly code = "TX_REJECTED";
}

type TxErrorClass = new (message: string, details?: Record<string, JsonValue>) => TxError;

const BY_CODE: Record<string, TxErrorClass> = {
  INSUFFICIENT_GAS: InsufficientGasError,
  CONTRACT_REVERT: ContractRevertError,
  CHAIN_UNAVAILABLE: ChainUnavailableError,
  WALLET_BUSY: WalletBusyError,
  TX_PENDING: TxPendingError,
  IDEMPOTENCY_CONFLICT: IdempotencyConflictError,
  PREVIOUS_STEP_FAILED: PreviousStepFailedError,
  TX_REJECTED: TxRejectedError,
};

/** Rebuilds the typed error from its journal form (unknown codes become TxRejectedError). */
export function errorFromJournal(error: JournalError): TxError {
  const Class = BY_CODE[error.code] ?? TxRejectedError;
  return new Class(error.message, error.details ?? {});
}

/**
 * Errors raised before anything was signed (balance, estimation, reachability): a retry with the same key may
 * run the operation again, since no transaction exists for it. Everything else is final for its key.
 */
export const RETRYABLE_BEFORE_SIGNING = new Set([
  "INSUFFICIENT_GAS",
  "CONTRACT_REVERT",
  "CHAIN_UNAVAILABLE",
  "WALLET_BUSY",
  "PREVIOUS_STEP_FAILED",
]);
