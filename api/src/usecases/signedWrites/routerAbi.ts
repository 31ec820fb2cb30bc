import { Interface } from "ethers";

/**
 * The NapRouter's calls and views the relay uses (contracts/interfaces/INapRouter.sol), and the vault's ERC-7741 and
 * ERC-5267 views beside the ERC-7540 ones TypeChain already types. Written out so that the service reads no artifact
 * at start-up; test/api/usecases/signedWrites/routerAbi.test.ts holds each selector to the compiled contracts.
 */

const DEPOSIT =
  "(address owner,address vault,uint256 assets,address receiver,uint256 minShares,uint256 nonce,uint256 deadline)";
const REDEEM =
  "(address owner,address vault,uint256 shares,address receiver,uint256 minAssets,uint256 nonce,uint256 deadline)";
const REQUEST = "(address owner,address vault,uint256 shares,uint256 nonce,uint256 deadline)";
const CLAIM =
  "(address owner,address vault,uint256 shares,address receiver,uint256 minAssets,uint256 nonce,uint256 deadline)";
const CANCEL = "(address owner,address vault,address receiver,uint256 nonce,uint256 deadline)";
const PERMIT = "(uint256 value,uint256 deadline,uint8 v,bytes32 r,bytes32 s)";
const AUTHORIZATION = "(bytes32 nonce,uint256 deadline,bytes signature)";

export const ROUTER_INTERFACE = new Interface([
  `function deposit(${DEPOSIT} intent, bytes signature, ${PERMIT} permit) returns (uint256 shares)`,
  `function redeem(${REDEEM} intent, bytes signature, ${AUTHORIZATION} authorization) returns (uint256 assets)`,
  `function requestRedeem(${REQUEST} intent, bytes signature, ${AUTHORIZATION} authorization) returns (uint256 requestId)`,
  `function claim(${CLAIM} intent, bytes signature, ${AUTHORIZATION} authorization) returns (uint256 assets)`,
  `function cancelRedeem(${CANCEL} intent, bytes signature, ${AUTHORIZATION} authorization) returns (uint256 shares)`,
  "function nonceUsed(address owner, uint256 nonce) view returns (bool)",
]);

/** The router's function of each action. */
export const ROUTER_FUNCTION = {
  deposit: "deposit",
  redeem: "redeem",
  "request-redeem": "requestRedeem",
  claim: "claim",
  "cancel-redeem": "cancelRedeem",
} as const;

/** ERC-5267 and ERC-7741 views (the vault's operator authorisation; the asset's permit domain). */
export const EIP712_VIEWS = new Interface([
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function nonces(address owner) view returns (uint256)",
  "function authorizations(address controller, bytes32 nonce) view returns (bool)",
]);
