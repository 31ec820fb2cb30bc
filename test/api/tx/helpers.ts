import { ethers, network } from "hardhat";
import { toBeHex } from "ethers";
import type { RpcProvider } from "../../../api/src/chain";
import { ServerWallets, type WalletRef } from "../../../api/src/chain/wallets";
import type { TxProbe } from "../../../typechain-types";

/** The public development mnemonic of the project (never for a real chain). */
export const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";

export const devWallets = new ServerWallets(DEV_MNEMONIC);

export function agent(index: number): WalletRef {
  return { kind: "agent", index };
}

/** Gives the derived wallets of agents [0, count) `eth` ETH each on the in-process Hardhat chain. */
export async function fundAgents(count: number, eth = "10", first = 0): Promise<void> {
  for (let i = first; i < first + count; i++) {
    await network.provider.send("hardhat_setBalance", [devWallets.agentAddress(i), toBeHex(ethers.parseEther(eth))]);
  }
}

export async function deployProbe(): Promise<TxProbe> {
  const factory = await ethers.getContractFactory("TxProbe");
  const probe = await factory.deploy();
  await probe.waitForDeployment();
  return probe;
}

export function hitData(probe: TxProbe, tag: string): string {
  return probe.interface.encodeFunctionData("hit", [ethers.id(tag)]);
}

export const provider = ethers.provider as unknown as RpcProvider;
