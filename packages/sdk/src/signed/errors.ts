import type { components } from "../dataOpenapi";

/** Errors of the signed writes that are the SDK's own, not an answer of the API (those stay NapApiErrors). */

/**
 * The typed data the service prepared does not say what was asked (another owner, vault, amount, receiver, chain,
 * router, spender or operator): nothing was signed, and nothing was sent.
 */
export class NapTypedDataMismatchError extends Error {
  constructor(
    /** The prepare route that answered, for logs. */
    readonly request: string,
    /** Each difference, naming the field, what the service answered and what was asked. */
    readonly problems: readonly string[],
  ) {
    super(
      `${request}: the service's typed data does not match the request; nothing was signed: ${problems.join("; ")}`,
    );
    this.name = new.target.name;
  }
}

/** GET /v1/relays/{relay_id}: a signed write's relay (the type generated from the data API's document). */
export type RelayState = components["schemas"]["Relay"];

/** A relay that failed onchain, or that was not final within the wait. */
export class NapRelayError extends Error {
  constructor(
    message: string,
    /** "failed": the transaction reverted or was dropped; "timeout": still submitted when the wait ended. */
    readonly reason: "failed" | "timeout",
    /** The relay as last read. */
    readonly relay: RelayState,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
