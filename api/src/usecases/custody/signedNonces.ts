import { randomBytes } from "node:crypto";
import { buildSignInMessage } from "../../domain/signInMessage";
import { PermissionError, invalidField } from "../../errors";
import {
  NONCE_TTL_SECONDS,
  type IssuedNonce,
  type NonceRecord,
  type NonceStore,
  type RegistrationSettings,
  type SignatureVerifier,
} from "../registration";

/**
 * Custody actions proven by a wallet's signature (an operator change, a key rotation or revocation): a single-use
 * nonce bound to the signing wallet, and the registration's EIP-4361 message with a statement that names the agent and
 * the action, rebuilt from the request when it is checked, so that a signature is good for one action only.
 */

export class SignedNonces {
  constructor(
    private readonly nonces: NonceStore,
    private readonly settings: RegistrationSettings,
    private readonly verifySignature: SignatureVerifier,
    private readonly clock: () => Date,
  ) {}

  /** A nonce bound to `signer` and the exact message to sign. */
  async issue(signer: string, statement: string): Promise<IssuedNonce> {
    const issuedAt = new Date(Math.floor(this.clock().getTime() / 1000) * 1000);
    const record: NonceRecord = {
      nonce: randomBytes(16).toString("hex"),
      walletAddress: signer,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + NONCE_TTL_SECONDS * 1000),
    };
    await this.nonces.insert(record);
    return { nonce: record.nonce, message: this.#message(record, statement), expires_in_seconds: NONCE_TTL_SECONDS };
  }

  /**
   * Checks that the nonce is usable, was issued to one of `allowed` (else 403 `denied`) and that `signature` is that
   * wallet's over the message with `statement`; then uses the nonce up. Returns the signer. Every check comes before
   * the nonce is used, so a refused request leaves it usable.
   */
  async prove(
    nonce: string,
    signature: string,
    allowed: readonly string[],
    statement: string,
    refusal: { denied: string; nonceRoute: string; signature: string },
  ): Promise<string> {
    const record = await this.nonces.find(nonce);
    if (!record) throw invalidField("nonce", `unknown nonce; request one from ${refusal.nonceRoute}`);
    if (record.consumedAt) throw invalidField("nonce", "already used; request a new nonce");
    if (record.expiresAt.getTime() <= this.clock().getTime()) {
      throw invalidField("nonce", `expired (valid for ${NONCE_TTL_SECONDS} seconds); request a new nonce`);
    }
    const signer = allowed.find((wallet) => wallet.toLowerCase() === record.walletAddress.toLowerCase());
    if (!signer) throw new PermissionError(refusal.denied);
    if (!(await this.verifySignature(signer, this.#message(record, statement), signature))) {
      throw invalidField("signature", refusal.signature);
    }
    if (!(await this.nonces.consume(nonce, signer, this.clock()))) {
      throw invalidField("nonce", "already used; request a new nonce");
    }
    return signer;
  }

  #message(record: NonceRecord, statement: string): string {
    return buildSignInMessage({ ...this.settings, ...record, statement });
  }
}
