import type { IntentType } from "./typedData";

/**
 * The five signed writes as data: the route's segment, the router's primary type, and each value the caller gives
 * with its name in the SDK, on the wire (query and body) and in the signed message. The prepare query, the message
 * the SDK expects and the submit body are all read from this one table.
 */

export type Amount = bigint | string | number;

export interface DepositRequest {
  /** The vault's address (or its deployment id, which the service resolves). */
  vault: string;
  /** Assets in base units (USDC has 6 decimals). */
  amount: Amount;
  /** Who gets the shares (default: the signer). */
  receiver?: string;
  /** The fewest shares accepted, else the router reverts (default 0). */
  minShares?: Amount;
}

export interface RedeemRequest {
  vault: string;
  /** Shares in base units. */
  shares: Amount;
  /** Who gets the assets (default: the signer). */
  receiver?: string;
  /** The fewest assets accepted (default 0). */
  minAssets?: Amount;
}

export interface RequestRedeemRequest {
  vault: string;
  shares: Amount;
}

export type ClaimRequest = RedeemRequest;

export interface CancelRedeemRequest {
  vault: string;
  /** Who gets the shares back (default: the signer). */
  receiver?: string;
}

interface Param {
  /** The request's field. */
  sdk: string;
  /** The prepare query's and the submit body's field. */
  wire: string;
  /** The signed message's field. */
  message: string;
  kind: "uint" | "address";
  /** When the caller leaves it out: the signer's address, or zero. */
  absent?: "owner" | "zero";
}

export interface ActionSpec {
  /** The route segment: /v1/vaults/{vault}/<segment>. */
  segment: string;
  primaryType: IntentType;
  params: readonly Param[];
  /** Whether the answer may carry an EIP-2612 permit (deposits) or else an ERC-7741 operator authorisation. */
  extra: "permit" | "operator_authorization";
}

const receiver: Param = { sdk: "receiver", wire: "receiver", message: "receiver", kind: "address", absent: "owner" };
const shares: Param = { sdk: "shares", wire: "shares", message: "shares", kind: "uint" };
const minAssets: Param = { sdk: "minAssets", wire: "min_assets", message: "minAssets", kind: "uint", absent: "zero" };

export const ACTIONS = {
  deposit: {
    segment: "deposit",
    primaryType: "Deposit",
    params: [
      { sdk: "amount", wire: "amount", message: "assets", kind: "uint" },
      receiver,
      { sdk: "minShares", wire: "min_shares", message: "minShares", kind: "uint", absent: "zero" },
    ],
    extra: "permit",
  },
  redeem: {
    segment: "redeem",
    primaryType: "Redeem",
    params: [shares, receiver, minAssets],
    extra: "operator_authorization",
  },
  requestRedeem: {
    segment: "request-redeem",
    primaryType: "RequestRedeem",
    params: [shares],
    extra: "operator_authorization",
  },
  claim: {
    segment: "claim",
    primaryType: "Claim",
    params: [shares, receiver, minAssets],
    extra: "operator_authorization",
  },
  cancelRedeem: {
    segment: "cancel-redeem",
    primaryType: "CancelRedeem",
    params: [receiver],
    extra: "operator_authorization",
  },
} as const satisfies Record<string, ActionSpec>;

export type ActionName = keyof typeof ACTIONS;

export interface ActionRequests {
  deposit: DepositRequest;
  redeem: RedeemRequest;
  requestRedeem: RequestRedeemRequest;
  claim: ClaimRequest;
  cancelRedeem: CancelRedeemRequest;
}

const UINT = /^(0|[1-9]\d*)$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/** A base-unit amount as the API's decimal string; a negative, fractional or oversized one is refused here. */
export function decimalAmount(name: string, value: Amount): string {
  const text = typeof value === "number" && !Number.isSafeInteger(value) ? "" : String(value);
  if (!UINT.test(text) || BigInt(text) > MAX_UINT256) {
    throw new TypeError(`${name} must be a whole number of base units (a bigint or decimal string), got ${value}`);
  }
  return text;
}

export function isAddress(value: unknown): value is string {
  return typeof value === "string" && ADDRESS.test(value);
}

/** The values asked, as the wire writes them: decimal strings and addresses, with the defaults filled in. */
export function askedValues(spec: ActionSpec, request: object, owner: string): Map<Param, string> {
  const given = request as Record<string, Amount | undefined>;
  return new Map(
    spec.params.map((param) => {
      const value = given[param.sdk];
      if (value === undefined) {
        if (!param.absent) throw new TypeError(`${param.sdk} is required`);
        return [param, param.absent === "owner" ? owner : "0"];
      }
      if (param.kind === "uint") return [param, decimalAmount(param.sdk, value)];
      if (!isAddress(value)) throw new TypeError(`${param.sdk} must be a 0x address, got ${String(value)}`);
      return [param, value];
    }),
  );
}
