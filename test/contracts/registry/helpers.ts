import { ethers } from "hardhat";
import type { StrategyRegistryV3 } from "../../../typechain-types";
import type { IStrategyRegistryV3 } from "../../../typechain-types/contracts/registry/StrategyRegistryV3";

/** Onchain status enum, in the fixed order shared with the API. */
export const Status = {
  Shadow: 0,
  GuardianReview: 1,
  PaperTrading: 2,
  PendingOracleApproval: 3,
  Live: 4,
  Paused: 5,
  Deprecated: 6,
} as const;
export type StatusValue = (typeof Status)[keyof typeof Status];

/** The API's default risk parameters. */
export function defaultParams(): IStrategyRegistryV3.RiskParamsStruct {
  return {
    maxPositionSizePercent: 10n,
    maxLeverage: 200n,
    stopLossPercent: 500n,
    slippageToleranceBps: 100n,
    correlationThreshold: 70n,
    velocityLimit: 1_000_000n,
    flashLoansEnabled: false,
  };
}

export const ONE_WEEK = 7 * 24 * 3600;

/** Deploys a registry with k = 2 guardians / 2 oracles, a one-week paper-trading period, and every role granted. */
export async function deployRegistry() {
  const [admin, screener, guardian1, guardian2, guardian3, manager, oracle1, oracle2, owner, stranger] =
    await ethers.getSigners();
  const registry = (await ethers.deployContract("StrategyRegistryV3", [
    admin.address,
    2,
    2,
    ONE_WEEK,
  ])) as unknown as StrategyRegistryV3;
  await registry.grantRole(await registry.SCREENER_ROLE(), screener.address);
  for (const g of [guardian1, guardian2, guardian3])
    await registry.grantRole(await registry.GUARDIAN_ROLE(), g.address);
  await registry.grantRole(await registry.MANAGER_ROLE(), manager.address);
  for (const o of [oracle1, oracle2]) await registry.grantRole(await registry.ORACLE_ROLE(), o.address);
  return {
    registry,
    admin,
    screener,
    guardian1,
    guardian2,
    guardian3,
    manager,
    oracle1,
    oracle2,
    owner,
    stranger,
  };
}

/** Submits a strategy as `owner` and returns its id (read from the event). */
export async function submitAs(
  registry: StrategyRegistryV3,
  owner: { address: string },
  name = "Momentum alpha",
  description = "Buys strength, sells weakness.",
  dna = ethers.id("dna"),
): Promise<string> {
  const signer = await ethers.getSigner(owner.address);
  const tx = await registry.connect(signer).submit(name, description, dna, defaultParams());
  const receipt = await tx.wait();
  const log = receipt!.logs.map((l) => registry.interface.parseLog(l)).find((p) => p?.name === "StrategySubmitted");
  return log!.args.strategyId as string;
}

/** The id the registry derives: keccak256(abi.encode(chainid, registry, owner, index, dna)). */
export function expectedId(chainId: bigint, registry: string, owner: string, index: bigint, dna: string): string {
  return ethers.keccak256(
    ethers.AbiCoder.defaultAbiCoder().encode(
      ["uint256", "address", "address", "uint256", "bytes32"],
      [chainId, registry, owner, index, dna],
    ),
  );
}

/** Plain object of a RiskParams result, for deep equality. */
export function riskParamsOf(p: IStrategyRegistryV3.RiskParamsStructOutput) {
  return {
    maxPositionSizePercent: p.maxPositionSizePercent,
    maxLeverage: p.maxLeverage,
    stopLossPercent: p.stopLossPercent,
    slippageToleranceBps: p.slippageToleranceBps,
    correlationThreshold: p.correlationThreshold,
    velocityLimit: p.velocityLimit,
    flashLoansEnabled: p.flashLoansEnabled,
  };
}
