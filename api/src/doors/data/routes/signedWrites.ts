import { z } from "zod";
import { NotConfiguredError } from "../../../errors";
import type { SignedWrites } from "../../../usecases/signedWrites";
import * as schemas from "../../../../../packages/wire/src/data";
import { IDEMPOTENCY_HEADER } from "../../../../../packages/wire/src/idempotency";
import { idempotencyHeaders } from "../../../../../packages/wire/src/live/schemas";
import { defineRoute, type RouteDefinition } from "../../route";
import { invalid } from "../errors";
import { DATA_TAG, addressParams } from "./shared";

/**
 * The data API's signed writes (issue 30; docs/data-api.md, "Signed writes"): per action a prepare read that answers
 * the EIP-712 typed data to sign, and a submit that checks the signed message and has the relayer send it to the
 * NapRouter (202 with the relay); and the relay's status. A key is optional (the signature is the authority); one
 * that is given must hold vaults:write for a submit, vaults:read for the reads.
 */

export interface SignedWriteDeps {
  /** Absent where the routes are only declared (the OpenAPI document). */
  signedWrites?: SignedWrites;
}

const required = (description: string, pattern: RegExp) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "required" : "must be given once") })
    .regex(pattern, pattern === schemas.ADDRESS_PATTERN ? "must be a 0x address (20 bytes, hex)" : schemas.UINT_MESSAGE)
    .meta({ description, pattern: pattern.source });
const optional = (description: string, pattern: RegExp) => required(description, pattern).optional();

const owner = required("the wallet that will sign", schemas.ADDRESS_PATTERN);
const receiver = optional("who gets the shares or assets (default: the owner)", schemas.ADDRESS_PATTERN);

/** The prepare read's query of each action (the names of the submit's body fields). */
const PREPARE_QUERIES = {
  deposit: z.strictObject({
    owner,
    amount: required("USDC to deposit, base units", schemas.UINT_PATTERN),
    receiver,
    min_shares: optional("fewest shares accepted (default 0)", schemas.UINT_PATTERN),
  }),
  redeem: z.strictObject({
    owner,
    shares: required("shares to redeem, base units", schemas.UINT_PATTERN),
    receiver,
    min_assets: optional("fewest assets accepted (default 0)", schemas.UINT_PATTERN),
  }),
  "request-redeem": z.strictObject({
    owner,
    shares: required("shares to request, base units", schemas.UINT_PATTERN),
  }),
  claim: z.strictObject({
    owner,
    shares: required("claimable shares to redeem, base units", schemas.UINT_PATTERN),
    receiver,
    min_assets: optional("fewest assets accepted (default 0)", schemas.UINT_PATTERN),
  }),
  "cancel-redeem": z.strictObject({ owner, receiver }),
} as const satisfies Record<schemas.SignedAction, z.ZodType>;

const SUMMARIES: Record<schemas.SignedAction, string> = {
  deposit: "deposit USDC into a vault",
  redeem: "redeem shares of a synchronous vault",
  "request-redeem": "request a redemption from an ERC-7540 vault",
  claim: "claim a fulfilled redemption of an ERC-7540 vault",
  "cancel-redeem": "cancel a pending redemption request and take the shares back",
};

/** The codes both the prepare read and the submit may answer. */
const COMMON_ERRORS = [
  "INVALID_ADDRESS",
  "VAULT_NOT_FOUND",
  "WRONG_VAULT_KIND",
  "UNKNOWN_PARAMETER",
  "SERVICE_UNAVAILABLE",
];

const FIELD_ERRORS: Record<schemas.SignedAction, string[]> = {
  deposit: ["INVALID_OWNER", "INVALID_AMOUNT", "INVALID_RECEIVER", "INVALID_MIN_SHARES"],
  redeem: ["INVALID_OWNER", "INVALID_SHARES", "INVALID_RECEIVER", "INVALID_MIN_ASSETS"],
  "request-redeem": ["INVALID_OWNER", "INVALID_SHARES"],
  claim: ["INVALID_OWNER", "INVALID_SHARES", "INVALID_RECEIVER", "INVALID_MIN_ASSETS"],
  "cancel-redeem": ["INVALID_OWNER", "INVALID_RECEIVER"],
};

