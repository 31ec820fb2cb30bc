import { Contract, getAddress, recoverAddress, Signature, type Provider } from "ethers";
import type { ChainAccess } from "../../chain";
import { readChain } from "../../chain/rpcErrors";
import { EIP1271_MAGIC_VALUE } from "../../chain/signatures";
import { NotConfiguredError } from "../../errors";
import {
  intentDigest,
  operatorAuthorizationDigest,
  permitDigest,
  routerDomain,
  type Eip712Domain,
  type Intent,
} from "../../domain/signedWrites";
import { NapVault__factory, TestUSDC__factory } from "../../../../typechain-types";
import type { RelayFacts } from "./checks";
import { EIP712_VIEWS, ROUTER_INTERFACE } from "./routerAbi";

/**
 * What the checks read from the chain, at the head's read block: the vault's kind, balances, allowance, the router's
 * nonce, the operator status, and whether each signature is the owner's (ECDSA recovery, else the owner's EIP-1271
 * answer, as OpenZeppelin's SignatureChecker decides onchain).
 */

const EIP1271 = ["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"];

/** The NapRouter of the deployment (deployments/<chainId>.json, contracts.NapRouter). */
export function routerAddress(chain: ChainAccess): string {
  const entry = chain.deployment?.contracts.NapRouter;
  if (!entry) throw new NotConfiguredError("the deployment lists no NapRouter: signed writes are unavailable");
  return entry.address;
}

/** Whether `signature` is an ECDSA signature of `digest` by `owner`. */
export function recoversTo(owner: string, digest: string, signature: string): boolean {
  try {
    return getAddress(recoverAddress(digest, Signature.from(signature))) === getAddress(owner);
  } catch {
    // Not a 65-byte ECDSA signature.
    return false;
  }
}

/** Whether `signature` is `owner`'s for `digest`: ECDSA recovery, else EIP-1271 when the owner has code. */
export async function signedBy(
  provider: Provider,
  owner: string,
  digest: string,
  signature: string,
  blockTag: number,
): Promise<boolean> {
  if (recoversTo(owner, digest, signature)) return true;
  const code = await readChain("the owner's code", () => provider.getCode(owner, blockTag));
  if (code === "0x") return false;
  try {
    const wallet = new Contract(owner, EIP1271, provider);
    const answer = (await wallet.getFunction("isValidSignature").staticCall(digest, signature, { blockTag })) as string;
    return answer.toLowerCase() === EIP1271_MAGIC_VALUE;
  } catch {
    return false;
  }
}

/** The EIP-712 domain a contract declares (ERC-5267), or its name/version views when it has no eip712Domain. */
export async function declaredDomain(
  provider: Provider,
  address: string,
  chainId: number,
  blockTag: number,
): Promise<Eip712Domain> {
  const contract = new Contract(address, EIP712_VIEWS, provider);
  try {
    const domain = (await contract.getFunction("eip712Domain").staticCall({ blockTag })) as unknown as [
      string,
      string,
      string,
      bigint,
      string,
    ];
    return {
      name: domain[1],
      version: domain[2],
      chainId: Number(domain[3]),
      verifyingContract: getAddress(domain[4]),
    };
  } catch {
    // Tokens that predate ERC-5267 (Circle's USDC) expose name() and version().
    const [name, version] = await Promise.all([
      contract.getFunction("name").staticCall({ blockTag }) as Promise<string>,
      (contract.getFunction("version").staticCall({ blockTag }) as Promise<string>).catch(() => "1"),
    ]);
    return { name, version, chainId, verifyingContract: getAddress(address) };
  }
}

/** What a signed message brings besides the intent. */
export interface Attachments {
  signature: string;
  permit?: { value: bigint; deadline: bigint; signature: string };
  authorization?: { nonce: string; deadline: bigint; signature: string };
}

