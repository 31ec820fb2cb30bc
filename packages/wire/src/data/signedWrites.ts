import { z } from "zod";

/**
 * Wire shapes of the data API's signed writes (issue 30): the typed data a wallet signs (prepare), the signed message
 * it sends back (submit), and the relay that follows it. Amounts, nonces and deadlines are decimal strings (uint256
 * does not fit a JSON number); the operator authorisation's nonce is bytes32 hex, as ERC-7741 has it.
 */

/** The actions, as their paths name them: /v1/vaults/{address}/<action>. */
export const SIGNED_ACTIONS = ["deposit", "redeem", "request-redeem", "claim", "cancel-redeem"] as const;
export type SignedAction = (typeof SIGNED_ACTIONS)[number];

export const RELAY_STATUSES = ["submitted", "confirmed", "failed"] as const;
export type RelayStatus = (typeof RELAY_STATUSES)[number];

/** A required string whose absence is named plainly ("owner: required"). */
const text = () => z.string({ error: (issue) => (issue.input === undefined ? "required" : "must be a string") });

export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;
export const UINT_PATTERN = /^(0|[1-9][0-9]{0,77})$/;
/** The one wording of a malformed integer, in the prepare read, the submit and the checks behind them. */
export const UINT_MESSAGE = "must be a decimal integer without sign or leading zeros";
export const BYTES32_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** 0x and whole bytes; an EIP-1271 wallet's signature may be longer than 65 bytes (at most 4 KiB here). */
export const SIGNATURE_PATTERN = /^0x(?:[0-9a-fA-F]{2}){1,4096}$/;

const address = (description: string) =>
  text()
    .regex(ADDRESS_PATTERN, "must be a 0x address (20 bytes, hex)")
    .meta({ description, pattern: ADDRESS_PATTERN.source });
const uint = (description: string) =>
  text().regex(UINT_PATTERN, UINT_MESSAGE).meta({ description, pattern: UINT_PATTERN.source });
const signature = (description: string) =>
  text()
    .regex(SIGNATURE_PATTERN, "must be 0x hex of whole bytes (at most 4096)")
    .meta({ description, pattern: SIGNATURE_PATTERN.source });
const bytes32 = (description: string) =>
  text()
    .regex(BYTES32_PATTERN, "must be 0x and 32 bytes of hex")
    .meta({ description, pattern: BYTES32_PATTERN.source });

const owner = address("the wallet that signs and whose USDC or shares move (EOA or EIP-1271 contract wallet)");
const receiver = address("who gets the shares or assets");
const nonce = uint("the router's nonce of the owner (unordered: any unused 256-bit value), from the prepare answer");
const deadline = uint("unix seconds after which the message is refused (onchain: block.timestamp > deadline)");
const intentSignature = signature("the owner's EIP-712 signature of the intent (prepare's `intent`)");

/** EIP-2612 permit of the vault's asset, spender the router (prepare's `permit`). */
export const permitInput = z
  .strictObject({
    value: uint("allowance the permit grants the router, in the asset's base units"),
    deadline: uint("the permit's own deadline (unix seconds)"),
    signature: signature("the owner's EIP-712 signature of prepare's `permit`"),
  })
  .meta({ id: "SignedPermit" });

/** ERC-7741 authorisation making the router the owner's operator on the vault (prepare's `operator_authorization`). */
export const operatorAuthorizationInput = z
  .strictObject({
    nonce: bytes32("the ERC-7741 nonce (bytes32, used once per controller)"),
    deadline: uint("the authorisation's deadline (unix seconds)"),
    signature: signature("the owner's EIP-712 signature of prepare's `operator_authorization`"),
  })
  .meta({ id: "SignedOperatorAuthorization" });

export const signedDepositBody = z
  .strictObject({
    owner,
    amount: uint("USDC to deposit, in base units (6 decimals)"),
    receiver,
    min_shares: uint("fewest shares accepted (slippage bound; 0 for none)"),
    nonce,
    deadline,
    signature: intentSignature,
    permit: permitInput.optional(),
  })
  .meta({ id: "SignedDeposit" });

