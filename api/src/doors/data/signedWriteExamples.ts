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

/**
 * Examples of the signed writes (doors/examples.ts) on a local stack (chain 31337): a wallet that never registered
 * deposits 25 USDC into the moderate vault with a permit and redeems from it, and requests, claims and cancels on the
 * aggressive (ERC-7540) vault, the first redemption carrying the ERC-7741 operator authorisation. The typed data is
 * built by the functions the service uses; the signatures are that wallet's.
 */

const OWNER = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
const ROUTER = "0x4c5859f0F772848b2D91F1D83E2Fe57935348029";
const SYNC_VAULT = "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8";
const ASYNC_VAULT = "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E";
const USDC = "0x0165878A594ca255338adfa4d48449f69242Eb8F";
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
      "0x4d55fa752f07d947aadf7f0fcc9b5c6486eefcd5079d9cece1274a16f422e81870b3d555c2c7bba5a3ee2270bef361bc37b8da168f28f0612a33d600f368d4a31b",
    digest: "0xe8e3139d3b3de07e8a97f6cd0656914c7fbb5c7c80a1aaa7f947cbbb1f1f234a",
  },
  redeem: {
    signature:
      "0x9125955446a95db121ea2af9bc91725878fab51e98e066bcc75b2012244898234b03f6a5e8d214262ba4e1133c05dbeeb718dec412ccb0b4f0eb9feee5b25dac1c",
    digest: "0xe20faa62aa6f0a1c815ec3ff985bc169a8c5e3f24729ab04d13087d63571e079",
  },
  "request-redeem": {
    signature:
      "0xa72b39c0fe9efea4f5927e9acb5730f6016d1583a05371164bb70db4535b9cdc3601c55a61c582c9ee0912dc196245add10af41beca832cd7558ce239f09ebb01c",
    digest: "0x764b182784243ef13e655add4cad1d9ac99b0729ac97a382753c0bdb316e4578",
  },
  claim: {
    signature:
      "0x17d5e3e02fd2637999a884c5eb4970620eb54f3361a6d49563ef969bc0bd5ff859662a3dd33d9a917fd00df4d0a815e7a037c983032ddcb4dc2e539682d3da521c",
    digest: "0xe700068e948fed8233fb9b4af2fe7af9cd057e0e284a65b1d5255de8f4656768",
  },
  "cancel-redeem": {
    signature:
      "0x15ead8501dee3aed76ef6919cfce5e00fa1e9c1bc2ffb64781b577af9bbd4f2748b9746b8d561cf47a8bf843da30f83a7c425fe18c6cbcb0e38e11f12b63157d1c",
    digest: "0x08afb4d2c89985fdd52b62156273426f7ab40d531d0154e094294d1015de66da",
  },
};

const PERMIT_SIGNATURE =
  "0x9df870e6d66beafbb7055f649fc42c2ee3989898774ce18edf03ac8b69f31c19746a9fe5826fa7fe10639868c5f7926f7b3cf178674c81467efb328faf7b1e241c";
