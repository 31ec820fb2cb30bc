/**
 * Vault section of the gas benchmark: OpenZeppelin 5's plain ERC4626 (decimals offset 6) as the reference, and the
 * six NAP vaults with their deployment parameters, all over TestUSDC (6 decimals) with unlimited allowances.
 */
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { ContractTransactionResponse, Signer } from "ethers";
import { ReferenceERC4626__factory, MockUSDC__factory, type MockUSDC } from "../../typechain-types";
import { VAULT_IDS, deployVaults, vaultConfigs } from "../../deploy/vaults";
import type { BenchSection } from "./table";

const USDC = 10n ** 6n;
const FIRST_DEPOSIT = 1_000n * USDC;
const REPEAT_DEPOSIT = 500n * USDC;
/** Synchronous operations must stay within this factor of the reference. */
const TARGET_RATIO = 1.1;
/** Figures of the reference measured in ../shared/TOOLCHAIN.md (same setup); the run must reproduce them. */
const REFERENCE_FIGURES: Record<string, bigint> = {
  "first deposit": 108_313n,
  "deposit by a new holder": 74_113n,
  "repeat deposit": 57_013n,
  "partial redeem": 55_709n,
  withdraw: 58_043n,
  "full redeem": 50_897n,
};
/**
 * A share amount's zero bytes in calldata cost 4 gas instead of 16; amounts derived from balances can differ from
 * the original measurement by one such byte (12 gas), which says nothing about execution. Anything larger fails.
 */
const CALLDATA_BYTE_TOLERANCE = 12n;
const SYNC_OPERATIONS = [
  "first deposit",
  "deposit by a new holder",
  "repeat deposit",
  "mint",
  "partial redeem",
  "withdraw",
  "full redeem",
] as const;
const ASYNC_OPERATIONS = ["requestRedeem", "fulfilRedeem", "claim (redeem)"] as const;

/** The minimal surface both the reference and the NAP vaults share. */
interface BenchVault {
  getAddress(): Promise<string>;
  connect(signer: Signer): BenchVault;
  deposit(assets: bigint, receiver: string): Promise<ContractTransactionResponse>;
  mint(shares: bigint, receiver: string): Promise<ContractTransactionResponse>;
  redeem(shares: bigint, receiver: string, owner: string): Promise<ContractTransactionResponse>;
  withdraw(assets: bigint, receiver: string, owner: string): Promise<ContractTransactionResponse>;
  balanceOf(account: string): Promise<bigint>;
  convertToShares(assets: bigint): Promise<bigint>;
}

async function gasOf(tx: Promise<ContractTransactionResponse>): Promise<bigint> {
  const receipt = await (await tx).wait();
  if (!receipt) throw new Error("missing receipt");
  return receipt.gasUsed;
}

async function fund(usdc: MockUSDC, holders: Signer[], spenders: string[]): Promise<void> {
  for (const holder of holders) {
    await usdc.mint(await holder.getAddress(), 1_000_000n * USDC);
    for (const spender of spenders) await usdc.connect(holder).approve(spender, ethers.MaxUint256);
  }
}

/** The common entry sequence: first deposit, new holder, repeat deposit, mint. */
async function measureEntries(vault: BenchVault, alice: Signer, bob: Signer): Promise<Record<string, bigint>> {
  const a = await alice.getAddress();
  const b = await bob.getAddress();
  const gas: Record<string, bigint> = {};
  gas["first deposit"] = await gasOf(vault.connect(alice).deposit(FIRST_DEPOSIT, a));
  gas["deposit by a new holder"] = await gasOf(vault.connect(bob).deposit(FIRST_DEPOSIT, b));
  gas["repeat deposit"] = await gasOf(vault.connect(alice).deposit(REPEAT_DEPOSIT, a));
  gas.mint = await gasOf(vault.connect(bob).mint(await vault.convertToShares(REPEAT_DEPOSIT), b));
  return gas;
}

