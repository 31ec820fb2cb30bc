/**
 * The EIP-712 types the router, the vault's asset (EIP-2612) and the vault (ERC-7741) verify. The SDK keeps its
 * own copy so that what it signs is never the service's word alone: a field list the service answers must equal
 * these, field for field and in order, or nothing is signed.
 */

export interface TypedDataField {
  name: string;
  type: string;
}

export interface TypedDataDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

/** EIP-712 typed data as `eth_signTypedData_v4` takes it (numbers in `message` as decimal strings). */
export interface TypedData {
  domain: TypedDataDomain;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

const fields = (...pairs: [type: string, name: string][]): TypedDataField[] =>
  pairs.map(([type, name]) => ({ name, type }));

/** The router's five intents, in the router's field order. */
export const INTENT_TYPES = {
  Deposit: fields(
    ["address", "owner"],
    ["address", "vault"],
    ["uint256", "assets"],
    ["address", "receiver"],
    ["uint256", "minShares"],
    ["uint256", "nonce"],
    ["uint256", "deadline"],
  ),
  Redeem: fields(
    ["address", "owner"],
    ["address", "vault"],
    ["uint256", "shares"],
    ["address", "receiver"],
    ["uint256", "minAssets"],
    ["uint256", "nonce"],
    ["uint256", "deadline"],
  ),
  RequestRedeem: fields(
    ["address", "owner"],
    ["address", "vault"],
    ["uint256", "shares"],
    ["uint256", "nonce"],
    ["uint256", "deadline"],
  ),
  Claim: fields(
    ["address", "owner"],
    ["address", "vault"],
    ["uint256", "shares"],
    ["address", "receiver"],
    ["uint256", "minAssets"],
    ["uint256", "nonce"],
    ["uint256", "deadline"],
  ),
  CancelRedeem: fields(
    ["address", "owner"],
    ["address", "vault"],
    ["address", "receiver"],
    ["uint256", "nonce"],
    ["uint256", "deadline"],
  ),
} as const satisfies Record<string, TypedDataField[]>;

export type IntentType = keyof typeof INTENT_TYPES;

/** EIP-2612 on the vault's asset: lets the router pull the deposit without an approve transaction (and its gas). */
export const PERMIT_TYPES = {
  Permit: fields(
    ["address", "owner"],
    ["address", "spender"],
    ["uint256", "value"],
    ["uint256", "nonce"],
    ["uint256", "deadline"],
  ),
} as const;

/** ERC-7741 on the vault: makes the router the owner's ERC-7540 operator, which every exit of the vault honours. */
export const OPERATOR_TYPES = {
  AuthorizeOperator: fields(
    ["address", "controller"],
    ["address", "operator"],
    ["bool", "approved"],
    ["bytes32", "nonce"],
    ["uint256", "deadline"],
  ),
} as const;

/** The router's EIP-712 domain name and version (chain id and address come from the deployment). */
export const ROUTER_DOMAIN = { name: "NAP Router", version: "1" } as const;
/** ERC-7741's domain version on the vault (its name is the share token's name). */
export const OPERATOR_DOMAIN_VERSION = "1";
