import { isAddress, type ActionSpec } from "./actions";
import {
  INTENT_TYPES,
  OPERATOR_DOMAIN_VERSION,
  OPERATOR_TYPES,
  PERMIT_TYPES,
  ROUTER_DOMAIN,
  type TypedData,
  type TypedDataField,
} from "./typedData";

/**
 * Before anything is signed: does the typed data the service prepared say what was asked? Each message is rebuilt
 * here from the request (owner = the signer, vault, amounts, receiver) and the service's nonce and deadline, and
 * compared field by field with the service's; the domains must name the chain and contracts expected, the types
 * must be the SDK's own. A service that is wrong or hostile (another receiver, an unlimited permit to a stranger,
 * an operator that is not the router, another chain) is refused with every difference named. What gets signed is
 * the SDK's rebuilt typed data, so nothing the service added rides along.
 */

/** The prepare route's answer (GET /v1/vaults/{vault}/<action>/typed-data). */
export interface PreparedWrite {
  action: string;
  vault: string;
  chain_id: number;
  router: string;
  nonce: string;
  deadline: string | number;
  intent: TypedData;
  permit: TypedData | null;
  operator_authorization: TypedData | null;
}

export interface Expectations {
  spec: ActionSpec;
  owner: string;
  vault: string;
  /** What the caller asked, by the message's field name (decimal strings and addresses). */
  asked: Record<string, string>;
  /** The chain id the caller expects, when given; otherwise the service's, which must then be the same everywhere. */
  chainId?: number;
  /** The router the caller expects, when given; otherwise the one the service names. */
  router?: string;
  /** Deposits: the assets a permit must allow the router, exactly. */
  permitValue?: string;
  /**
   * Unix seconds now, and the longest validity accepted for a deadline. Without a bound, deadlines are not held to
   * this machine's clock: the service dates them by the chain's, which a test chain moves ahead at will.
   */
  nowSeconds: number;
  maxValiditySeconds?: number;
}

export interface CheckedWrite {
  intent: TypedData;
  permit: TypedData | null;
  operatorAuthorization: TypedData | null;
}

const UINT = /^(0|[1-9]\d*)$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

const sameAddress = (a: unknown, b: string) => isAddress(a) && a.toLowerCase() === b.toLowerCase();
const uintText = (value: unknown): string | undefined =>
  typeof value === "string" && UINT.test(value)
    ? value
    : typeof value === "number" && Number.isSafeInteger(value) && value >= 0
      ? String(value)
      : undefined;
const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

class Findings {
  readonly problems: string[] = [];
  constructor(private readonly nowSeconds: number) {}

  differ(where: string, answered: unknown, asked: string): void {
    this.problems.push(`${where} is ${show(answered)}, asked ${asked}`);
  }

  address(where: string, answered: unknown, asked: string): void {
    if (!sameAddress(answered, asked)) this.differ(where, answered, asked);
  }

  uint(where: string, answered: unknown, asked: string): void {
    if (uintText(answered) === undefined || BigInt(uintText(answered)!) !== BigInt(asked)) {
      this.differ(where, answered, asked);
    }
  }

  deadline(where: string, answered: unknown, maxValiditySeconds: number | undefined): void {
    const text = uintText(answered);
    const deadline = text === undefined ? undefined : BigInt(text);
    if (deadline === undefined) {
      this.differ(where, answered, "a uint256");
    } else if (maxValiditySeconds === undefined) {
      return;
    } else if (deadline <= BigInt(this.nowSeconds)) {
      this.problems.push(`${where} is ${show(answered)}, which has passed or is not a time`);
    } else if (deadline > BigInt(this.nowSeconds + maxValiditySeconds)) {
      this.problems.push(`${where} is ${show(answered)}, more than ${maxValiditySeconds} s from now`);
    }
  }

  types(where: string, data: TypedData, expected: Record<string, readonly TypedDataField[]>): boolean {
    const [primaryType] = Object.keys(expected);
    if (data.primaryType !== primaryType) this.differ(`${where}.primaryType`, data.primaryType, primaryType);
    const answered = Object.entries(data.types ?? {}).filter(([name]) => name !== "EIP712Domain");
    const same =
      answered.length === 1 &&
      answered[0][0] === primaryType &&
      JSON.stringify(answered[0][1].map(({ name, type }) => ({ name, type }))) ===
        JSON.stringify(expected[primaryType]);
    if (!same) this.problems.push(`${where}.types are not ${primaryType}'s fields (${fieldList(expected)})`);
    return same && data.primaryType === primaryType;
  }