/** The operator authorisation on the redemption's first action of each vault (redeem; request-redeem). */
const AUTHORIZATIONS: Partial<Record<SignedAction, { domain: Eip712Domain; signature: string }>> = {
  redeem: {
    domain: { name: "NAP Moderate USDC", version: "1", chainId: 31337, verifyingContract: SYNC_VAULT },
    signature:
      "0xc5c9caaf80047b9108ce63e724935f8ca8cd807ead722275f7b20fb91d5e13d2246aca199b39aaee50c16451fe48ed88f9d055e601a395b5db539974a4909e391b",
  },
  "request-redeem": {
    domain: { name: "NAP Aggressive USDC", version: "1", chainId: 31337, verifyingContract: ASYNC_VAULT },
    signature:
      "0x21dfc4e1dd6ed68602f5f168b39e997d03f20c25b76f8b33108462ce91c00579465d8c0c0ce719a59d037d88e2f44dff9129660a49e53b9a880c89e900ff87491c",
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

type ErrorExample = { code: string; message: string; details: Readonly<Record<string, unknown>> };

const error = (code: string, message: string, details: Record<string, unknown> = {}): ErrorExample => ({
  code,
  message,
  details,
});

/** The signed writes' error bodies, as the checks (usecases/signedWrites/checks.ts) word them. */
export const SIGNED_WRITE_ERROR_EXAMPLES: Readonly<Record<string, ErrorExample>> = {
  SIGNATURE_EXPIRED: error("SIGNATURE_EXPIRED", "deadline: 1795711980 is past (the chain's time is 1795712012)", {
    field: "deadline",
    deadline: "1795711980",
    now: "1795712012",
  }),
  NONCE_USED: error("NONCE_USED", `nonce: ${NONCE} of ${OWNER} is already used or invalidated`, {
    field: "nonce",
    nonce: NONCE.toString(),
  }),
  INSUFFICIENT_BALANCE: error("INSUFFICIENT_BALANCE", `amount: 25000000 asked, ${OWNER} holds 10000000`, {
    field: "amount",
    balance: "10000000",
  }),
  INSUFFICIENT_ALLOWANCE: error(
    "INSUFFICIENT_ALLOWANCE",
    "permit: the router's allowance is 0, below the amount 25000000; sign the permit of the prepare answer",
    { field: "permit", allowance: "0" },
  ),
  OPERATOR_NOT_AUTHORIZED: error(
    "OPERATOR_NOT_AUTHORIZED",
    `operator_authorization: the router is not ${OWNER}'s operator on this vault; sign the operator_authorization of the prepare answer`,
    { field: "operator_authorization" },
  ),
  WRONG_VAULT_KIND: error(
    "WRONG_VAULT_KIND",
    `redeem: ${ASYNC_VAULT} is an ERC-7540 (asynchronous) vault; use request-redeem, then claim`,
    { action: "redeem", vault: ASYNC_VAULT, isERC7540: true },
  ),
  NOTHING_TO_CLAIM: error("NOTHING_TO_CLAIM", "shares: 12500000000000 asked, 0 claimable", {
    field: "shares",
    claimable: "0",
  }),
  NOTHING_TO_CANCEL: error("NOTHING_TO_CANCEL", `owner: ${OWNER} has no pending redemption request on this vault`, {
    field: "owner",
  }),
  TRANSACTION_REVERTED: error(
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
  IDEMPOTENCY_KEY_REUSED: error(
    "IDEMPOTENCY_KEY_REUSED",
    "Idempotency-Key: already used for a different signed message; use a new key for a new message",
    { field: "Idempotency-Key" },
  ),
  RELAY_NOT_FOUND: error("RELAY_NOT_FOUND", `relay_id: no relay ${SIGNED.claim.digest}`, {
    relay_id: SIGNED.claim.digest,
  }),
  SERVICE_UNAVAILABLE: error("SERVICE_UNAVAILABLE", "the deployment lists no NapRouter: signed writes are unavailable"),
  INVALID_RELAY_ID: error("INVALID_RELAY_ID", "relay_id: must be 0x and 64 hex characters (the intent's digest)", {
    field: "relay_id",
  }),
  INVALID_AMOUNT: error("INVALID_AMOUNT", "amount: must be above 0", { field: "amount" }),
  INVALID_SHARES: error("INVALID_SHARES", "shares: must be below 2**256", { field: "shares" }),
  INVALID_RECEIVER: error(
    "INVALID_RECEIVER",
    "receiver: '0x19e7e376e7c213b7e7E7e46cc70a5dd086daff2a' is not an address (bad checksum?)",
    { field: "receiver" },
  ),
  INVALID_MIN_SHARES: error("INVALID_MIN_SHARES", "min_shares: must be a decimal integer", { field: "min_shares" }),
  INVALID_MIN_ASSETS: error("INVALID_MIN_ASSETS", "min_assets: must be a decimal integer", { field: "min_assets" }),
  INVALID_DEADLINE: error("INVALID_DEADLINE", "deadline: required", { field: "deadline" }),
  INVALID_PERMIT: error("INVALID_PERMIT", "permit: signature: must be 0x hex of whole bytes (at most 4096)", {
    field: "permit",
  }),
  INVALID_OPERATOR_AUTHORIZATION: error(
    "INVALID_OPERATOR_AUTHORIZATION",
    "operator_authorization: nonce: must be 0x and 32 bytes of hex",
    { field: "operator_authorization" },
  ),
  INVALID_IDEMPOTENCY_KEY: error(
    "INVALID_IDEMPOTENCY_KEY",
    "Idempotency-Key: must be 1-255 printable ASCII characters without spaces",
    { field: "Idempotency-Key" },
  ),
};
