import type { JsonRpcProvider } from "ethers";
import { NapVault__factory, TestUSDC__factory } from "../../typechain-types";

/**
 * The test harness's hand on a spawned Hardhat node, for runs where a wallet must act alone: TestUSDC minted to it
 * by the token's minter (impersonated), and an ERC-7540 request fulfilled by a keeper once the chain's time has
 * passed the vault's delay and grace period.
 */

/** TestUSDC minted to `to` by its minter, impersonated on the test node. */
export async function mintTestUsdc(provider: JsonRpcProvider, usdc: string, to: string, amount: bigint): Promise<void> {
  const token = TestUSDC__factory.connect(usdc, provider);
  const minter = (await token.queryFilter(token.filters.RoleGranted(await token.MINTER_ROLE())))[0]!.args.account;
  await provider.send("hardhat_impersonateAccount", [minter]);
  await provider.send("hardhat_setBalance", [minter, "0xde0b6b3a7640000"]);
  await (await token.connect(await provider.getSigner(minter)).mint(to, amount)).wait();
  await provider.send("hardhat_stopImpersonatingAccount", [minter]);
}

/** Past the fulfilment delay and its grace period, then fulfilled by a keeper (anyone may, by then). */
export async function fulfilAsKeeper(
  provider: JsonRpcProvider,
  vaultAddress: string,
  controller: string,
): Promise<void> {
  const vault = NapVault__factory.connect(vaultAddress, provider);
  const wait = Number(await vault.fulfillmentDelay()) + Number(await vault.FULFILLMENT_GRACE_PERIOD()) + 1;
  await provider.send("evm_increaseTime", [wait]);
  await provider.send("evm_mine", []);
  const keeper = await provider.getSigner(5);
  await (await vault.connect(keeper).fulfillRedeem(controller)).wait();
}
