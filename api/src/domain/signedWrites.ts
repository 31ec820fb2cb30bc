import { getAddress, TypedDataEncoder, type TypedDataDomain, type TypedDataField } from "ethers";
import type { SignedAction } from "../../../packages/wire/src/data/signedWrites";

/**
 * The messages of the signed writes (issue 30; design: /docs/data-api.md, "Signed writes"): the NapRouter's EIP-712
 * intents, the asset's EIP-2612 permit and the vault's ERC-7741 operator authorisation. Types and field order are the
 * contracts' own; a digest computed here is the one the router checks, and the relay's id.
 */

export const ROUTER_DOMAIN_NAME = "NAP Router";
export const ROUTER_DOMAIN_VERSION = "1";

/** The router's primary type of each action, with its fields in the contract's order. */
export const INTENT_TYPES: Readonly<Record<SignedAction, { primaryType: string; fields: readonly TypedDataField[] }>> =
  {
    deposit: {
      primaryType: "Deposit",
      fields: [
        { name: "owner", type: "address" },
        { name: "vault", type: "address" },
        { name: "assets", type: "uint256" },
        { name: "receiver", type: "address" },
        { name: "minShares", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    redeem: {
      primaryType: "Redeem",
      fields: [
        { name: "owner", type: "address" },
        { name: "vault", type: "address" },
        { name: "shares", type: "uint256" },
        { name: "receiver", type: "address" },
        { name: "minAssets", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    "request-redeem": {
      primaryType: "RequestRedeem",
      fields: [
        { name: "owner", type: "address" },
        { name: "vault", type: "address" },
        { name: "shares", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    claim: {
      primaryType: "Claim",
      fields: [
        { name: "owner", type: "address" },
        { name: "vault", type: "address" },
        { name: "shares", type: "uint256" },
        { name: "receiver", type: "address" },
        { name: "minAssets", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    "cancel-redeem": {
      primaryType: "CancelRedeem",
      fields: [
        { name: "owner", type: "address" },
        { name: "vault", type: "address" },
        { name: "receiver", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
  };

export const PERMIT_FIELDS: readonly TypedDataField[] = [
  { name: "owner", type: "address" },
  { name: "spender", type: "address" },
  { name: "value", type: "uint256" },
  { name: "nonce", type: "uint256" },
  { name: "deadline", type: "uint256" },
];

/** ERC-7741's AuthorizeOperator. */
export const AUTHORIZE_OPERATOR_FIELDS: readonly TypedDataField[] = [
  { name: "controller", type: "address" },
  { name: "operator", type: "address" },
  { name: "approved", type: "bool" },
  { name: "nonce", type: "bytes32" },
  { name: "deadline", type: "uint256" },
];

/** Actions on a synchronous vault; the others need an ERC-7540 vault. */
export const SYNC_ACTIONS: readonly SignedAction[] = ["deposit", "redeem"];
/** Deposits take USDC on both kinds of vault. */
export function wantsAsyncVault(action: SignedAction): boolean | null {
  if (action === "deposit") return null;
  return !SYNC_ACTIONS.includes(action);
}

/** One intent, as the router's struct holds it (addresses checksummed). */
export interface Intent {
  action: SignedAction;
  owner: string;
  vault: string;
  /** deposit: assets; redeem, request, claim: shares; cancel: none. */
  amount: bigint | null;
  receiver: string | null;
  /** deposit: minShares; redeem and claim: minAssets. */
  minimum: bigint | null;
  nonce: bigint;
  deadline: bigint;
}

export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

export interface TypedDataMessage {
  domain: Eip712Domain;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, string | boolean>;
}

export function routerDomain(chainId: number, router: string): Eip712Domain {
  return { name: ROUTER_DOMAIN_NAME, version: ROUTER_DOMAIN_VERSION, chainId, verifyingContract: getAddress(router) };
}

/** The struct the router takes for an intent, by field name (integers as bigint). */
export function intentStruct(intent: Intent): Record<string, string | bigint> {
  const { primaryType } = INTENT_TYPES[intent.action];
  const base = { owner: intent.owner, vault: intent.vault };
  const tail = { nonce: intent.nonce, deadline: intent.deadline };
  switch (primaryType) {
    case "Deposit":
      return {
        ...base,
        assets: need(intent.amount),
        receiver: need(intent.receiver),
        minShares: need(intent.minimum),
        ...tail,
      };
    case "RequestRedeem":
      return { ...base, shares: need(intent.amount), ...tail };
    case "CancelRedeem":
      return { ...base, receiver: need(intent.receiver), ...tail };
    default:
      return {
        ...base,
        shares: need(intent.amount),
        receiver: need(intent.receiver),
        minAssets: need(intent.minimum),
        ...tail,
      };
  }
}

function need<T>(value: T | null): T {
  if (value === null) throw new Error("internal: an intent field its action needs is missing");
  return value;
}

/** Integers as decimal strings, as eth_signTypedData_v4 and JSON carry them. */
function wire(values: Record<string, string | bigint | boolean>): Record<string, string | boolean> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [name, typeof value === "bigint" ? value.toString() : value]),
  );
}

function withDomainType(primaryType: string, fields: readonly TypedDataField[]): Record<string, TypedDataField[]> {
  return {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    [primaryType]: [...fields],
  };
}

export function intentTypedData(domain: Eip712Domain, intent: Intent): TypedDataMessage {
  const { primaryType, fields } = INTENT_TYPES[intent.action];
  return { domain, types: withDomainType(primaryType, fields), primaryType, message: wire(intentStruct(intent)) };
}

/** The intent's EIP-712 digest: what the owner signs, what the router checks, the relay's id. */
export function intentDigest(domain: Eip712Domain, intent: Intent): string {
  const { primaryType, fields } = INTENT_TYPES[intent.action];
  return TypedDataEncoder.hash(domain as TypedDataDomain, { [primaryType]: [...fields] }, intentStruct(intent));
}

export interface PermitFields {
  owner: string;
  spender: string;
  value: bigint;
  nonce: bigint;
  deadline: bigint;
}

export function permitTypedData(domain: Eip712Domain, permit: PermitFields): TypedDataMessage {
  return {
    domain,
    types: withDomainType("Permit", PERMIT_FIELDS),
    primaryType: "Permit",
    message: wire({ ...permit }),
  };
}

export function permitDigest(domain: Eip712Domain, permit: PermitFields): string {
  return TypedDataEncoder.hash(domain as TypedDataDomain, { Permit: [...PERMIT_FIELDS] }, { ...permit });
}

export interface OperatorAuthorizationFields {
  controller: string;
  operator: string;
  approved: boolean;
  nonce: string;
  deadline: bigint;
}

export function operatorAuthorizationTypedData(
  domain: Eip712Domain,
  authorization: OperatorAuthorizationFields,
): TypedDataMessage {
  return {
    domain,
    types: withDomainType("AuthorizeOperator", AUTHORIZE_OPERATOR_FIELDS),
    primaryType: "AuthorizeOperator",
    message: wire({ ...authorization }),
  };
}

export function operatorAuthorizationDigest(domain: Eip712Domain, authorization: OperatorAuthorizationFields): string {
  return TypedDataEncoder.hash(
    domain as TypedDataDomain,
    { AuthorizeOperator: [...AUTHORIZE_OPERATOR_FIELDS] },
    { ...authorization },
  );
}

/** Whether a deadline (unix seconds) is past for a transaction mined after the block of `now`. */
export function isExpired(deadline: bigint, now: bigint): boolean {
  // The next block's timestamp is at least now + 1; the contracts refuse block.timestamp > deadline.
  return deadline <= now;
}
