import { formatEther } from "ethers";
import type { DecodedRevert } from "../chain/reverts";
import { AppError, ChainUnavailableError, type ErrorCode, type JsonValue } from "../errors";

/**
 * Errors of the transaction engine, in the service's error hierarchy (api/src/errors.ts): each has a stable code
 * and a message that tells the agent what to do. They are stored in the journal (toJournal) so that a retry with the
 * same Idempotency-Key gets the same answer (errorFromJournal), also after a restart.
 */

/** The serialisable form of an engine error, as kept in a journal entry. */
export interface JournalError {
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, JsonValue>;
}

export function toJournal(error: AppError): JournalError {
  return { code: error.code, message: error.message, details: error.details };
}

/** The wallet cannot pay for gas; the agent should use the faucet. */
export class InsufficientGasError extends AppError {
  readonly code = "INSUFFICIENT_GAS";
  static create(address: string, balanceWei: bigint, requiredWei: bigint): InsufficientGasError {
    return new InsufficientGasError(
      `wallet ${address} has ${formatEther(balanceWei)} ETH but this transaction needs up to ` +
        `${formatEther(requiredWei)} ETH for gas and value: request test ETH with POST /api/v1/agent/faucet`,
      { address, balance_wei: balanceWei.toString(), required_wei: requiredWei.toString() },
    );
  }
}

/** The contract rejected the call (at estimation or onchain); carries the decoded custom error. */
export class TxRevertedError extends AppError {
  readonly code = "TX_REVERTED";
  /** The decoded error, or null when the revert data was empty or unknown. */
  get revert(): DecodedRevert | null {
    return (this.details.revert as unknown as DecodedRevert | undefined) ?? null;
  }
  static create(revert: DecodedRevert | null, description: string, extra: Record<string, JsonValue> = {}) {
    const details: Record<string, JsonValue> = { ...extra };
    if (revert) details.revert = revert as unknown as JsonValue;
    return new TxRevertedError(`the contract rejected the transaction: ${description}`, details);
  }
}

/** Another instance holds this wallet's lease for longer than the engine waits; retry with the same key. */
export class WalletBusyError extends AppError {
  readonly code = "WALLET_BUSY";
  constructor(message: string, details: Record<string, JsonValue> = {}) {
    super(message, details, 5);
  }
}

/** The transaction was sent but is not mined within the wait; a retry with the same key picks it up. */
export class TxPendingError extends AppError {
  readonly code = "TX_PENDING";
  constructor(message: string, details: Record<string, JsonValue> = {}) {
    super(message, details, 5);
  }
}

/** The Idempotency-Key was already used for another operation or another wallet. */
export class IdempotencyConflictError extends AppError {
  readonly code = "CONFLICT";
}

/** A later step of a multi-step operation did not run because an earlier step failed. */
export class PreviousStepFailedError extends AppError {
  readonly code = "PREVIOUS_STEP_FAILED";
}

/** The node refused the signed transaction for a reason none of the above covers. */
export class TxRejectedError extends AppError {
  readonly code = "TX_REJECTED";
}

type EngineErrorClass = new (message: string, details?: Record<string, JsonValue>) => AppError;

const BY_CODE: Partial<Record<ErrorCode, EngineErrorClass>> = {
  INSUFFICIENT_GAS: InsufficientGasError,
  TX_REVERTED: TxRevertedError,
  CHAIN_UNAVAILABLE: ChainUnavailableError,
  WALLET_BUSY: WalletBusyError,
  TX_PENDING: TxPendingError,
  CONFLICT: IdempotencyConflictError,
  PREVIOUS_STEP_FAILED: PreviousStepFailedError,
  TX_REJECTED: TxRejectedError,
};

/** Codes written by earlier versions of the engine, still found in journals. */
const RENAMED: Record<string, ErrorCode> = { CONTRACT_REVERT: "TX_REVERTED", IDEMPOTENCY_CONFLICT: "CONFLICT" };

/** Rebuilds the typed error from its journal form (unknown codes become TxRejectedError). */
export function errorFromJournal(error: JournalError): AppError {
  const code = (RENAMED[error.code] ?? error.code) as ErrorCode;
  if (code === "CHAIN_UNAVAILABLE") return new ChainUnavailableError(error.message);
  const Class = BY_CODE[code] ?? TxRejectedError;
  return new Class(error.message, error.details ?? {});
}

/**
 * Errors raised before anything was signed (balance, estimation, reachability): a retry with the same key may
 * run the operation again, since no transaction exists for it. Everything else is final for its key.
 */
export const RETRYABLE_BEFORE_SIGNING: ReadonlySet<string> = new Set([
  "INSUFFICIENT_GAS",
  "TX_REVERTED",
  "CONTRACT_REVERT",
  "CHAIN_UNAVAILABLE",
  "WALLET_BUSY",
  "PREVIOUS_STEP_FAILED",
]);
