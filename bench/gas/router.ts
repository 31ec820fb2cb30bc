/**
 * Signed-writes section of the gas benchmark: each NapRouter path (one transaction, sent and paid by a relayer)
 * beside the direct calls a holder with ETH makes for the same effect, on the deployment's moderate (synchronous)
 * and configurable (ERC-7540) vaults over TestUSDC (EIP-2612). Direct and signed holders are alike (new to the vault
 * at their first deposit, the same amounts, in the same order), so the difference is what the router adds: the
 * signature check, the nonce, the hop of the assets through the router, and the permit or ERC-7741 authorisation the
 * first message carries. Where the direct path takes two transactions their gas is summed.
 */
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { Signature, Wallet, ZeroHash, type ContractTransactionResponse, type TypedDataField } from "ethers";
import {
  NapRouter__factory,
  TestUSDC__factory,
  type NapRouter,
  type NapVault,
  type TestUSDC,
} from "../../typechain-types";
import { deployVault, vaultConfigs } from "../../deploy/vaults";
import type { BenchSection } from "./table";

const USDC = 10n ** 6n;
const SEED = 10_000n * USDC;
const ASSETS = 1_000n * USDC;
const DIRECT = "direct (holder's transactions)";
const SIGNED = "signed (NapRouter, relayed)";
const NO_PERMIT = { value: 0n, deadline: 0n, v: 0, r: ZeroHash, s: ZeroHash };
const NO_AUTHORIZATION = { nonce: ZeroHash, deadline: 0n, signature: "0x" };

/** Each intent's own fields (name:type), before the nonce and deadline every intent ends with. */
const INTENT_FIELDS: Record<string, string[]> = {
  Deposit: ["owner:address", "vault:address", "assets:uint256", "receiver:address", "minShares:uint256"],
  Redeem: ["owner:address", "vault:address", "shares:uint256", "receiver:address", "minAssets:uint256"],
  RequestRedeem: ["owner:address", "vault:address", "shares:uint256"],
  Claim: ["owner:address", "vault:address", "shares:uint256", "receiver:address", "minAssets:uint256"],
  CancelRedeem: ["owner:address", "vault:address", "receiver:address"],
};

/** The router's primary type `kind`, field order as signed. */
function intentTypes(kind: string): Record<string, TypedDataField[]> {
  const fields = [...INTENT_FIELDS[kind], "nonce:uint256", "deadline:uint256"].map((field) => {
    const [name, type] = field.split(":");
    return { name, type };
  });
  return { [kind]: fields };
}

let drawn = 0;
/** A 256-bit nonce spread like the service's random ones, the same on every run (calldata gas depends on bytes). */
function randomNonce(): bigint {
  return BigInt(ethers.id(`bench nonce ${++drawn}`));
}

/** Gas of the transactions `sends` make, sent one after the other (each mined before the next is built). */
async function gasOf(...sends: (() => Promise<ContractTransactionResponse>)[]): Promise<bigint> {
  let total = 0n;
  for (const send of sends) {
    const receipt = await (await send()).wait();
    if (!receipt) throw new Error("missing receipt");
    total += receipt.gasUsed;
  }
  return total;
}

/** Signs the router's intents, the token's permits and the vaults' ERC-7741 authorisations for one key. */
class Signer {
  constructor(
    readonly wallet: Wallet,
    private readonly router: NapRouter,
    private readonly chainId: bigint,
  ) {}

  get address(): string {
    return this.wallet.address;
  }

  /** A signed intent with a random 256-bit nonce, as the service hands out, or the one given. */
  async intent<T extends Record<string, unknown>>(kind: string, fields: T, nonce = randomNonce()) {
    const deadline = BigInt((await time.latest()) + 3600);
    const intent = { owner: this.address, ...fields, nonce, deadline };
    const domain = {
      name: "NAP Router",
      version: "1",
      chainId: this.chainId,
      verifyingContract: await this.router.getAddress(),
    };
    return { intent, signature: await this.wallet.signTypedData(domain, intentTypes(kind), intent) };
  }

  async permit(usdc: TestUSDC, value: bigint) {
    const deadline = BigInt((await time.latest()) + 3600);
    const domain = {
      name: await usdc.name(),
      version: "1",
      chainId: this.chainId,
      verifyingContract: await usdc.getAddress(),
    };
    const types = {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    };
    const message = {
      owner: this.address,
      spender: await this.router.getAddress(),
      value,
      nonce: await usdc.nonces(this.address),
      deadline,
    };
    const { v, r, s } = Signature.from(await this.wallet.signTypedData(domain, types, message));
    return { value, deadline, v, r, s };
  }