export const signedRedeemBody = z
  .strictObject({
    owner,
    shares: uint("shares to redeem, in base units"),
    receiver,
    min_assets: uint("fewest assets accepted (slippage bound; 0 for none)"),
    nonce,
    deadline,
    signature: intentSignature,
    operator_authorization: operatorAuthorizationInput.optional(),
  })
  .meta({ id: "SignedRedeem" });

export const signedRequestRedeemBody = z
  .strictObject({
    owner,
    shares: uint("shares to put in a redemption request, in base units"),
    nonce,
    deadline,
    signature: intentSignature,
    operator_authorization: operatorAuthorizationInput.optional(),
  })
  .meta({ id: "SignedRequestRedeem" });

export const signedClaimBody = z
  .strictObject({
    owner,
    shares: uint("claimable shares to redeem, in base units"),
    receiver,
    min_assets: uint("fewest assets accepted (slippage bound; 0 for none)"),
    nonce,
    deadline,
    signature: intentSignature,
    operator_authorization: operatorAuthorizationInput.optional(),
  })
  .meta({ id: "SignedClaim" });

export const signedCancelRedeemBody = z
  .strictObject({
    owner,
    receiver,
    nonce,
    deadline,
    signature: intentSignature,
    operator_authorization: operatorAuthorizationInput.optional(),
  })
  .meta({ id: "SignedCancelRedeem" });

export const SIGNED_BODIES = {
  deposit: signedDepositBody,
  redeem: signedRedeemBody,
  "request-redeem": signedRequestRedeemBody,
  claim: signedClaimBody,
  "cancel-redeem": signedCancelRedeemBody,
} as const satisfies Record<SignedAction, z.ZodType>;

export type SignedBody<A extends SignedAction> = z.output<(typeof SIGNED_BODIES)[A]>;

/** EIP-712 typed data as eth_signTypedData_v4 takes it; integers of `message` are decimal strings. */
export const typedData = z
  .object({
    domain: z.object({
      name: z.string(),
      version: z.string(),
      chainId: z.number().int(),
      verifyingContract: z.string().regex(ADDRESS_PATTERN),
    }),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    primaryType: z.string(),
    message: z.record(z.string(), z.union([z.string(), z.boolean()])),
  })
  .meta({ id: "TypedData", description: "EIP-712 typed data, ready for eth_signTypedData_v4" });

export const preparedSignedWrite = z
  .object({
    action: z.enum(SIGNED_ACTIONS),
    vault: z.string().regex(ADDRESS_PATTERN),
    chain_id: z.number().int(),
    router: z.string().regex(ADDRESS_PATTERN).meta({ description: "the NapRouter that verifies and executes" }),
    nonce: z.string().regex(UINT_PATTERN),
    deadline: z.string().regex(UINT_PATTERN),
    intent: typedData,
    permit: typedData.nullable().meta({
      description: "deposit only: the EIP-2612 permit to sign when the router's allowance is below the amount",
    }),
    operator_authorization: typedData.nullable().meta({
      description: "redemptions: the ERC-7741 authorisation to sign when the router is not yet the owner's operator",
    }),
  })
  .meta({ id: "PreparedSignedWrite" });

export const relayAccepted = z
  .object({
    relay_id: z.string().regex(BYTES32_PATTERN).meta({ description: "the intent's EIP-712 digest" }),
    status: z.enum(RELAY_STATUSES),
    tx_hash: z.string().regex(BYTES32_PATTERN).nullable(),
    status_url: z.string(),
  })
  .meta({ id: "RelayAccepted" });

export const relayView = z
  .object({
    relay_id: z.string().regex(BYTES32_PATTERN),
    action: z.enum(SIGNED_ACTIONS),
    vault: z.string().regex(ADDRESS_PATTERN),
    owner: z.string().regex(ADDRESS_PATTERN),
    status: z.enum(RELAY_STATUSES),
    tx_hash: z.string().regex(BYTES32_PATTERN).nullable(),
    block_number: z.number().int().nullable(),
    result: z
      .object({ shares: z.string().regex(UINT_PATTERN).optional(), assets: z.string().regex(UINT_PATTERN).optional() })
      .nullable()
      .meta({ description: "once confirmed: shares minted (deposit, request, cancel) or assets paid (redeem, claim)" }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: "Relay" });
