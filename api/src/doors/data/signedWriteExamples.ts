import {
  intentTypedData,
  operatorAuthorizationTypedData,
  permitTypedData,
  routerDomain,
  type Eip712Domain,
  type Intent,
} from "../../domain/signedWrites";
import type { SignedAction } from "../../../../packages/wire/src/data/signedWrites";
import type { ExampleTable } from "../examples";
import { dataError, type DataErrorExample } from "./errorExample";

/**
 * Examples of the signed writes (doors/examples.ts) on a local stack (chain 31337): a wallet that never registered
 * deposits 25 USDC into the moderate vault with a permit and redeems from it, and requests, claims and cancels on the
 * aggressive (ERC-7540) vault, the first redemption carrying the ERC-7741 operator authorisation. The typed data is
 * built by the functions the service uses; the signatures are that wallet's.
 */

const OWNER = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
const ROUTER = "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707";
const SYNC_VAULT = "0x851356ae760d987E095750cCeb3bC6014560891C";
const ASYNC_VAULT = "0xc3e53F4d16Ae77Db1c982e75a937B9f60FE63690";
const USDC = "0xa513E6E4b8f2a923D98304ec87F64353C4D5C853";
const DEADLINE = 1795711980n;
const NONCE = 73048216903520113871436021186307651797548301519235462219463582513474133318771n;
const AUTHORIZATION_NONCE = "0x5be7e3c1a64c3d4fb2d1e8f0a39c4b7d6e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b";
const TX_HASH = "0x9a3f0c52a1b7e4d8c6f2e0b9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9";

const INTENTS: Record<SignedAction, Intent> = {
  deposit: {
    action: "deposit",
    owner: OWNER,
    vault: SYNC_VAULT,
    amount: 25_000_000n,
    receiver: OWNER,
    minimum: 0n,
    nonce: NONCE,
    deadline: DEADLINE,
  },
  redeem: {
    action: "redeem",
    owner: OWNER,
    vault: SYNC_VAULT,
    amount: 10_000_000_000_000n,
    receiver: OWNER,
    minimum: 0n,
    nonce: NONCE + 1n,
    deadline: DEADLINE,
  },
  "request-redeem": {
    action: "request-redeem",
    owner: OWNER,
    vault: ASYNC_VAULT,
    amount: 12_500_000_000_000n,
    receiver: null,
    minimum: null,
    nonce: NONCE + 2n,
    deadline: DEADLINE,
  },
  claim: {
    action: "claim",
    owner: OWNER,
    vault: ASYNC_VAULT,
    amount: 12_500_000_000_000n,
    receiver: OWNER,
    minimum: 0n,
    nonce: NONCE + 3n,
    deadline: DEADLINE,
  },
  "cancel-redeem": {
    action: "cancel-redeem",
    owner: OWNER,
    vault: ASYNC_VAULT,
    amount: null,
    receiver: OWNER,
    minimum: null,
    nonce: NONCE + 4n,
    deadline: DEADLINE,
  },
};

/** The owner's signature of each intent, and the intent's digest (the relay id). */
const SIGNED: Record<SignedAction, { signature: string; digest: string }> = {
  deposit: {
    signature:
      "0x171b1efed8751011d1ba873cc4848936023bf75b6f46ed868b15041106f5425705d208fbdc105f438dc89ee8db6b56a6a9f362ace119f746db67bcf502bc6b2f1b",
    digest: "0xd53bb5e1ee07ccbbbb2f6cd052165e33411c94bb760ab6e867a88319b3f58ba0",
  },
  redeem: {
    signature:
      "0x895b9bc1743562678a6dfd9d20310bee8d202dc3b6190431562d547d45dadb5e7d12b21f7836541709b617523ab06bbe391180588a8e0140737e80af9acf74a81c",
    digest: "0x4b468e00d4ade753547020ccbbc98f145f5a8b08b5e4ccd26dde81aaff4d162d",
  },
  "request-redeem": {
    signature:
      "0x54d62802339592a236f5dbae92f76f77d3a9337b8eda29ae8a7313941e283c3b1a3baaec356e2c8b64a6fd5bfab56a948b6246a9732a61dd19ff4a3dc3e75f651b",
    digest: "0x25b08f49c78c4270160aebc15c146c626e533ca7b6ae4b03f65cb89539dcde74",
  },
  claim: {
    signature:
      "0x456e7f954c55075ad90a90a5e9a0874f138861242397794bba101608b27e6b946ee1c300eec19b2dd1992e3a72f23af97a73febc29eb7573cbf0890a499f9d441b",
    digest: "0x02943c9e4193d9e10d230c271174c90a00914abc0284979f93a81ae7cec54904",
  },
  "cancel-redeem": {
    signature:
      "0x2526e2f5cc0d6fc57e7d5c913734af4968cfaa19928b39f3f6dff6c196df80fe1dc450a0c518ebfe39efbdaa226c6b22048838af7eef4bda9f7d9f1ea4a05bfc1b",
    digest: "0x9e162c9f7359ee7217ddc4d1855a76ff9099e5280bb83295389e320628b278f3",
  },
};

