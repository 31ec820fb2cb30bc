import { AppError, NotConfiguredError, UnavailableError, type JsonValue } from "../../errors";

/**
 * A signer's answer the engine will not broadcast: a signature of another transaction, for another chain or by
 * another key, or the remote signer's refusal. Final for its intent (TX_REJECTED, like a node's refusal).
 */
export class SignerAnswerRefusedError extends AppError {
  readonly code = "TX_REJECTED";
  constructor(message: string, details: Record<string, JsonValue> = {}) {
    super(message, details);
  }
}

/** The remote signer did not answer (network, timeout, not JSON-RPC): nothing was signed, retry with the same key. */
export class RemoteSignerUnavailableError extends UnavailableError {
  constructor() {
    super("the service's signer is unreachable; try again shortly with the same Idempotency-Key", {}, 5);
  }
}

/** Agent number `index` has no account at the remote signer (503): its keys are added there, then the service restarted. */
export class AgentWalletUnavailableError extends NotConfiguredError {
  constructor(index: number, listed: number) {
    super(
      `agent wallet #${index} has no key at the service's remote signer, which lists ${listed} account(s): ` +
        "the first signs for the relayer, then one per agent in order; add keys there and restart the service",
      { agent_index: index, signer_accounts: listed },
    );
  }
}
