import { ethers, network } from "hardhat";
import type { Signer } from "ethers";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { Deployment } from "../../../api/src/chain/deployment";
import { VAULT_IDS, type VaultId } from "../../../api/src/domain/model";
import {
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
  VaultLens__factory,
} from "../../../typechain-types";

/**
 * Scripted vault activity on the in-process Hardhat chain, across all six vaults: deposits by two users, a share
 * transfer, synchronous withdrawals, ERC-7540 requests that are fulfilled and claimed or canceled and claimed back,
 * and reported gains (by the relayer, the vaults' harvester and fulfiller, impersonated).
 */

const USDC = 1_000_000n;

export async function users(): Promise<{ alice: Signer; bob: Signer; deployer: Signer }> {
  const [deployer, , , , , , , , alice, bob] = await ethers.getSigners();
  return { alice, bob, deployer };
}

/** A signer for `address` (a role holder of the deployment: timelock, relayer, guardian), funded with 100 ETH. */
export async function impersonate(address: string): Promise<Signer> {
  await network.provider.request({ method: "hardhat_impersonateAccount", params: [address] });
  await network.provider.request({ method: "hardhat_setBalance", params: [address, "0x56BC75E2D63100000"] });
  return ethers.getSigner(address);
}

export async function relayer(deployment: Deployment): Promise<Signer> {
  return impersonate(deployment.roles.relayer);
}

export function vaultAt(deployment: Deployment, id: VaultId, signer: Signer) {
  const entry = deployment.vaults[id];
  if (!entry) throw new Error(`no ${id} vault`);
  return NapVault__factory.connect(entry.address, signer);
}

export async function fund(deployment: Deployment, who: Signer, amount: bigint): Promise<void> {
  const { deployer } = await users();
  const usdc = TestUSDC__factory.connect(deployment.usdc.address, deployer);
  await (await usdc.mint(await who.getAddress(), amount)).wait();
}

export async function deposit(deployment: Deployment, id: VaultId, who: Signer, amount: bigint): Promise<void> {
  const vault = vaultAt(deployment, id, who);
  const usdc = TestUSDC__factory.connect(deployment.usdc.address, who);
  await (await usdc.approve(await vault.getAddress(), amount)).wait();
  await (await vault.deposit(amount, await who.getAddress())).wait();
}

export async function report(deployment: Deployment, id: VaultId, gain: bigint): Promise<void> {
  const harvester = await relayer(deployment);
  await fund(deployment, harvester, gain);
  const vault = vaultAt(deployment, id, harvester);
  const usdc = TestUSDC__factory.connect(deployment.usdc.address, harvester);
  await (await usdc.approve(await vault.getAddress(), gain)).wait();
  await (await vault.report(gain)).wait();
}

/** The activity of the indexer tests; answers the users it involved. */
export async function scriptedActivity(deployment: Deployment): Promise<string[]> {
  const { alice, bob } = await users();
  const a = await alice.getAddress();
  const b = await bob.getAddress();
  await fund(deployment, alice, 100_000n * USDC);
  await fund(deployment, bob, 100_000n * USDC);
  for (const id of VAULT_IDS) {
    await deposit(deployment, id, alice, 1_000n * USDC);
    await deposit(deployment, id, bob, 500n * USDC);
  }
  await report(deployment, "moderate", 30n * USDC);
  await time.increase(6 * 3600);
  for (const id of VAULT_IDS) {
    const vault = vaultAt(deployment, id, alice);
    const shares = await vault.balanceOf(a);
    if (!(await vault.isERC7540())) {
      await (await vault.redeem(shares / 4n, a, a)).wait();
      await (await vault.transfer(b, shares / 10n)).wait();
    } else {
      await (await vault.requestRedeem(shares / 2n, a, a)).wait();
      await (await vaultAt(deployment, id, bob).requestRedeem((await vault.balanceOf(b)) / 3n, b, b)).wait();
    }
  }
  // Bob cancels his request in the hedged vault and takes the shares back.
  const hedgedBob = vaultAt(deployment, "hedged", bob);
  await (await hedgedBob.cancelRedeemRequest(0, b)).wait();
  await (await hedgedBob.claimCancelRedeemRequest(0, b, b)).wait();
  await time.increase(2 * 86_400);
  const fulfiller = await relayer(deployment);
  for (const id of VAULT_IDS) {
    const vault = vaultAt(deployment, id, fulfiller);
    if (!(await vault.isERC7540())) continue;
    await (await vault.fulfillRedeem(a)).wait();
    if (id !== "hedged") await (await vault.fulfillRedeem(b)).wait();
    // Alice claims her whole request in two parts; Bob leaves his claimable.
    const aliceVault = vaultAt(deployment, id, alice);
    const claimable = await aliceVault.claimableRedeemRequest(0, a);
    await (await aliceVault.redeem(claimable / 2n, a, a)).wait();
    await (await aliceVault.redeem(claimable - claimable / 2n, a, a)).wait();
  }
  await report(deployment, "conservative", 10n * USDC);
  await time.increase(3600);
  await deposit(deployment, "conservative", bob, 200n * USDC);
  return [a, b];
}

/**
 * Alice submits a strategy, the relayer (screener) passes it to guardian review, and the timelock (the vaults'
 * manager, impersonated) allocates half of the moderate vault and a quarter of the aggressive one to it.
 */
export async function strategyActivity(deployment: Deployment): Promise<string> {
  const { alice } = await users();
  const registryAddress = deployment.contracts.StrategyRegistryV3!.address;
  const registry = StrategyRegistryV3__factory.connect(registryAddress, alice);
  const params = {
    maxPositionSizePercent: 10n,
    maxLeverage: 200n,
    stopLossPercent: 500n,
    slippageToleranceBps: 100n,
    correlationThreshold: 70n,
    velocityLimit: 5000n,
    flashLoansEnabled: false,
  };
  const dna = ethers.id("indexer test strategy");
  const id = await registry.submit.staticCall("Mean reversion", "Buys dips, sells rips.", dna, params);
  await (await registry.submit("Mean reversion", "Buys dips, sells rips.", dna, params)).wait();
  await (await registry.connect(await relayer(deployment)).passScreening(id)).wait();
  const manager = await impersonate(deployment.contracts.TimelockController!.address);
  await (await vaultAt(deployment, "moderate", manager).setAllocations([{ strategyId: id, targetBps: 5000 }])).wait();
  await (await vaultAt(deployment, "aggressive", manager).setAllocations([{ strategyId: id, targetBps: 2500 }])).wait();
  return id;
}

export function lensAt(deployment: Deployment) {
  const lens = deployment.contracts.VaultLens;
  if (!lens) throw new Error("no lens");
  return VaultLens__factory.connect(lens.address, ethers.provider);
}