const PERMIT_SIGNATURE =
  "0x41c37af59a28b13d5eccd3e4e7e3083be2b035be268e53fa25675bb0d38a02ec399e37ca9b7ade63ebd7a7cca42bfb6a34d4132b91a7994559dc5592e9e325ec1c";
/** The operator authorisation on the redemption's first action of each vault (redeem; request-redeem). */
const AUTHORIZATIONS: Partial<Record<SignedAction, { domain: Eip712Domain; signature: string }>> = {
  redeem: {
    domain: { name: "NAP Moderate USDC", version: "1", chainId: 31337, verifyingContract: SYNC_VAULT },
    signature:
      "0x33531b9fe86e67965ca9c07bf9ca3eaef3c9800699257407b2ca41d8edeec7bc215293a58ed8c0c4c2911199a61325c277cae03fe951ed7b8615d4afcc17066e1c",
  },
  "request-redeem": {
    domain: { name: "NAP Aggressive USDC", version: "1", chainId: 31337, verifyingContract: ASYNC_VAULT },
    signature:
      "0xb4ef325ac58e6314ed13c0601dae103bb49800180a5359c7ad39b547395f945b0d286eceff136f72b0f7966e83e294c98e2678736873788a3c8fe7dbe0fb5ae31b",
  },
};

const domain = routerDomain(31337, ROUTER);

/** The body fields of an intent as the submit takes them. */
function fieldsOf(intent: Intent): Record<string, string> {
  const amount = intent.amount?.toString();
  const minimum = intent.minimum?.toString();
  switch (intent.action) {
    case "deposit":
      return { owner: OWNER, amount: amount ?? "", receiver: OWNER, min_shares: minimum ?? "" };
    case "request-redeem":
      return { owner: OWNER, shares: amount ?? "" };
    case "cancel-redeem":
      return { owner: OWNER, receiver: OWNER };
    default:
      return { owner: OWNER, shares: amount ?? "", receiver: OWNER, min_assets: minimum ?? "" };
  }
}

function examplesOf(action: SignedAction): ExampleTable {
  const intent = INTENTS[action];
  const { signature, digest } = SIGNED[action];
  const authorization = AUTHORIZATIONS[action];
  return {
    [`GET /v1/vaults/:address/${action}/typed-data`]: {
      responses: {
        200: {
          action,
          vault: intent.vault,
          chain_id: 31337,
          router: ROUTER,
          nonce: intent.nonce.toString(),
          deadline: DEADLINE.toString(),
          intent: intentTypedData(domain, intent),
          permit:
            action === "deposit"
              ? permitTypedData(
                  { name: "USD Coin (test)", version: "1", chainId: 31337, verifyingContract: USDC },
                  { owner: OWNER, spender: ROUTER, value: intent.amount ?? 0n, nonce: 0n, deadline: DEADLINE },
                )
              : null,
          operator_authorization: authorization
            ? operatorAuthorizationTypedData(authorization.domain, {
                controller: OWNER,
                operator: ROUTER,
                approved: true,
                nonce: AUTHORIZATION_NONCE,
                deadline: DEADLINE,
              })
            : null,
        },
      },
    },
    [`POST /v1/vaults/:address/${action}`]: {
      request: {
        ...fieldsOf(intent),
        nonce: intent.nonce.toString(),
        deadline: DEADLINE.toString(),
        signature,
        ...(action === "deposit"
          ? { permit: { value: "25000000", deadline: DEADLINE.toString(), signature: PERMIT_SIGNATURE } }
          : {}),
        ...(authorization
          ? {
              operator_authorization: {
                nonce: AUTHORIZATION_NONCE,
                deadline: DEADLINE.toString(),
                signature: authorization.signature,
              },
            }
          : {}),
      },
      responses: {
        202: { relay_id: digest, status: "submitted", tx_hash: TX_HASH, status_url: `/v1/relays/${digest}` },
      },
    },
  };
}

export const SIGNED_WRITE_EXAMPLES: ExampleTable = {
  ...examplesOf("deposit"),
  ...examplesOf("redeem"),
  ...examplesOf("request-redeem"),
  ...examplesOf("claim"),
  ...examplesOf("cancel-redeem"),
  "GET /v1/relays/:relay_id": {
    responses: {
      200: {
        relay_id: SIGNED.deposit.digest,
        action: "deposit",
        vault: SYNC_VAULT,
        owner: OWNER,
        status: "confirmed",
        tx_hash: TX_HASH,
        block_number: 61,
        result: { shares: "24999315068493" },
        error: null,
      },
    },
  },
};