const SUBMIT_ERRORS: Record<schemas.SignedAction, string[]> = {
  deposit: ["INVALID_PERMIT", "INSUFFICIENT_BALANCE", "INSUFFICIENT_ALLOWANCE"],
  redeem: ["INVALID_OPERATOR_AUTHORIZATION", "OPERATOR_NOT_AUTHORIZED", "INSUFFICIENT_BALANCE"],
  "request-redeem": ["INVALID_OPERATOR_AUTHORIZATION", "OPERATOR_NOT_AUTHORIZED", "INSUFFICIENT_BALANCE"],
  claim: ["INVALID_OPERATOR_AUTHORIZATION", "OPERATOR_NOT_AUTHORIZED", "NOTHING_TO_CLAIM"],
  "cancel-redeem": ["INVALID_OPERATOR_AUTHORIZATION", "OPERATOR_NOT_AUTHORIZED", "NOTHING_TO_CANCEL"],
};

const relayParams = z.strictObject({
  relay_id: z.string().meta({ description: "the relay's id: the intent's EIP-712 digest (0x and 64 hex)" }),
});

export function signedWriteRoutes(deps: SignedWriteDeps): RouteDefinition[] {
  const writes = (): SignedWrites => {
    if (!deps.signedWrites) throw new NotConfiguredError("signed writes are not available on this instance");
    return deps.signedWrites;
  };
  const routes: RouteDefinition[] = [];
  for (const action of schemas.SIGNED_ACTIONS) {
    routes.push(
      defineRoute({
        method: "get",
        path: `/v1/vaults/:address/${action}/typed-data`,
        tag: DATA_TAG,
        scope: "vaults:read",
        summary: `The EIP-712 typed data to sign to ${SUMMARIES[action]}`,
        description:
          "A fresh router nonce, a deadline 30 minutes ahead of the chain's time, and the EIP-2612 permit (deposit, " +
          "when the router's allowance is short) or ERC-7741 operator authorisation (redemptions, when the router " +
          "is not yet the owner's operator) to sign with it. Sign each with eth_signTypedData_v4, then POST them.",
        params: addressParams,
        query: PREPARE_QUERIES[action],
        responses: { 200: { description: "OK", schema: schemas.preparedSignedWrite } },
        errors: [...COMMON_ERRORS, ...FIELD_ERRORS[action]],
        noStore: true,
        handler: ({ params, query }) =>
          writes().prepare(action, params.address, query as Parameters<SignedWrites["prepare"]>[2]),
      }),
      defineRoute({
        method: "post",
        path: `/v1/vaults/:address/${action}`,
        tag: DATA_TAG,
        scope: "vaults:write",
        summary: `Relay a signed message to ${SUMMARIES[action]}`,
        description:
          "Checked before any gas is spent (deadline, signature, nonce, vault, balance, allowance or operator), then " +
          "sent to the NapRouter by the service's relayer, which pays the gas. 202 once the transaction has its " +
          "hash; follow status_url. The same message again, or the same Idempotency-Key, answers the same relay. " +
          "The same body can be sent to the router directly (docs/data-api.md).",
        params: addressParams,
        headers: idempotencyHeaders,
        body: schemas.SIGNED_BODIES[action],
        responses: { 202: { description: "Accepted: submitted to the chain", schema: schemas.relayAccepted } },
        errors: [
          ...COMMON_ERRORS,
          ...FIELD_ERRORS[action],
          "INVALID_NONCE",
          "INVALID_DEADLINE",
          "INVALID_SIGNATURE",
          "INVALID_IDEMPOTENCY_KEY",
          "SIGNATURE_EXPIRED",
          "NONCE_USED",
          ...SUBMIT_ERRORS[action],
          "TRANSACTION_REVERTED",
          "IDEMPOTENCY_KEY_REUSED",
        ],
        noStore: true,
        handler: async ({ params, headers, body, ctx }) => {
          const key = (headers as Record<string, string | undefined>)[IDEMPOTENCY_HEADER];
          const accepted = await writes().submit(action, params.address, body as never, key);
          ctx.status = 202;
          ctx.set("Location", accepted.status_url);
          ctx.body = accepted;
          return undefined;
        },
      }),
    );
  }
  routes.push(
    defineRoute({
      method: "get",
      path: "/v1/relays/:relay_id",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "A relayed signed write: submitted, confirmed (with the shares or assets) or failed (with why)",
      params: relayParams,
      responses: { 200: { description: "OK", schema: schemas.relayView } },
      errors: ["INVALID_RELAY_ID", "RELAY_NOT_FOUND", "SERVICE_UNAVAILABLE"],
      noStore: true,
      handler: ({ params }) => {
        if (!schemas.BYTES32_PATTERN.test(params.relay_id)) {
          throw invalid("INVALID_RELAY_ID", "relay_id: must be 0x and 64 hex characters (the intent's digest)", {
            field: "relay_id",
          });
        }
        return writes().relay(params.relay_id);
      },
    }),
  );
  return routes;
}
