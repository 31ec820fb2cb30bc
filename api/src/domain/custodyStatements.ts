/**
 * The statements of the signed custody messages (EIP-4361 sign-in messages, domain/signInMessage.ts). Each names the
 * agent and what the signature authorizes, so that a signature is valid for one agent and one change only; the
 * message's single-use nonce and expiry keep it from being replayed.
 */

/** Signed by the agent's current operator to hand the operator role (and so the agent's exit) to another address. */
export function operatorChangeStatement(agentId: string, newOperator: string): string {
  return `I am the operator of NAP agent ${agentId} and make ${newOperator} its operator.`;
}

/** Signed by the agent's wallet: a new API key replaces the current one, which stops at once. */
export function keyRotationStatement(agentId: string): string {
  return `I am the wallet of NAP agent ${agentId} and replace its API key; the current key stops working.`;
}

/** Signed by the agent's wallet or its operator: the agent's API key stops, and no key replaces it. */
export function keyRevocationStatement(agentId: string, keyPrefix: string): string {
  return `I revoke the API key ${keyPrefix} of NAP agent ${agentId}.`;
}

/**
 * Signed by the agent's wallet: a scoped key with exactly this scope, label and lifetime; the message is rebuilt from
 * the issuing request, so a signature cannot be spent on a wider key.
 */
export function scopedKeyStatement(
  agentId: string,
  scope: string,
  label: string | null,
  lifetimeSeconds: number,
): string {
  const named = label === null ? "" : ` labelled "${label}"`;
  return (
    `I am the wallet of NAP agent ${agentId} and issue a scoped API key${named} limited to: ${scope}; ` +
    `valid for ${lifetimeSeconds} seconds.`
  );
}