/** The signed writes' error bodies, as the checks (usecases/signedWrites/checks.ts) word them. */
export const SIGNED_WRITE_ERROR_EXAMPLES: Readonly<Record<string, DataErrorExample>> = {
  SIGNATURE_EXPIRED: dataError("SIGNATURE_EXPIRED", "deadline: 1795711980 is past (the chain's time is 1795712012)", {
    field: "deadline",
    deadline: "1795711980",
    now: "1795712012",
  }),
  NONCE_USED: dataError("NONCE_USED", `nonce: ${NONCE} of ${OWNER} is already used or invalidated`, {
    field: "nonce",
    nonce: NONCE.toString(),
  }),
  INSUFFICIENT_BALANCE: dataError("INSUFFICIENT_BALANCE", `amount: 25000000 asked, ${OWNER} holds 10000000`, {
    field: "amount",
    balance: "10000000",
  }),
  INSUFFICIENT_ALLOWANCE: dataError(
    "INSUFFICIENT_ALLOWANCE",
    "permit: the router's allowance is 0, below the amount 25000000; sign the permit of the prepare answer",
    { field: "permit", allowance: "0" },
  ),
  OPERATOR_NOT_AUTHORIZED: dataError(
    "OPERATOR_NOT_AUTHORIZED",
    `operator_authorization: the router is not ${OWNER}'s operator on this vault; sign the operator_authorization of the prepare answer`,
    { field: "operator_authorization" },
  ),
  WRONG_VAULT_KIND: dataError(
    "WRONG_VAULT_KIND",
    `redeem: ${ASYNC_VAULT} is an ERC-7540 (asynchronous) vault; use request-redeem, then claim`,
    { action: "redeem", vault: ASYNC_VAULT, isERC7540: true },
  ),
  NOTHING_TO_CLAIM: dataError("NOTHING_TO_CLAIM", "shares: 12500000000000 asked, 0 claimable", {
    field: "shares",
    claimable: "0",
  }),
  NOTHING_TO_CANCEL: dataError("NOTHING_TO_CANCEL", `owner: ${OWNER} has no pending redemption request on this vault`, {
    field: "owner",
  }),
  TRANSACTION_REVERTED: dataError(
    "TRANSACTION_REVERTED",
    "the router would revert with SharesBelowMinimum: the contract rejected the transaction: SharesBelowMinimum(24999315068493, 25000000000000)",
    {
      revert: {
        name: "SharesBelowMinimum",
        signature: "SharesBelowMinimum(uint256,uint256)",
        selector: "0x8b0c7a19",
        args: { shares: "24999315068493", minShares: "25000000000000" },
      },
    },
  ),
  IDEMPOTENCY_KEY_REUSED: dataError(
    "IDEMPOTENCY_KEY_REUSED",
    "Idempotency-Key: already used for a different signed message; use a new key for a new message",
    { field: "Idempotency-Key" },
  ),
  RELAY_NOT_FOUND: dataError("RELAY_NOT_FOUND", `relay_id: no relay ${SIGNED.claim.digest}`, {
    relay_id: SIGNED.claim.digest,
  }),
  SERVICE_UNAVAILABLE: dataError(
    "SERVICE_UNAVAILABLE",
    "the deployment lists no NapRouter: signed writes are unavailable",
  ),
  INVALID_RELAY_ID: dataError("INVALID_RELAY_ID", "relay_id: must be 0x and 64 hex characters (the intent's digest)", {
    field: "relay_id",
  }),
  INVALID_AMOUNT: dataError("INVALID_AMOUNT", "amount: must be above 0", { field: "amount" }),
  INVALID_SHARES: dataError("INVALID_SHARES", "shares: must be below 2**256", { field: "shares" }),
  INVALID_RECEIVER: dataError(
    "INVALID_RECEIVER",
    "receiver: '0x19e7e376e7c213b7e7E7e46cc70a5dd086daff2a' is not an address (bad checksum?)",
    { field: "receiver" },
  ),
  INVALID_MIN_SHARES: dataError(
    "INVALID_MIN_SHARES",
    "min_shares: must be a decimal integer without sign or leading zeros",
    { field: "min_shares" },
  ),
  INVALID_MIN_ASSETS: dataError(
    "INVALID_MIN_ASSETS",
    "min_assets: must be a decimal integer without sign or leading zeros",
    { field: "min_assets" },
  ),
  INVALID_DEADLINE: dataError("INVALID_DEADLINE", "deadline: required", { field: "deadline" }),
  INVALID_PERMIT: dataError("INVALID_PERMIT", "permit: signature: must be 0x hex of whole bytes (at most 4096)", {
    field: "permit",
  }),
  INVALID_OPERATOR_AUTHORIZATION: dataError(
    "INVALID_OPERATOR_AUTHORIZATION",
    "operator_authorization: nonce: must be 0x and 32 bytes of hex",
    { field: "operator_authorization" },
  ),
  INVALID_IDEMPOTENCY_KEY: dataError(
    "INVALID_IDEMPOTENCY_KEY",
    "Idempotency-Key: must be 1-255 printable ASCII characters without spaces",
    { field: "Idempotency-Key" },
  ),
};
