import { expect } from "chai";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ethers } from "hardhat";
import {
  impersonateAccount,
  setBalance,
  stopImpersonatingAccount,
  time,
} from "@nomicfoundation/hardhat-network-helpers";
import { encryptKeystoreJson, Wallet } from "ethers";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { NapDataClient, NapTypedDataMismatchError, type RelayState } from "@nap/sdk";
import type { Deployment } from "../../api/src/chain/deployment";
import { main } from "../../packages/cli/src/main";
import { Output } from "../../packages/cli/src/output";
import { NapVault__factory, TestUSDC__factory, type NapVault } from "../../typechain-types";
import { deployTestSystem } from "../api/helpers/system";
import { DEV_MNEMONIC, startE2eApp, type E2eSystem } from "./helpers";

const USDC = 1_000_000n;

/**
 * Issue 30 through the clients: wallets that never registered and hold no ETH (fresh keys funded with TestUSDC
 * only) deposit, redeem, request, cancel and claim by signature through the TypeScript SDK (an ethers Wallet and a
 * viem Account) and through `nap wallet` with a key file (raw 0600 and an encrypted keystore), against the real
 * service and router; the relayer pays every transaction.
 */
describe("E2E: the SDK and the CLI sign the data API's writes for a wallet without ETH", function () {
  this.timeout(300_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let syncVault: NapVault;
  let asyncVault: NapVault;
  let data: NapDataClient;
  const relayer = Wallet.fromPhrase(DEV_MNEMONIC).address;
  const dir = mkdtempSync(path.join(tmpdir(), "nap-wallet-"));

  const usdc = () => TestUSDC__factory.connect(deployment.usdc.address, ethers.provider);

  const mint = async (to: string, amount: bigint) => {
    const token = usdc();
    const minter = (await token.queryFilter(token.filters.RoleGranted(await token.MINTER_ROLE())))[0]!.args.account;
    await impersonateAccount(minter);
    if ((await ethers.provider.getBalance(minter)) < 10n ** 18n) await setBalance(minter, 10n ** 18n);
    await token.connect(await ethers.getSigner(minter)).mint(to, amount);
    await stopImpersonatingAccount(minter);
  };

  /** The relay's transaction was sent by the relayer to the router, and the owner still holds no ETH. */
  const relayedFor = async (owner: string, relay: RelayState) => {
    expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
    const tx = await ethers.provider.getTransaction(relay.tx_hash!);
    expect([tx?.from, tx?.to]).to.deep.equal([relayer, deployment.contracts.NapRouter.address]);
    expect(await ethers.provider.getBalance(owner)).to.equal(0n);
  };

  const fulfil = async (controller: string) => {
    await time.increase(
      Number(await asyncVault.fulfillmentDelay()) + Number(await asyncVault.FULFILLMENT_GRACE_PERIOD()) + 1,
    );
    const [, , , , , keeper] = await ethers.getSigners();
    await (await asyncVault.connect(keeper).fulfillRedeem(controller)).wait();
  };

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("sdk-signed-writes", deployment, { STRATEGY_SCREENING: "off" });
    const vaults = Object.values(deployment.vaults).map((v) => NapVault__factory.connect(v!.address, ethers.provider));
    const kinds = await Promise.all(vaults.map((v) => v.isERC7540()));
    syncVault = vaults[kinds.indexOf(false)]!;
    asyncVault = vaults[kinds.indexOf(true)]!;
    const chainId = Number((await ethers.provider.getNetwork()).chainId);
    // The wallet pins the chain and the router it trusts: typed data for another would be refused.
    data = new NapDataClient({ baseUrl: system.app.url, chainId, router: deployment.contracts.NapRouter.address });
  });

  after(async function () {
    await system?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("an ethers Wallet deposits into the synchronous vault and redeems half, each relayed and confirmed", async function () {
    const owner = Wallet.createRandom();
    await mint(owner.address, 50n * USDC);
    const vault = await syncVault.getAddress();

    const deposit = await data.deposit({ vault, amount: 20n * USDC }, owner);
    // The answer carries the relay's current status: on an automining chain it may already be mined.
    expect(deposit.status).to.be.oneOf(["submitted", "confirmed"]);
    expect(deposit.status_url).to.equal(`/v1/relays/${deposit.relay_id}`);
    const deposited = await data.waitForRelay(deposit.relay_id, { intervalMs: 50 });
    await relayedFor(owner.address, deposited);
    const shares = await syncVault.balanceOf(owner.address);
    expect(deposited.result).to.deep.equal({ shares: shares.toString() });
    expect(await usdc().balanceOf(owner.address)).to.equal(30n * USDC);

    const before = await usdc().balanceOf(owner.address);
    const redeem = await data.redeem({ vault, shares: shares / 2n }, owner);
    const redeemed = await data.waitForRelay(redeem.relay_id, { intervalMs: 50 });
    await relayedFor(owner.address, redeemed);
    const paid = (await usdc().balanceOf(owner.address)) - before;
    expect(redeemed.result).to.deep.equal({ assets: paid.toString() });
    expect(await syncVault.balanceOf(owner.address)).to.equal(shares - shares / 2n);
    expect(await data.relay(redeem.relay_id)).to.deep.equal(redeemed);
  });

  it("a viem Account deposits into the ERC-7540 vault, requests, cancels, requests again and claims once fulfilled", async function () {
    const owner = privateKeyToAccount(generatePrivateKey());
    await mint(owner.address, 40n * USDC);
    const vault = await asyncVault.getAddress();
    const wait = (id: string) => data.waitForRelay(id, { intervalMs: 50 });

    await relayedFor(owner.address, await wait((await data.deposit({ vault, amount: 40n * USDC }, owner)).relay_id));
    const held = await asyncVault.balanceOf(owner.address);
    const requested = await wait((await data.requestRedeem({ vault, shares: held / 4n }, owner)).relay_id);
    await relayedFor(owner.address, requested);
    expect(requested.result).to.deep.equal({ shares: (held / 4n).toString() });
    expect(await asyncVault.pendingRedeemRequest(0, owner.address)).to.equal(held / 4n);

    const canceled = await wait((await data.cancelRedeem({ vault }, owner)).relay_id);
    await relayedFor(owner.address, canceled);
    expect(await asyncVault.balanceOf(owner.address)).to.equal(held);

    await wait((await data.requestRedeem({ vault, shares: held / 2n }, owner)).relay_id);
    await fulfil(owner.address);
    const claimable = await asyncVault.claimableRedeemRequest(0, owner.address);
    expect(claimable).to.equal(held / 2n);
    const before = await usdc().balanceOf(owner.address);
    const claimed = await wait((await data.claim({ vault, shares: claimable }, owner)).relay_id);
    await relayedFor(owner.address, claimed);
    expect(claimed.result).to.deep.equal({ assets: ((await usdc().balanceOf(owner.address)) - before).toString() });
    expect(await asyncVault.claimableRedeemRequest(0, owner.address)).to.equal(0n);
  });

  it("a wallet that expects another router refuses the service's typed data: nothing is signed or relayed", async function () {
    const owner = Wallet.createRandom();
    const elsewhere = new NapDataClient({ baseUrl: system.app.url, router: Wallet.createRandom().address });
    const error = await elsewhere
      .deposit({ vault: await syncVault.getAddress(), amount: 1n }, owner)
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NapTypedDataMismatchError);
    expect((error as NapTypedDataMismatchError).problems[0]).to.match(/^router is 0x[0-9a-fA-F]{40}, asked 0x/);
  });

  describe("nap wallet with a key file", function () {
    async function nap(argv: string[], env: Record<string, string> = {}) {
      let stdout = "";
      let stderr = "";
      const out = new Output(
        argv.includes("--json"),
        { write: (chunk: string) => ((stdout += chunk), true) } as unknown as NodeJS.WritableStream,
        { write: (chunk: string) => ((stderr += chunk), true) } as unknown as NodeJS.WritableStream,
      );
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const code = await main([...argv, "--api", system.app.url], out);
        return { code, stdout, stderr };
      } finally {
        for (const key of Object.keys(env)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    }

    it("a raw key file (0600) deposits and withdraws; one others can read is refused", async function () {
      const owner = Wallet.createRandom();
      await mint(owner.address, 10n * USDC);
      const file = path.join(dir, "owner.key");
      writeFileSync(file, `${owner.privateKey}\n`, { mode: 0o644 });
      const moderate = deployment.vaults.moderate!.address;
      const loose = await nap(["wallet", "deposit", moderate, "5", "--key-file", file]);
      expect(loose.code).to.equal(1);
      expect(loose.stderr).to.equal(
        `error: ${file} holds a private key and others can read it (mode 644): chmod 600 ${file}\n`,
      );
      chmodSync(file, 0o600);

      const deposit = await nap(["wallet", "deposit", moderate, "5", "--key-file", file, "--json"]);
      expect(deposit.code, deposit.stderr).to.equal(0);
      const relay = JSON.parse(deposit.stdout) as RelayState;
      await relayedFor(owner.address, relay);
      const vault = NapVault__factory.connect(moderate, ethers.provider);
      const shares = await vault.balanceOf(owner.address);
      expect(relay.result).to.deep.equal({ shares: shares.toString() });
      expect(await usdc().balanceOf(owner.address)).to.equal(5n * USDC);

      const withdraw = await nap(["wallet", "withdraw", moderate, "--shares", String(shares), "--key-file", file]);
      expect(withdraw.code, withdraw.stderr).to.equal(0);
      expect(withdraw.stdout).to.match(
        /^withdrew by signature: \d+(\.\d+)? USDC \(relay 0x[0-9a-f]{64}, tx 0x[0-9a-f]{64}, block \d+\)\n$/,
      );
      expect(await vault.balanceOf(owner.address)).to.equal(0n);
      expect(await ethers.provider.getBalance(owner.address)).to.equal(0n);
    });

    it("an encrypted keystore with NAP_KEY_PASSPHRASE deposits; --no-wait answers the relay to follow with nap wallet relay", async function () {
      const owner = Wallet.createRandom();
      await mint(owner.address, 3n * USDC);
      const file = path.join(dir, "owner.json");
      // A small scrypt cost keeps the test fast; the format is the one geth, cast and ethers write.
      const keystore = { address: owner.address, privateKey: owner.privateKey };
      writeFileSync(file, await encryptKeystoreJson(keystore, "correct horse", { scrypt: { N: 1024 } }));
      const moderate = deployment.vaults.moderate!.address;
      const wrong = await nap(["wallet", "deposit", moderate, "1", "--key-file", file], {
        NAP_KEY_PASSPHRASE: "wrong",
      });
      expect(wrong.code).to.equal(1);
      expect(wrong.stderr).to.equal(`error: cannot decrypt the keystore ${file}: incorrect password\n`);

      const sent = await nap(["wallet", "deposit", moderate, "1.5", "--key-file", file, "--no-wait"], {
        NAP_KEY_PASSPHRASE: "correct horse",
      });
      expect(sent.code, sent.stderr).to.equal(0);
      const [, relayId] = /relay (0x[0-9a-f]{64})/.exec(sent.stdout)!;
      expect(sent.stdout).to.equal(
        `sent by signature: relay ${relayId}, tx ${/tx (0x[0-9a-f]{64})/.exec(sent.stdout)![1]} (follow: nap wallet relay ${relayId})\n`,
      );
      await data.waitForRelay(relayId, { intervalMs: 50 });
      const shown = await nap(["wallet", "relay", relayId]);
      expect(shown.stdout).to.match(
        new RegExp(`^relay ${relayId}: confirmed, tx 0x[0-9a-f]{64}, block \\d+, shares \\d+\\n$`),
      );
      expect(await usdc().balanceOf(owner.address)).to.equal((15n * USDC) / 10n);
    });
  });
});
