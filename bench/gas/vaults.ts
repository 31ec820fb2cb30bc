/**
 * Vault section of the gas benchmark: OpenZeppelin 5's plain ERC4626 (decimals offset 6) as the reference, and the
 * six NAP vaults with their deployment parameters, all over TestUSDC (6 decimals) with unlimited allowances.
 */
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { ContractTransactionResponse, Signer } from "ethers";
import { ReferenceERC4626__factory, MockUSDC__factory, type MockUSDC, type NapVault } from "../../typechain-types";
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
const SYNC_OPERATIONS = [
  "first deposit",
  "deposit by a new holder",
  "repeat deposit",
  "mint",
  "partial redeem",
  "withdraw",
  "full redeem",
  "exit of all (redeemAll)",
] as const;
const ASYNC_OPERATIONS = [
  "requestRedeem",
  "fulfilRedeem (fulfiller, at the ready time)",
  "claim (redeem)",
  "fulfilRedeem (anyone, after the grace period)",
  "cancelRedeemRequest",
  "claimCancelRedeemRequest",
] as const;
/** ERC-7540 operators appointed by an ERC-7741 signature (what a router of signed messages goes through). */
const OPERATOR_OPERATIONS = ["authorizeOperator (EOA signature, relayed)", "partial redeem by an operator"] as const;
const AUTHORIZE_OPERATOR_TYPES = {
  AuthorizeOperator: [
    { name: "controller", type: "address" },
    { name: "operator", type: "address" },
    { name: "approved", type: "bool" },
    { name: "nonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
};
/** ConfigurableNapVault's FULFILLMENT_GRACE_PERIOD, the same for every vault. */
const GRACE_PERIOD = 3600;
/** The same operations an hour after a report, while profit unlocks (the reference has a donation instead). */
const UNLOCKING = " (profit unlocking)";
const UNLOCKING_OPERATIONS = [
  "repeat deposit",
  "mint",
  "partial redeem",
  "withdraw",
  "full redeem",
  "exit of all (redeemAll)",
].map((operation) => operation + UNLOCKING);
const REPORTED_PROFIT = 100n * USDC;

/** The minimal surface both the reference and the NAP vaults share. */
interface BenchVault {
  getAddress(): Promise<string>;
  connect(signer: Signer): BenchVault;
  deposit(assets: bigint, receiver: string): Promise<ContractTransactionResponse>;
  mint(shares: bigint, receiver: string): Promise<ContractTransactionResponse>;
  redeem(shares: bigint, receiver: string, owner: string): Promise<ContractTransactionResponse>;
  withdraw(assets: bigint, receiver: string, owner: string): Promise<ContractTransactionResponse>;
  balanceOf(account: string): Promise<bigint>;
  maxRedeem(owner: string, overrides?: { blockTag: string }): Promise<bigint>;
  convertToShares(assets: bigint): Promise<bigint>;
  /** NAP vaults only: the exit of the whole position in one call. */
  redeemAll?(receiver: string, owner: string): Promise<ContractTransactionResponse>;
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

/**
 * Shares a full exit of `owner` redeems in the next block: maxRedeem read at that block's timestamp, since the
 * performance fee a NAP holder owes (burnt with the exit) grows while profit unlocks. The reference's is the balance.
 */
async function fullExitShares(vault: BenchVault, owner: string): Promise<bigint> {
  await time.setNextBlockTimestamp((await time.latest()) + 1);
  return vault.maxRedeem(owner, { blockTag: "pending" });
}

/**
 * The exit of every share `holder` has: a NAP vault's redeemAll (settles the performance fee owed in its own block),
 * the reference's redeem of the balance.
 */
function exitAll(vault: BenchVault, holder: Signer, address: string): Promise<ContractTransactionResponse> {
  const own = vault.connect(holder);
  if (own.redeemAll) return own.redeemAll(address, address);
  return vault.balanceOf(address).then((shares) => own.redeem(shares, address, address));
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

/** Partial redeem, withdraw and full redeem by the first depositor, as in the TOOLCHAIN.md measurement; then the
 * second holder's exit of all it has, while a third one stays (so that no exit empties the supply). */
async function measureSyncExits(
  vault: BenchVault,
  alice: Signer,
  bob: Signer,
  stayer: Signer,
): Promise<Record<string, bigint>> {
  const a = await alice.getAddress();
  await (await vault.connect(stayer).deposit(FIRST_DEPOSIT, await stayer.getAddress())).wait();
  const gas: Record<string, bigint> = {};
  gas["partial redeem"] = await gasOf(vault.connect(alice).redeem((await vault.balanceOf(a)) / 2n, a, a));
  gas.withdraw = await gasOf(vault.connect(alice).withdraw(REPEAT_DEPOSIT, a, a));
  gas["full redeem"] = await gasOf(vault.connect(alice).redeem(await fullExitShares(vault, a), a, a));
  gas["exit of all (redeemAll)"] = await gasOf(exitAll(vault, bob, await bob.getAddress()));
  return gas;
}

/** `owner` signs an ERC-7741 authorisation of `operator`, `relayer` submits it (a controller's first), then on a
 * synchronous vault the operator redeems half of the owner's shares to itself, without an allowance. */
async function measureOperator(
  vault: NapVault,
  owner: Signer,
  operator: Signer,
  relayer: Signer,
  withExit: boolean,
): Promise<Record<string, bigint>> {
  const [o, op] = [await owner.getAddress(), await operator.getAddress()];
  const { chainId } = await ethers.provider.getNetwork();
  const domain = { name: await vault.name(), version: "1", chainId, verifyingContract: await vault.getAddress() };
  const message = { controller: o, operator: op, approved: true, nonce: ethers.id("bench"), deadline: 2n ** 40n };
  const signature = await owner.signTypedData(domain, AUTHORIZE_OPERATOR_TYPES, message);
  const gas: Record<string, bigint> = {};
  gas[OPERATOR_OPERATIONS[0]] = await gasOf(
    vault.connect(relayer).authorizeOperator(o, op, true, message.nonce, message.deadline, signature),
  );
  if (withExit) {
    gas[OPERATOR_OPERATIONS[1]] = await gasOf(vault.connect(operator).redeem((await vault.balanceOf(o)) / 2n, op, o));
  }
  return gas;
}

async function measureWhileUnlocking(
  vault: BenchVault,
  alice: Signer,
  bob: Signer,
  stayer: Signer,
  withExits: boolean,
  report: () => Promise<void>,
): Promise<Record<string, bigint>> {
  const a = await alice.getAddress();
  const b = await bob.getAddress();
  await (await vault.connect(alice).deposit(FIRST_DEPOSIT, a)).wait();
  await (await vault.connect(bob).deposit(FIRST_DEPOSIT, b)).wait();
  await (await vault.connect(stayer).deposit(FIRST_DEPOSIT, await stayer.getAddress())).wait();
  await report();
  await time.increase(3600);
  const gas: Record<string, bigint> = {};
  gas["repeat deposit" + UNLOCKING] = await gasOf(vault.connect(alice).deposit(REPEAT_DEPOSIT, a));
  gas["mint" + UNLOCKING] = await gasOf(vault.connect(bob).mint(await vault.convertToShares(REPEAT_DEPOSIT), b));
  if (withExits) {
    gas["partial redeem" + UNLOCKING] = await gasOf(vault.connect(alice).redeem((await vault.balanceOf(a)) / 2n, a, a));
    gas["withdraw" + UNLOCKING] = await gasOf(vault.connect(bob).withdraw(REPEAT_DEPOSIT, b, b));
    gas["full redeem" + UNLOCKING] = await gasOf(vault.connect(alice).redeem(await fullExitShares(vault, a), a, a));
    gas["exit of all (redeemAll)" + UNLOCKING] = await gasOf(exitAll(vault, bob, b));
  }
  return gas;
}

export async function run(): Promise<BenchSection> {
  // Signers 1 and 3: addresses without zero bytes, as in the setup where the reference figures were measured.
  const [deployer, alice, fulfiller, bob, keeper] = await ethers.getSigners();
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
  await fund(usdc, [alice, bob, keeper], spenders);

  const columns = ["reference", ...VAULT_IDS];
  const results: Record<string, Record<string, bigint>> = {};
  results.reference = {
    ...(await measureEntries(reference as unknown as BenchVault, alice, bob)),
    ...(await measureSyncExits(reference as unknown as BenchVault, alice, bob, keeper)),
  };
  for (const id of VAULT_IDS) {
    const vault = vaults[id].contract;
    const gas = await measureEntries(vault as unknown as BenchVault, alice, bob);
    if (!vaultConfigs[id].async) {
      Object.assign(gas, await measureSyncExits(vault as unknown as BenchVault, alice, bob, keeper));
    } else {
      const a = await alice.getAddress();
      const delay = vaultConfigs[id].fulfillmentDelay;
      gas.requestRedeem = await gasOf(vault.connect(alice).requestRedeem((await vault.balanceOf(a)) / 2n, a, a));
      await time.increase(delay);
      gas["fulfilRedeem (fulfiller, at the ready time)"] = await gasOf(vault.connect(fulfiller).fulfillRedeem(a));
      gas["claim (redeem)"] = await gasOf(vault.connect(alice).redeem(await vault.maxRedeem(a), a, a));
      // Without the fulfiller: anyone fills once the grace period has passed.
      await (await vault.connect(alice).requestRedeem((await vault.balanceOf(a)) / 2n, a, a)).wait();
      await time.increase(delay + GRACE_PERIOD);
      gas["fulfilRedeem (anyone, after the grace period)"] = await gasOf(vault.connect(keeper).fulfillRedeem(a));
      await (await vault.connect(alice).requestRedeem((await vault.balanceOf(a)) / 2n, a, a)).wait();
      gas.cancelRedeemRequest = await gasOf(vault.connect(alice).cancelRedeemRequest(0, a));
      gas.claimCancelRedeemRequest = await gasOf(vault.connect(alice).claimCancelRedeemRequest(0, a, a));
    }
    Object.assign(gas, await measureOperator(vault, keeper, bob, alice, !vaultConfigs[id].async));
    results[id] = gas;
  }

  // Second round on fresh deployments: the hot path while a report's profit unlocks.
  const unlockingVaults = await deployVaults(deployer, usdcAddress, {
    admin,
    manager: admin,
    harvester: admin,
    guardian: admin,
    fulfiller: await fulfiller.getAddress(),
    feeRecipient: admin,
  });
  const reference2 = await new ReferenceERC4626__factory(deployer).deploy(usdcAddress);
  const spenders2 = [await reference2.getAddress(), ...VAULT_IDS.map((id) => unlockingVaults[id].address)];
  await fund(usdc, [alice, bob, keeper, deployer], spenders2);
  const reference2Address = await reference2.getAddress();
  Object.assign(
    results.reference,
    await measureWhileUnlocking(reference2 as unknown as BenchVault, alice, bob, keeper, true, async () => {
      await (await usdc.transfer(reference2Address, REPORTED_PROFIT)).wait();
    }),
  );
  for (const id of VAULT_IDS) {
    const vault = unlockingVaults[id].contract;
    Object.assign(
      results[id],
      await measureWhileUnlocking(
        vault as unknown as BenchVault,
        alice,
        bob,
        keeper,
        !vaultConfigs[id].async,
        async () => {
          await (await vault.report(REPORTED_PROFIT)).wait();
        },
      ),
    );
  }

  const failures: string[] = [];
  for (const [operation, expected] of Object.entries(REFERENCE_FIGURES)) {
    const measured = results.reference[operation];
    if (measured !== expected) {
      failures.push(`reference ${operation}: measured ${measured}, TOOLCHAIN.md says ${expected}`);
    }
  }
  for (const id of VAULT_IDS) {
    for (const operation of [...SYNC_OPERATIONS, ...UNLOCKING_OPERATIONS]) {
      const measured = results[id][operation];
      if (measured === undefined) continue;
      const ratio = Number(measured) / Number(results.reference[operation]);
      if (ratio > TARGET_RATIO) failures.push(`${id} ${operation}: ${ratio.toFixed(3)}x the reference`);
    }
  }

  const operations = [...SYNC_OPERATIONS, ...ASYNC_OPERATIONS, ...OPERATOR_OPERATIONS, ...UNLOCKING_OPERATIONS];
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
      `Target: every synchronous operation <= ${TARGET_RATIO}x the reference. Asynchronous vaults exit through ` +
        "requestRedeem / fulfilRedeem / claim instead of redeem and withdraw.",
      "Every deposit, mint, withdraw, redeem and fill of the NAP vaults brings the management fee to date (each runs " +
        "at least a second after the previous operation), writing the vault's packed state slot.",
      "Operator rows: a holder's first ERC-7741 authorisation, signed by its key and submitted by another account, " +
        "then (synchronous vaults) its operator's redeem of half its shares to itself, with no allowance.",
    ],
  };
}
