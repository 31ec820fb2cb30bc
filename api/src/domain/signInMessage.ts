/**
 * The registration message an agent signs (EIP-191 personal_sign), in the EIP-4361 (Sign-In with Ethereum) format
 * so that wallets display it as a sign-in request and so that a signature is bound to this deployment: the domain,
 * URI and chain id, plus the nonce, issue time and expiry. It also carries the Unix-seconds issue time the spec asks
 * for (as the EIP-4361 `Request ID`, which keeps the message parseable by SIWE tooling).
 *
 * Exact format (lines separated by "\n", no trailing newline):
 *
 *   {domain} wants you to sign in with your Ethereum account:
 *   {wallet address, EIP-55 checksummed}
 *
 *   {statement: REGISTRATION_STATEMENT, or another purpose's statement such as the data API's key issuance}
 *
 *   URI: {public URL of the service}
 *   Version: 1
 *   Chain ID: {chain id}
 *   Nonce: {32 hex characters}
 *   Issued At: {ISO 8601 UTC, seconds precision}
 *   Expiration Time: {ISO 8601 UTC, issue time + 600 s}
 *   Request ID: {issue time in Unix seconds}
 */

export const REGISTRATION_STATEMENT =
  "I authorize the NAP agent service to register this wallet as an agent and to issue an API key for it.";

export interface SignInMessageFields {
  /** What the signature authorizes (default: agent registration); binds a signature to one purpose. */
  statement?: string;
  domain: string;
  uri: string;
  chainId: number;
  walletAddress: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function buildSignInMessage(fields: SignInMessageFields): string {
  return [
    `${fields.domain} wants you to sign in with your Ethereum account:`,
    fields.walletAddress,
    "",
    fields.statement ?? REGISTRATION_STATEMENT,
    "",
    `URI: ${fields.uri}`,
    "Version: 1",
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${isoSeconds(fields.issuedAt)}`,
    `Expiration Time: ${isoSeconds(fields.expiresAt)}`,
    `Request ID: ${Math.floor(fields.issuedAt.getTime() / 1000)}`,
  ].join("\n");
}