  domain(where: string, data: TypedData, chainId: number, contract: string, name?: string, version?: string): void {
    const domain = (data.domain ?? {}) as unknown as Record<string, unknown>;
    const keys = Object.keys(domain).sort().join(",");
    if (keys !== "chainId,name,verifyingContract,version") {
      this.problems.push(`${where}.domain has fields ${keys}, not chainId,name,verifyingContract,version`);
    }
    if (uintText(domain.chainId) !== String(chainId))
      this.differ(`${where}.domain.chainId`, domain.chainId, String(chainId));
    this.address(`${where}.domain.verifyingContract`, domain.verifyingContract, contract);
    if (name !== undefined && domain.name !== name) this.differ(`${where}.domain.name`, domain.name, name);
    if (version !== undefined && domain.version !== version)
      this.differ(`${where}.domain.version`, domain.version, version);
    if (typeof domain.name !== "string" || typeof domain.version !== "string") {
      this.problems.push(`${where}.domain's name and version must be strings`);
    }
  }

  onlyFields(where: string, message: Record<string, unknown>, fields: readonly TypedDataField[]): void {
    const extra = Object.keys(message).filter((key) => !fields.some((field) => field.name === key));
    if (extra.length > 0) this.problems.push(`${where}.message has fields the type does not: ${extra.join(", ")}`);
  }
}

const fieldList = (types: Record<string, readonly TypedDataField[]>) =>
  Object.values(types)[0]
    .map(({ type, name }) => `${type} ${name}`)
    .join(",");

/** The typed data to sign, rebuilt from what was asked; or the list of what the service answered otherwise. */
export function checkPrepared(prepared: PreparedWrite, expected: Expectations): CheckedWrite | { problems: string[] } {
  const found = new Findings(expected.nowSeconds);
  const { spec, owner, vault } = expected;
  const chainId = expected.chainId ?? prepared.chain_id;
  const router = expected.router ?? prepared.router;
  if (!isAddress(router)) return { problems: [`router is ${show(prepared.router)}, not an address`] };
  if (!Number.isSafeInteger(chainId)) return { problems: [`chain_id is ${show(prepared.chain_id)}, not a chain id`] };
  if (expected.chainId !== undefined && prepared.chain_id !== expected.chainId) {
    found.differ("chain_id", prepared.chain_id, String(expected.chainId));
  }
  if (expected.router !== undefined) found.address("router", prepared.router, expected.router);
  found.address("vault", prepared.vault, vault);

  const intent = prepared.intent;
  const intentTypes = { [spec.primaryType]: INTENT_TYPES[spec.primaryType] };
  const nonce = uintText(intent?.message?.nonce);
  const deadline = uintText(intent?.message?.deadline);
  if (!intent || typeof intent.message !== "object" || intent.message === null) {
    return { problems: [...found.problems, "intent is missing"] };
  }
  found.types("intent", intent, intentTypes);
  found.domain("intent", intent, chainId, router, ROUTER_DOMAIN.name, ROUTER_DOMAIN.version);
  found.onlyFields("intent", intent.message, INTENT_TYPES[spec.primaryType]);
  found.address("intent.message.owner", intent.message.owner, owner);
  found.address("intent.message.vault", intent.message.vault, vault);
  for (const [field, value] of Object.entries(expected.asked)) {
    const where = `intent.message.${field}`;
    if (isAddress(value)) found.address(where, intent.message[field], value);
    else found.uint(where, intent.message[field], value);
  }
  if (nonce === undefined) found.differ("intent.message.nonce", intent.message.nonce, "a uint256");
  else found.uint("nonce", prepared.nonce, nonce);
  found.deadline("intent.message.deadline", intent.message.deadline, expected.maxValiditySeconds);
  if (deadline !== undefined) found.uint("deadline", prepared.deadline, deadline);

  const other = spec.extra === "permit" ? prepared.operator_authorization : prepared.permit;
  if (other !== null && other !== undefined) {
    found.problems.push(`${spec.extra === "permit" ? "operator_authorization" : "permit"} is not part of this action`);
  }
  const permit = spec.extra === "permit" ? checkPermit(found, prepared.permit, expected, chainId, router) : null;
  const operator =
    spec.extra === "operator_authorization"
      ? checkOperator(found, prepared.operator_authorization, expected, chainId, router)
      : null;
  if (found.problems.length > 0) return { problems: found.problems };

  const message: Record<string, unknown> = { owner, vault, ...expected.asked, nonce, deadline };
  return {
    intent: {
      domain: { ...ROUTER_DOMAIN, chainId, verifyingContract: router },
      types: intentTypes,
      primaryType: spec.primaryType,
      message: Object.fromEntries(INTENT_TYPES[spec.primaryType].map(({ name }) => [name, message[name]])),
    },
    permit,
    operatorAuthorization: operator,
  };
}

