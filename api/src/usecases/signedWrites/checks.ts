import { AppError, ConflictError, NotFoundError, ValidationError, type JsonValue } from "../../errors";
import { isExpired, wantsAsyncVault, type Intent } from "../../domain/signedWrites";

/**
 * The checks a signed message passes before the relayer spends gas on it, each refusal under its own data API code
 * with a message naming the field. They read `RelayFacts` (chain state gathered by facts.ts) and nothing else, so that
 * each rule is tested on its own. The router checks the same onchain; these only keep the relayer from paying for a
 * transaction that would revert.
 */

export interface RelayFacts {
  /** The latest block's timestamp (unix seconds). */
  now: bigint;
  vaultIsAsync: boolean;
  /** The intent's signature is the owner's (ECDSA, else EIP-1271) for this digest. */
  intentSignatureValid: boolean;
  nonceUsed: boolean;
  /** Deposit: the owner's USDC and the router's allowance. */
  assetBalance: bigint;
  allowance: bigint;
  /** Deposit: the permit sent with it (its signature checked against the asset's current permit nonce). */
  permit: { value: bigint; deadline: bigint; signatureValid: boolean } | null;
  /** Redeem and request: the owner's shares. Claim: claimable shares. Cancel: pending shares. */
  shareBalance: bigint;
  claimableShares: bigint;
  pendingShares: bigint;
  /** Cancel: shares of a request canceled earlier and not yet taken back (the router takes them back too). */
  canceledShares: bigint;
  /** Redemptions: the router is already the owner's operator on the vault. */
  routerIsOperator: boolean;
  /** Redemptions: the ERC-7741 authorisation sent with it. */
  authorization: { deadline: bigint; signatureValid: boolean; nonceUsed: boolean } | null;
}

/** A refusal under a data API code; `field` names the input it is about. */
export function refusal(code: string, message: string, details: Record<string, JsonValue> = {}): AppError {
  if (code === "NONCE_USED") return new ConflictError(message, details, { reason: code });
  if (code === "VAULT_NOT_FOUND") return new NotFoundError(message, details, { reason: code });
  return new ValidationError(message, details, { reason: code });
}

/** Refuses an action on the wrong kind of vault (redeem on an ERC-7540 vault, request on a synchronous one). */
export function checkVaultKind(intent: Pick<Intent, "action" | "vault">, vaultIsAsync: boolean): void {
  const wanted = wantsAsyncVault(intent.action);
  if (wanted === null || wanted === vaultIsAsync) return;
  const kind = vaultIsAsync ? "an ERC-7540 (asynchronous) vault" : "a synchronous vault";
  const instead = vaultIsAsync ? "request-redeem, then claim" : "redeem";
  throw refusal("WRONG_VAULT_KIND", `${intent.action}: ${intent.vault} is ${kind}; use ${instead}`, {
    action: intent.action,
    vault: intent.vault,
    isERC7540: vaultIsAsync,
  });
}

