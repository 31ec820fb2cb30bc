import { expect } from "chai";
import { ethers } from "hardhat";
import { parseEther, parseUnits } from "ethers";
import type { ChainAccess } from "../../../api/src/chain";
import type { Deployment } from "../../../api/src/chain/deployment";
import { ServerWallets } from "../../../api/src/chain/wallets";
import { createLogger } from "../../../api/src/logger";
import { MemoryCounterStore } from "../../../api/src/store/memory/counters";
import { WalletIndexes } from "../../../api/src/usecases/wallet";
import { TestUSDC__factory } from "../../../typechain-types";
import { hardhatChain } from "../helpers/app";
import { deployTestSystem } from "../helpers/system";

/**
 * A counter that starts again from 0 against a chain that remembers (the memory store after a restart): wallet
 * indexes whose wallet was used onchain are never handed out again. A mnemonic of its own keeps these wallets apart
 * from every other test's agents on the shared chain.
 */
describe("WalletIndexes (a new agent never gets a wallet used onchain)", function () {
  const wallets = new ServerWallets("test test test test test test test test test test test junk");
  let deployment: Deployment;
  let chain: ChainAccess;

  before(async function () {
    deployment = await deployTestSystem();
    chain = await hardhatChain(deployment);
  });

  function indexes(): WalletIndexes {
    return new WalletIndexes(new MemoryCounterStore(), chain, wallets, createLogger("silent"));
  }

  it("skips wallets holding only ETH, only USDC, or that sent a transaction, and hands out the first unused one", async function () {
    const [deployer] = await ethers.getSigners();
    await deployer.sendTransaction({ to: wallets.agentAddress(0), value: parseEther("0.01") });
    // USDC sent to a wallet by anyone: no transaction of its own and no ETH, but an earlier agent's money.
    const usdc = TestUSDC__factory.connect(deployment.usdc.address, deployer);
    await usdc.grantRole(await usdc.MINTER_ROLE(), deployer.address);
    await usdc.mint(wallets.agentAddress(1), parseUnits("5", 6));
    // A wallet that sent a transaction and spent all it had on it.
    await ethers.provider.send("hardhat_setBalance", [
      wallets.agentAddress(2),
      "0x" + (21_000n * 10n ** 10n).toString(16),
    ]);
    const agent2 = new ethers.Wallet(
      ethers.HDNodeWallet.fromPhrase(
        "test test test test test test test test test test test junk",
        undefined,
        "m/44'/60'/1'/0/2",
      ).privateKey,
      ethers.provider,
    );
    await agent2.sendTransaction({
      to: agent2.address,
      value: 0,
      gasLimit: 21_000,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 0,
    });
    await ethers.provider.send("hardhat_setBalance", [wallets.agentAddress(2), "0x0"]);
    expect(await ethers.provider.getBalance(wallets.agentAddress(2))).to.equal(0n);

    const allocator = indexes();
    expect(await allocator.allocate()).to.equal(3);
    expect(await allocator.allocate()).to.equal(4);
  });

  it("moves a fresh counter past a run of used wallets at start-up", async function () {
    const [deployer] = await ethers.getSigners();
    for (let i = 3; i < 11; i++) await deployer.sendTransaction({ to: wallets.agentAddress(i), value: 1n });
    const allocator = indexes();
    await allocator.seedPastUsed();
    expect(await allocator.allocate()).to.equal(11);
  });
});