/** EIP-2612: from the owner to the router, exactly the deposit. */
function checkPermit(
  found: Findings,
  permit: TypedData | null | undefined,
  expected: Expectations,
  chainId: number,
  router: string,
): TypedData | null {
  if (permit === null || permit === undefined) return null;
  if (typeof permit.message !== "object" || permit.message === null) {
    found.problems.push("permit.message is missing");
    return null;
  }
  if (!found.types("permit", permit, PERMIT_TYPES)) return null;
  // The token is the service's word: a permit of another token would give the router an allowance it never uses,
  // since the router pulls only the vault's own asset, and only as a signed intent says.
  const contract = String(permit.domain?.verifyingContract);
  found.domain("permit", permit, chainId, contract);
  found.onlyFields("permit", permit.message, PERMIT_TYPES.Permit);
  found.address("permit.message.owner", permit.message.owner, expected.owner);
  found.address("permit.message.spender", permit.message.spender, router);
  found.uint("permit.message.value", permit.message.value, expected.permitValue ?? "0");
  if (uintText(permit.message.nonce) === undefined)
    found.differ("permit.message.nonce", permit.message.nonce, "a uint256");
  found.deadline("permit.message.deadline", permit.message.deadline, expected.maxValiditySeconds);
  return {
    domain: {
      name: String(permit.domain.name),
      version: String(permit.domain.version),
      chainId,
      verifyingContract: contract,
    },
    types: { Permit: [...PERMIT_TYPES.Permit] },
    primaryType: "Permit",
    message: {
      owner: expected.owner,
      spender: router,
      value: expected.permitValue,
      nonce: uintText(permit.message.nonce),
      deadline: uintText(permit.message.deadline),
    },
  };
}

/** ERC-7741: the owner makes the router (and no one else) its operator on this vault. */
function checkOperator(
  found: Findings,
  authorization: TypedData | null | undefined,
  expected: Expectations,
  chainId: number,
  router: string,
): TypedData | null {
  if (authorization === null || authorization === undefined) return null;
  if (typeof authorization.message !== "object" || authorization.message === null) {
    found.problems.push("operator_authorization.message is missing");
    return null;
  }
  if (!found.types("operator_authorization", authorization, OPERATOR_TYPES)) return null;
  const where = "operator_authorization";
  found.domain(where, authorization, chainId, expected.vault, undefined, OPERATOR_DOMAIN_VERSION);
  found.onlyFields(where, authorization.message, OPERATOR_TYPES.AuthorizeOperator);
  const message = authorization.message;
  found.address(`${where}.message.controller`, message.controller, expected.owner);
  found.address(`${where}.message.operator`, message.operator, router);
  if (message.approved !== true) found.differ(`${where}.message.approved`, message.approved, "true");
  if (typeof message.nonce !== "string" || !BYTES32.test(message.nonce)) {
    found.differ(`${where}.message.nonce`, message.nonce, "a bytes32");
  }
  found.deadline(`${where}.message.deadline`, message.deadline, expected.maxValiditySeconds);
  return {
    domain: {
      name: String(authorization.domain.name),
      version: OPERATOR_DOMAIN_VERSION,
      chainId,
      verifyingContract: expected.vault,
    },
    types: { AuthorizeOperator: [...OPERATOR_TYPES.AuthorizeOperator] },
    primaryType: "AuthorizeOperator",
    message: {
      controller: expected.owner,
      operator: router,
      approved: true,
      nonce: message.nonce,
      deadline: uintText(message.deadline),
    },
  };
}
