import { ethers } from "hardhat";
import { Signature, Wallet, ZeroHash, type TypedDataDomain, type TypedDataField } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import { NapRouter__factory, type NapRouter, type TestUSDC } from "../../../typechain-types";
import type { INapRouter } from "../../../typechain-types/contracts/router/NapRouter";
import { USDC, deployWorld, type World } from "../vaults/fixtures";

export type DepositIntent = INapRouter.DepositStruct;
export type RedeemIntent = INapRouter.RedeemStruct;
export type RequestRedeemIntent = INapRouter.RequestRedeemStruct;
export type ClaimIntent = INapRouter.ClaimStruct;
export type CancelRedeemIntent = INapRouter.CancelRedeemStruct;
export type Permit = INapRouter.PermitStruct;
export type OperatorAuthorization = INapRouter.OperatorAuthorizationStruct;

/** The router's primary types, field order as signed (docs: the signed-message design). */
export const INTENT_TYPES = {
  Deposit: [
    { name: "owner", type: "address" },
    { name: "vault", type: "address" },
    { name: "assets", type: "uint256" },
    { name: "receiver", type: "address" },
    { name: "minShares", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
  Redeem: [
    { name: "owner", type: "address" },
    { name: "vault", type: "address" },
    { name: "shares", type: "uint256" },
    { name: "receiver", type: "address" },
    { name: "minAssets", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
  RequestRedeem: [
    { name: "owner", type: "address" },
    { name: "vault", type: "address" },
    { name: "shares", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
  Claim: [
    { name: "owner", type: "address" },
    { name: "vault", type: "address" },
    { name: "shares", type: "uint256" },
    { name: "receiver", type: "address" },
    { name: "minAssets", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
  CancelRedeem: [
    { name: "owner", type: "address" },
    { name: "vault", type: "address" },
    { name: "receiver", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const satisfies Record<string, TypedDataField[]>;

export type IntentKind = keyof typeof INTENT_TYPES;

/** ERC-7741's AuthorizeOperator, signed in the vault's own domain. */
export const AUTHORIZE_OPERATOR_TYPES = {
  AuthorizeOperator: [
    { name: "controller", type: "address" },
    { name: "operator", type: "address" },
    { name: "approved", type: "bool" },
    { name: "nonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const satisfies Record<string, TypedDataField[]>;

const PERMIT_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
};

/** No permit (deadline 0). */
export const NO_PERMIT: Permit = { value: 0n, deadline: 0n, v: 0, r: ZeroHash, s: ZeroHash };
/** No operator authorisation (empty signature). */
export const NO_AUTHORIZATION: OperatorAuthorization = { nonce: ZeroHash, deadline: 0n, signature: "0x" };

/** Anything that signs EIP-712 typed data: an ethers Wallet or a Hardhat signer. */
export interface TypedSigner {
  address: string;
  signTypedData(
    domain: TypedDataDomain,
    types: Record<string, TypedDataField[]>,
    value: Record<string, unknown>,
  ): Promise<string>;
}

export async function routerDomain(router: NapRouter, chainId?: bigint): Promise<TypedDataDomain> {
  return {
    name: "NAP Router",
    version: "1",
    chainId: chainId ?? (await ethers.provider.getNetwork()).chainId,
    verifyingContract: await router.getAddress(),
  };
}

/** The intent's EIP-712 digest as any wallet computes it. */
export async function digestOf(router: NapRouter, kind: IntentKind, intent: object): Promise<string> {
  const types = { [kind]: [...INTENT_TYPES[kind]] };
  return ethers.TypedDataEncoder.hash(await routerDomain(router), types, intent as Record<string, unknown>);
}

/** `signer`'s signature of `intent` as a `kind`, in the router's domain (or another chain's, to test binding). */
export async function signIntent(
  signer: TypedSigner,
  router: NapRouter,
  kind: IntentKind,
  intent: object,
  chainId?: bigint,
): Promise<string> {
  const types = { [kind]: [...INTENT_TYPES[kind]] };
  return signer.signTypedData(await routerDomain(router, chainId), types, intent as Record<string, unknown>);
}

/** An EIP-2612 permit of TestUSDC from `signer` to `spender`. */
export async function signPermit(
  signer: TypedSigner,
  usdc: TestUSDC,
  spender: string,
  value: bigint,
  deadline: bigint,
): Promise<Permit> {
  const domain = {
    name: await usdc.name(),
    version: "1",
    chainId: (await ethers.provider.getNetwork()).chainId,
    verifyingContract: await usdc.getAddress(),
  };
  const nonce = await usdc.nonces(signer.address);
  const signature = Signature.from(
    await signer.signTypedData(domain, PERMIT_TYPES, { owner: signer.address, spender, value, nonce, deadline }),
  );
  return { value, deadline, v: signature.v, r: signature.r, s: signature.s };
}

/** `signer`'s ERC-7741 authorisation making `operator` its operator on `vault` (the vault's EIP-712 domain). */
export async function signAuthorization(
  signer: TypedSigner,
  vault: { getAddress(): Promise<string>; name(): Promise<string> },
  operator: string,
  nonce: string,
  deadline: bigint,
  approved = true,
): Promise<OperatorAuthorization> {
  const domain = {
    name: await vault.name(),
    version: "1",
    chainId: (await ethers.provider.getNetwork()).chainId,
    verifyingContract: await vault.getAddress(),
  };
  const message = { controller: signer.address, operator, approved, nonce, deadline };
  const signature = await signer.signTypedData(domain, AUTHORIZE_OPERATOR_TYPES, message);
  return { nonce, deadline, signature };
}

/** A timestamp `seconds` after the latest block's. */
export async function inSeconds(seconds: number): Promise<bigint> {
  return BigInt((await ethers.provider.getBlock("latest"))!.timestamp + seconds);
}

/** A random 256-bit nonce, as the service hands out. */
export function randomNonce(): bigint {
  return BigInt(ethers.hexlify(ethers.randomBytes(32)));
}

export interface RouterWorld extends World {
  router: NapRouter;
  /** The service's relayer: sends the messages and pays the gas. */
  relayer: HardhatEthersSigner;
  /** Anyone else who sees a message (mempool, logs) and sends it or a permit first. */
  griefer: HardhatEthersSigner;
  /** A wallet that never registered and holds no ETH: it only signs. */
  owner: Wallet;
}

/** The vaults' world, a router, and an owner key holding 100,000 USDC and no ETH. */
export async function deployRouterWorld(): Promise<RouterWorld> {
  const world = await deployWorld();
  const signers = await ethers.getSigners();
  const relayer = signers[10];
  const griefer = signers[11];
  const router = await new NapRouter__factory(world.a.deployer).deploy();
  const owner = new Wallet(ethers.id("router test owner"), ethers.provider);
  await world.usdc.mint(owner.address, 100_000n * USDC);
  return { ...world, router, relayer, griefer, owner };
}