export function checkIntent(intent: Intent, facts: RelayFacts): void {
  checkVaultKind(intent, facts.vaultIsAsync);
  const now = facts.now;
  if (isExpired(intent.deadline, now)) {
    throw refusal("SIGNATURE_EXPIRED", `deadline: ${intent.deadline} is past (the chain's time is ${now})`, {
      field: "deadline",
      deadline: intent.deadline.toString(),
      now: now.toString(),
    });
  }
  if (!facts.intentSignatureValid) {
    throw refusal(
      "INVALID_SIGNATURE",
      `signature: not ${intent.owner}'s signature of this ${intent.action} (vault, amounts, receiver, nonce, deadline and chain as sent)`,
      { field: "signature", owner: intent.owner },
    );
  }
  if (facts.nonceUsed) {
    throw refusal("NONCE_USED", `nonce: ${intent.nonce} of ${intent.owner} is already used or invalidated`, {
      field: "nonce",
      nonce: intent.nonce.toString(),
    });
  }
  if (intent.action === "deposit") return checkDeposit(intent, facts);
  checkAuthorization(intent, facts);
  const amount = intent.amount ?? 0n;
  if (intent.action === "redeem" || intent.action === "request-redeem") {
    if (facts.shareBalance < amount) {
      throw refusal("INSUFFICIENT_BALANCE", `shares: ${amount} asked, ${intent.owner} holds ${facts.shareBalance}`, {
        field: "shares",
        balance: facts.shareBalance.toString(),
      });
    }
  } else if (intent.action === "claim") {
    if (facts.claimableShares < amount) {
      throw refusal("NOTHING_TO_CLAIM", `shares: ${amount} asked, ${facts.claimableShares} claimable`, {
        field: "shares",
        claimable: facts.claimableShares.toString(),
      });
    }
  } else if (facts.pendingShares === 0n && facts.canceledShares === 0n) {
    throw refusal("NOTHING_TO_CANCEL", `owner: ${intent.owner} has no pending redemption request on this vault`, {
      field: "owner",
    });
  }
}

function checkDeposit(intent: Intent, facts: RelayFacts): void {
  const amount = intent.amount ?? 0n;
  if (facts.assetBalance < amount) {
    throw refusal("INSUFFICIENT_BALANCE", `amount: ${amount} asked, ${intent.owner} holds ${facts.assetBalance}`, {
      field: "amount",
      balance: facts.assetBalance.toString(),
    });
  }
  // A permit is tried by the router; an allowance that already covers the amount makes it unneeded.
  if (facts.allowance >= amount) return;
  const permit = facts.permit;
  if (!permit) {
    throw refusal(
      "INSUFFICIENT_ALLOWANCE",
      `permit: the router's allowance is ${facts.allowance}, below the amount ${amount}; sign the permit of the prepare answer`,
      { field: "permit", allowance: facts.allowance.toString() },
    );
  }
  if (permit.value < amount) {
    throw refusal("INSUFFICIENT_ALLOWANCE", `permit.value: ${permit.value} is below the amount ${amount}`, {
      field: "permit.value",
      allowance: facts.allowance.toString(),
    });
  }
  if (isExpired(permit.deadline, facts.now)) {
    throw refusal(
      "SIGNATURE_EXPIRED",
      `permit.deadline: ${permit.deadline} is past (the chain's time is ${facts.now})`,
      {
        field: "permit.deadline",
      },
    );
  }
  if (!permit.signatureValid) {
    throw refusal(
      "INVALID_SIGNATURE",
      `permit.signature: not ${intent.owner}'s permit for the router of this value, deadline and the asset's current nonce`,
      { field: "permit.signature" },
    );
  }
}

function checkAuthorization(intent: Intent, facts: RelayFacts): void {
  if (facts.routerIsOperator) return;
  const authorization = facts.authorization;
  if (!authorization) {
    throw refusal(
      "OPERATOR_NOT_AUTHORIZED",
      `operator_authorization: the router is not ${intent.owner}'s operator on this vault; sign the operator_authorization of the prepare answer`,
      { field: "operator_authorization" },
    );
  }
  if (isExpired(authorization.deadline, facts.now)) {
    throw refusal(
      "SIGNATURE_EXPIRED",
      `operator_authorization.deadline: ${authorization.deadline} is past (the chain's time is ${facts.now})`,
      { field: "operator_authorization.deadline" },
    );
  }
  if (authorization.nonceUsed) {
    throw refusal("NONCE_USED", "operator_authorization.nonce: already used by this owner on this vault", {
      field: "operator_authorization.nonce",
    });
  }
  if (!authorization.signatureValid) {
    throw refusal(
      "INVALID_SIGNATURE",
      `operator_authorization.signature: not ${intent.owner}'s authorisation of the router as its operator on this vault`,
      { field: "operator_authorization.signature" },
    );
  }
}
