import { expect } from "chai";
import { ethers } from "hardhat";
import {
  impersonateAccount,
  setBalance,
  stopImpersonatingAccount,
  time,
} from "@nomicfoundation/hardhat-network-helpers";
import { HDNodeWallet, type Log } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { registerAgent } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { NapVault__factory, TestUSDC__factory, type NapVault } from "../../typechain-types";
import { client, DEV_MNEMONIC, startE2eApp, type E2eSystem } from "./helpers";

const DAY = 86_400;

/**
 * "All shares" exits through HTTP while a performance fee is owed and the profit of a report unlocks (issue 27,
 * follow-up of the per-holder hurdle): the fee owed grows every second, so a share count read at the head block is
 * too many a block later; the exit must still take the whole position, leave no share behind and pay what the
 * Withdraw event says.
 */
describe("E2E: exit of all shares while a performance fee is owed", function () {
  this.timeout(240_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let alice: ReturnType<typeof client>;
  let aliceAddress: string;

  const vault = (id: "moderate" | "aggressive"): NapVault =>
    NapVault__factory.connect(deployment.vaults[id]!.address, ethers.provider);
  const usdc = () => TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, ethers.provider);
  const eventOf = (v: NapVault, logs: readonly Log[], name: string) => {
    for (const log of logs) {
      if (log.address !== v.target) continue;
      const parsed = v.interface.parseLog(log);
      if (parsed?.name === name) return parsed.args;
    }
    throw new Error(`no ${name} event`);
  };

  /** The vault's harvester (the relayer) reports `gain` USDC, minted to it by TestUSDC's minter. */
  const report = async (v: NapVault, gain: bigint) => {
    const harvester = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, "m/44'/60'/0'/0/0").address;
    expect(await v.hasRole(await v.HARVESTER_ROLE(), harvester)).to.equal(true);
    const token = usdc();
    const minter = (await token.queryFilter(token.filters.RoleGranted(await token.MINTER_ROLE())))[0]!.args.account;
    for (const account of [minter, harvester]) {
      await impersonateAccount(account);
      // Gas money only where it lacks: the minter is the deployer, whose ETH later suites' deployments spend.
      if ((await ethers.provider.getBalance(account)) < 10n ** 18n) await setBalance(account, 10n ** 18n);
    }
    await token.connect(await ethers.getSigner(minter)).mint(harvester, gain);
    const signer = await ethers.getSigner(harvester);
    await token.connect(signer).approve(v.target, gain);
    await v.connect(signer).report(gain);
    for (const account of [minter, harvester]) await stopImpersonatingAccount(account);
  };

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("exit-all", deployment, { STRATEGY_SCREENING: "off" });
    const a = await registerAgent(system.app.url, undefined, { agent_name: "alice" });
    alice = client(system.app.url, a.apiKey);
    const record = await system.store.agents.findById(a.agentId);
    aliceAddress = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).address;
    expect((await alice("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    for (const [vaultId, amount] of [
      ["moderate", 400],
      ["aggressive", 400],
    ] as const) {
      const deposit = await alice("POST", "/api/v1/agent/vault/deposit", { vault_id: vaultId, amount_usdc: amount });
      expect(deposit.status, JSON.stringify(deposit.body)).to.equal(200);
    }
    // A month held, then a report of 10% of each vault's assets, a day of its unlock gone: beyond the hurdle.
    await time.increase(30 * DAY);
    for (const id of ["moderate", "aggressive"] as const)
      await report(vault(id), (await vault(id).totalAssets()) / 10n);
    await time.increase(DAY);
  });

  after(async function () {
    await system?.close();
  });

  it("withdraws all shares of the synchronous vault while the fee owed grows: no share left, paid as the Withdraw event says", async function () {
    const moderate = vault("moderate");
    const [owed] = await moderate.performanceFeeOwed(aliceAddress);
    expect(owed > 0n, "the agent owes a performance fee").to.equal(true);
    const balance = await moderate.balanceOf(aliceAddress);
    const usdcBefore = await usdc().balanceOf(aliceAddress);
    const response = await alice("POST", "/api/v1/agent/vault/withdraw", { vault_id: "moderate", shares: "all" });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const receipt = (await ethers.provider.getTransactionReceipt(response.body.tx_hash as string))!;
    const withdrawn = eventOf(moderate, receipt.logs, "Withdraw");
    const burnt = eventOf(moderate, receipt.logs, "Transfer");
    expect(burnt.value, "the whole balance burnt: the shares redeemed and the fee's").to.equal(balance);
    expect(withdrawn.shares < balance, "the fee shares are not paid out").to.equal(true);
    expect(await moderate.balanceOf(aliceAddress)).to.equal(0n);
    expect(await usdc().balanceOf(aliceAddress)).to.equal(usdcBefore + (withdrawn.assets as bigint));
    expect(response.body).to.include({
      status: "confirmed",
      amount_raw: (withdrawn.assets as bigint).toString(),
      shares_raw: (withdrawn.shares as bigint).toString(),
      shares_balance: "0",
    });
  });

  it("requests the redemption of all shares of the asynchronous vault while a fee is owed: the whole balance pending", async function () {
    const aggressive = vault("aggressive");
    const [owed] = await aggressive.performanceFeeOwed(aliceAddress);
    expect(owed > 0n, "the agent owes a performance fee").to.equal(true);
    const balance = await aggressive.balanceOf(aliceAddress);
    const response = await alice("POST", "/api/v1/agent/vault/redeem-request", {
      vault_id: "aggressive",
      shares: "all",
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(await aggressive.balanceOf(aliceAddress)).to.equal(0n);
    expect(await aggressive.pendingRedeemRequest(0, aliceAddress)).to.equal(balance);
  });
});