async function measureSyncExits(vault: BenchVault, alice: Signer, bob: Signer): Promise<Record<string, bigint>> {
  const a = await alice.getAddress();
  const b = await bob.getAddress();
  const gas: Record<string, bigint> = {};
  gas["partial redeem"] = await gasOf(vault.connect(alice).redeem((await vault.balanceOf(a)) / 2n, a, a));
  gas.withdraw = await gasOf(vault.connect(bob).withdraw(REPEAT_DEPOSIT, b, b));
  gas["full redeem"] = await gasOf(vault.connect(alice).redeem(await vault.balanceOf(a), a, a));
  return gas;
}

export async function run(): Promise<BenchSection> {
  // Signers 1 and 3: addresses without zero bytes, as in the setup where the reference figures were measured.
  const [deployer, alice, fulfiller, bob] = await ethers.getSigners();
  const admin = await deployer.getAddress();
  const usdc = await new MockUSDC__factory(deployer).deploy();
  const usdcAddress = await usdc.getAddress();

  const reference = await new ReferenceERC4626__factory(deployer).deploy(usdcAddress);
  const vaults = await deployVaults(deployer, usdcAddress, {
    admin,
    manager: admin,
    harvester: admin,
    guardian: admin,
    fulfiller: await fulfiller.getAddress(),
    feeRecipient: admin,
  });
  const spenders = [await reference.getAddress(), ...VAULT_IDS.map((id) => vaults[id].address)];
  await fund(usdc, [alice, bob], spenders);

  const columns = ["reference", ...VAULT_IDS];
  const results: Record<string, Record<string, bigint>> = {};
  results.reference = {
    ...(await measureEntries(reference as unknown as BenchVault, alice, bob)),
    ...(await measureSyncExits(reference as unknown as BenchVault, alice, bob)),
  };
  for (const id of VAULT_IDS) {
    const vault = vaults[id].contract;
    const gas = await measureEntries(vault as unknown as BenchVault, alice, bob);
    if (!vaultConfigs[id].async) {
      Object.assign(gas, await measureSyncExits(vault as unknown as BenchVault, alice, bob));
    } else {
      const a = await alice.getAddress();
      gas.requestRedeem = await gasOf(vault.connect(alice).requestRedeem((await vault.balanceOf(a)) / 2n, a, a));
      await time.increase(vaultConfigs[id].fulfillmentDelay);
      gas.fulfilRedeem = await gasOf(vault.connect(fulfiller).fulfillRedeem(a));
      gas["claim (redeem)"] = await gasOf(vault.connect(alice).redeem(await vault.maxRedeem(a), a, a));
    }
    results[id] = gas;
  }

  const failures: string[] = [];
  const referenceNotes: string[] = [];
  for (const [operation, expected] of Object.entries(REFERENCE_FIGURES)) {
    const measured = results.reference[operation];
    const difference = measured - expected;
    if (difference > CALLDATA_BYTE_TOLERANCE || difference < -CALLDATA_BYTE_TOLERANCE) {
      failures.push(`reference ${operation}: measured ${measured}, TOOLCHAIN.md says ${expected}`);
    } else if (difference !== 0n) {
      referenceNotes.push(`reference ${operation}: ${measured} vs ${expected} in TOOLCHAIN.md (${difference} gas)`);
    }
  }
  for (const id of VAULT_IDS) {
    for (const operation of SYNC_OPERATIONS) {
      const measured = results[id][operation];
      if (measured === undefined) continue;
      const ratio = Number(measured) / Number(results.reference[operation]);
      if (ratio > TARGET_RATIO) failures.push(`${id} ${operation}: ${ratio.toFixed(3)}x the reference`);
    }
  }

  const operations = [...SYNC_OPERATIONS, ...ASYNC_OPERATIONS];
  return {
    title: "Vaults: gas per operation (ratio to OpenZeppelin 5 ERC4626, decimals offset 6)",
    reference: "reference",
    columns,
    rows: operations.map((operation) => ({
      operation,
      gas: Object.fromEntries(columns.map((column) => [column, results[column][operation] ?? null])),
    })),
    failures,
    notes: [
      ...referenceNotes,
      `Target: every synchronous operation <= ${TARGET_RATIO}x the reference. Asynchronous vaults exit through ` +
        "requestRedeem / fulfilRedeem / claim instead of redeem and withdraw.",
    ],
  };
}