  async authorization(vault: NapVault) {
    const deadline = BigInt((await time.latest()) + 3600);
    const nonce = ethers.id(`${this.address} ${await vault.getAddress()}`);
    const domain = {
      name: await vault.name(),
      version: "1",
      chainId: this.chainId,
      verifyingContract: await vault.getAddress(),
    };
    const types = {
      AuthorizeOperator: [
        { name: "controller", type: "address" },
        { name: "operator", type: "address" },
        { name: "approved", type: "bool" },
        { name: "nonce", type: "bytes32" },
        { name: "deadline", type: "uint256" },
      ],
    };
    const message = {
      controller: this.address,
      operator: await this.router.getAddress(),
      approved: true,
      nonce,
      deadline,
    };
    return { nonce, deadline, signature: await this.wallet.signTypedData(domain, types, message) };
  }
}

export async function run(): Promise<BenchSection> {
  const [deployer, seeder, fulfiller, relayer] = await ethers.getSigners();
  const chainId = (await ethers.provider.getNetwork()).chainId;
  const admin = await deployer.getAddress();
  const usdc = await new TestUSDC__factory(deployer).deploy(admin);
  const router = await new NapRouter__factory(deployer).deploy();
  const routerAddress = await router.getAddress();
  const roles = {
    admin,
    manager: admin,
    harvester: admin,
    guardian: admin,
    fulfiller: await fulfiller.getAddress(),
    feeRecipient: admin,
  };
  const sync = (await deployVault(deployer, vaultConfigs.moderate, await usdc.getAddress(), roles)).contract;
  const async = (await deployVault(deployer, vaultConfigs.configurable, await usdc.getAddress(), roles)).contract;
  const syncAddress = await sync.getAddress();
  const asyncAddress = await async.getAddress();

  // Others hold shares already, so no measured deposit is a vault's first.
  await usdc.mint(await seeder.getAddress(), 2n * SEED);
  for (const vault of [sync, async]) {
    await usdc.connect(seeder).approve(await vault.getAddress(), SEED);
    await vault.connect(seeder).deposit(SEED, await seeder.getAddress());
  }

  // The direct holder has ETH and sends its own transactions; the signed one only signs.
  const direct = new Wallet(ethers.id("bench direct holder"), ethers.provider);
  await relayer.sendTransaction({ to: direct.address, value: ethers.parseEther("10") });
  const owner = new Signer(new Wallet(ethers.id("bench signing owner")), router, chainId);
  for (const holder of [direct.address, owner.address]) await usdc.mint(holder, 8n * ASSETS);
  const viaRouter = router.connect(relayer);
  const rows: BenchSection["rows"] = [];
  const row = (operation: string, directGas: bigint, signedGas: bigint) =>
    rows.push({ operation, gas: { [DIRECT]: directGas, [SIGNED]: signedGas } });

  // Synchronous vault.
  {
    const d = await owner.intent("Deposit", {
      vault: syncAddress,
      assets: ASSETS,
      receiver: owner.address,
      minShares: 0n,
    });
    row(
      "deposit, new holder (direct: approve + deposit; signed: permit + deposit)",
      await gasOf(
        () => usdc.connect(direct).approve(syncAddress, ethers.MaxUint256),
        () => sync.connect(direct).deposit(ASSETS, direct.address),
      ),
      await gasOf(async () => viaRouter.deposit(d.intent, d.signature, await owner.permit(usdc, ethers.MaxUint256))),
    );
    const again = await owner.intent("Deposit", {
      vault: syncAddress,
      assets: ASSETS,
      receiver: owner.address,
      minShares: 0n,
    });
    row(
      "deposit, allowance already given",
      await gasOf(() => sync.connect(direct).deposit(ASSETS, direct.address)),
      await gasOf(() => viaRouter.deposit(again.intent, again.signature, NO_PERMIT)),
    );
    const neighbour = await owner.intent(
      "Deposit",
      { vault: syncAddress, assets: ASSETS, receiver: owner.address, minShares: 0n },
      again.intent.nonce ^ 1n,
    );
    row(
      "deposit, allowance given, nonce beside a used one (same 256-nonce word)",
      await gasOf(() => sync.connect(direct).deposit(ASSETS, direct.address)),
      await gasOf(() => viaRouter.deposit(neighbour.intent, neighbour.signature, NO_PERMIT)),
    );
    const shares = (await sync.balanceOf(owner.address)) / 4n;
    const first = await owner.intent("Redeem", {
      vault: syncAddress,
      shares,
      receiver: owner.address,
      minAssets: 0n,
    });
    row(
      "redeem, first exit (signed: ERC-7741 authorisation carried)",
      await gasOf(() => sync.connect(direct).redeem(shares, direct.address, direct.address)),
      await gasOf(async () => viaRouter.redeem(first.intent, first.signature, await owner.authorization(sync))),
    );
    const next = await owner.intent("Redeem", { vault: syncAddress, shares, receiver: owner.address, minAssets: 0n });
    row(
      "redeem, router already operator",
      await gasOf(() => sync.connect(direct).redeem(shares, direct.address, direct.address)),
      await gasOf(() => viaRouter.redeem(next.intent, next.signature, NO_AUTHORIZATION)),
    );
  }

  // ERC-7540 vault.
  {
    await gasOf(() => usdc.connect(direct).approve(asyncAddress, ethers.MaxUint256));
    await gasOf(() => async.connect(direct).deposit(2n * ASSETS, direct.address));
    const d = await owner.intent("Deposit", {
      vault: asyncAddress,
      assets: 2n * ASSETS,
      receiver: owner.address,
      minShares: 0n,
    });
    await gasOf(() => viaRouter.deposit(d.intent, d.signature, NO_PERMIT));
    // Each holder requests half its shares, claims them, then requests the other half and cancels.
    const directHalf = (await async.balanceOf(direct.address)) / 2n;
    const shares = (await async.balanceOf(owner.address)) / 2n;
    const request = await owner.intent("RequestRedeem", { vault: asyncAddress, shares });
    row(
      "requestRedeem, first exit (signed: ERC-7741 authorisation carried)",
      await gasOf(() => async.connect(direct).requestRedeem(directHalf, direct.address, direct.address)),
      await gasOf(async () =>
        viaRouter.requestRedeem(request.intent, request.signature, await owner.authorization(async)),
      ),
    );
    await time.increase(Number(await async.fulfillmentDelay()));
    await gasOf(() => async.connect(fulfiller).fulfillRedeem(direct.address));
    await gasOf(() => async.connect(fulfiller).fulfillRedeem(owner.address));
    const claim = await owner.intent("Claim", {
      vault: asyncAddress,
      shares,
      receiver: owner.address,
      minAssets: 0n,
    });
    row(
      "claim (redeem of the filled request)",
      await gasOf(() => async.connect(direct).redeem(directHalf, direct.address, direct.address)),
      await gasOf(() => viaRouter.claim(claim.intent, claim.signature, NO_AUTHORIZATION)),
    );
    const second = await owner.intent("RequestRedeem", { vault: asyncAddress, shares });
    row(
      "requestRedeem, router already operator",
      await gasOf(() => async.connect(direct).requestRedeem(directHalf, direct.address, direct.address)),
      await gasOf(() => viaRouter.requestRedeem(second.intent, second.signature, NO_AUTHORIZATION)),
    );
    const cancel = await owner.intent("CancelRedeem", { vault: asyncAddress, receiver: owner.address });
    row(
      "cancel (direct: cancelRedeemRequest + claimCancelRedeemRequest; signed: cancelRedeem)",
      await gasOf(
        () => async.connect(direct).cancelRedeemRequest(0, direct.address),
        () => async.connect(direct).claimCancelRedeemRequest(0, direct.address, direct.address),
      ),
      await gasOf(() => viaRouter.cancelRedeem(cancel.intent, cancel.signature, NO_AUTHORIZATION)),
    );
  }

  const failures: string[] = [];
  if ((await usdc.balanceOf(routerAddress)) !== 0n) failures.push("the router holds assets after the run");
  return {
    title: "Signed writes: NapRouter (one relayed transaction) beside the holder's direct calls",
    reference: DIRECT,
    columns: [DIRECT, SIGNED],
    rows,
    failures,
    notes: [
      "Moderate (synchronous) and configurable (ERC-7540) vaults of the deployment over TestUSDC. The signed column " +
        "is paid by the relayer; the owner needs no ETH. Each signed path adds a signature check, a fresh nonce " +
        "slot and (deposits) the assets' hop through the router; a first message also carries the permit or the " +
        "ERC-7741 authorisation, where the direct path sends an approval or needs none. Nonces are random as the " +
        "service hands them out, except the row that uses the neighbour of a used nonce: nonces are kept 256 to a " +
        "storage word, so a signer that picks them close together pays a warm write instead of a new slot.",
    ],
  };
}