export async function gatherFacts(
  chain: ChainAccess,
  intent: Intent,
  attached: Attachments,
  vaultIsAsync: boolean,
): Promise<RelayFacts> {
  const provider = chain.provider;
  const block = await chain.head.readBlock();
  const router = routerAddress(chain);
  const vault = NapVault__factory.connect(intent.vault, provider);
  const routerContract = new Contract(router, ROUTER_INTERFACE, provider);
  const owner = intent.owner;
  const at = { blockTag: block };
  const digest = intentDigest(routerDomain(chain.chainId, router), intent);

  const [header, intentSignatureValid, nonceUsed] = await readChain("the router and the owner's signature", () =>
    Promise.all([
      provider.getBlock(block),
      signedBy(provider, owner, digest, attached.signature, block),
      routerContract.getFunction("nonceUsed").staticCall(owner, intent.nonce, at) as Promise<boolean>,
    ]),
  );
  const facts: RelayFacts = {
    now: BigInt(header?.timestamp ?? Math.floor(Date.now() / 1000)),
    vaultIsAsync,
    intentSignatureValid,
    nonceUsed,
    assetBalance: 0n,
    allowance: 0n,
    permit: null,
    shareBalance: 0n,
    claimableShares: 0n,
    pendingShares: 0n,
    canceledShares: 0n,
    routerIsOperator: false,
    authorization: null,
  };

  if (intent.action === "deposit") {
    const asset = getAddress(await readChain("the vault's asset", () => vault.asset(at)));
    const token = TestUSDC__factory.connect(asset, provider);
    const permit = attached.permit;
    const [balance, allowance, permitValid] = await readChain("the owner's USDC", () =>
      Promise.all([
        token.balanceOf(owner, at),
        token.allowance(owner, router, at),
        permit ? permitSigned(chain, asset, owner, router, permit, block) : Promise.resolve(false),
      ]),
    );
    facts.assetBalance = balance;
    facts.allowance = allowance;
    if (permit) facts.permit = { value: permit.value, deadline: permit.deadline, signatureValid: permitValid };
    return facts;
  }

  const authorization = attached.authorization;
  const [shares, claimable, pending, canceled, isOperator] = await readChain("the owner's shares", () =>
    Promise.all([
      vault.balanceOf(owner, at),
      vaultIsAsync ? vault.claimableRedeemRequest(0, owner, at) : Promise.resolve(0n),
      vaultIsAsync ? vault.pendingRedeemRequest(0, owner, at) : Promise.resolve(0n),
      vaultIsAsync ? vault.claimableCancelRedeemRequest(0, owner, at) : Promise.resolve(0n),
      vault.isOperator(owner, router, at),
    ]),
  );
  Object.assign(facts, {
    shareBalance: shares,
    claimableShares: claimable,
    pendingShares: pending,
    canceledShares: canceled,
    routerIsOperator: isOperator,
  });
  if (!isOperator && authorization) {
    const views = new Contract(intent.vault, EIP712_VIEWS, provider);
    const [domain, used] = await readChain("the vault's operator authorisations", () =>
      Promise.all([
        declaredDomain(provider, intent.vault, chain.chainId, block),
        views.getFunction("authorizations").staticCall(owner, authorization.nonce, at) as Promise<boolean>,
      ]),
    );
    const authorizationDigest = operatorAuthorizationDigest(domain, {
      controller: owner,
      operator: router,
      approved: true,
      nonce: authorization.nonce,
      deadline: authorization.deadline,
    });
    facts.authorization = {
      deadline: authorization.deadline,
      nonceUsed: used,
      signatureValid: await signedBy(provider, owner, authorizationDigest, authorization.signature, block),
    };
  }
  return facts;
}

async function permitSigned(
  chain: ChainAccess,
  asset: string,
  owner: string,
  router: string,
  permit: NonNullable<Attachments["permit"]>,
  block: number,
): Promise<boolean> {
  const token = new Contract(asset, EIP712_VIEWS, chain.provider);
  const [domain, nonce] = await Promise.all([
    declaredDomain(chain.provider, asset, chain.chainId, block),
    token.getFunction("nonces").staticCall(owner, { blockTag: block }) as Promise<bigint>,
  ]);
  const digest = permitDigest(domain, {
    owner,
    spender: router,
    value: permit.value,
    nonce,
    deadline: permit.deadline,
  });
  // EIP-2612 as the router calls it (v, r, s) is ECDSA only.
  return recoversTo(owner, digest, permit.signature);
}
