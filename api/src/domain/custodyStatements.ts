/**
 * The statements of the signed custody messages (EIP-4361 sign-in messages, domain/signInMessage.ts). Each names the
 * agent and what the signature authorizes, so that a signature is valid for one agent and one change only; the
 * message's single-use nonce and expiry keep it from being replayed.
 */

/** Signed by the agent's current operator to hand the operator role (and so the agent's exit) to another address. */
export function operatorChangeStatement(agentId: string, newOperator: string): string {
  return `I am the operator of NAP agent ${agentId} and make ${newOperator} its operator.`;
}
