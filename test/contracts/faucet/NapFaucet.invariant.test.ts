/**
 * Handler-based invariant test of the faucet with hostile actors: strangers trying to drip (to themselves or to
 * others, to burn a victim's cooldown), the dripper dripping to agents and to a contract that rejects ETH, donors
 * funding it, the admin changing the cooldown and the amounts and withdrawing, and time jumps around the cooldown.
 * Checked after every step against a model:
 * - two drips to one recipient are at least the cooldown in force at the second apart, and `lastDripAt` /
 *   `nextEligibleAt` of every recipient equal the model's (a refused or failed drip changes nothing; only the
 *   dripper moves a recipient's cooldown);
 * - the faucet's ETH balance is funding less drips and withdrawals; every recipient received exactly its drips in
 *   ETH and minted USDC;
 * - the drips of one budget window send at most the ETH and USDC budgets in force at each drip (the admin sets
 *   budgets of 0 to 3 drips and windows of an hour or a day), and `budgetLeft` equals the model's.
 * Runs: FAUCET_PROPERTY_RUNS, else PROPERTY_RUNS (default 30 sequences of 10 to 30 steps).
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { NapFaucet, TestUSDC } from "../../../typechain-types";
import { recordFigure } from "../../helpers/figures";

const RUNS = Number(process.env.FAUCET_PROPERTY_RUNS ?? process.env.PROPERTY_RUNS ?? 30);
const DAY = 86_400;

async function deploy() {
  const [admin, dripper, agentA, agentB, stranger, donor] = await ethers.getSigners();
  const usdc = (await ethers.deployContract("TestUSDC", [admin.address])) as unknown as TestUSDC;
  const faucet = (await ethers.deployContract("NapFaucet", [
    admin.address,
    await usdc.getAddress(),
    true,
    ethers.parseEther("0.01"),
    1_000n * 10n ** 6n,
    DAY,
  ])) as unknown as NapFaucet;
  await usdc.grantRole(await usdc.MINTER_ROLE(), await faucet.getAddress());
  await faucet.grantRole(await faucet.DRIPPER_ROLE(), dripper.address);
  await admin.sendTransaction({ to: await faucet.getAddress(), value: ethers.parseEther("0.05") });
  const rejecter = await ethers.deployContract("EtherRejecter");
  return {
    faucet,
    usdc,
    admin,
    dripper,
    stranger,
    donor,
    recipients: [agentA.address, agentB.address, stranger.address, await rejecter.getAddress()],
  };
}

type Step =
  | { kind: "drip"; by: "dripper" | "stranger"; to: number }
  | { kind: "fund"; wei: bigint }
  | { kind: "cooldown"; seconds: number }
  | { kind: "amounts"; eth: bigint }
  | { kind: "withdraw"; wei: bigint }
  | { kind: "budget"; ethDrips: bigint; usdcDrips: bigint; period: number }
  | { kind: "jump"; seconds: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("drip" as const),
      by: fc.constantFrom("dripper" as const, "dripper" as const, "stranger" as const),
      to: fc.nat(3),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant("fund" as const), wei: fc.constantFrom(1n, 10n ** 16n) }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant("cooldown" as const), seconds: fc.constantFrom(60, 3_600, DAY) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("amounts" as const),
      eth: fc.constantFrom(0n, 10n ** 16n, 3n * 10n ** 16n),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant("withdraw" as const), wei: fc.constantFrom(1n, 10n ** 16n) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant("budget" as const),
      ethDrips: fc.constantFrom(0n, 1n, 2n, 3n),
      usdcDrips: fc.constantFrom(0n, 1n, 2n, 3n),
      period: fc.constantFrom(3_600, DAY),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("jump" as const), seconds: fc.constantFrom(30, 3_599, DAY - 2, DAY) }),
    weight: 3,
  },
);

describe("NapFaucet under griefers and donors (invariant)", () => {
  it(`keeps every recipient's cooldown and the faucet's books (${RUNS} sequences)`, async function () {
    this.timeout(0);
    const seen = { drips: 0, cooldownRefusals: 0, strangerRefusals: 0, failedTransfers: 0, budgetRefusals: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 10, maxLength: 30 }), async (steps) => {
        const f = await loadFixture(deploy);
        const faucetAddress = await f.faucet.getAddress();
        const last = new Map<string, number>();
        const ethReceived = new Map<string, bigint>();
        const usdcReceived = new Map<string, bigint>();
        const ethBefore = new Map<string, bigint>();
        for (const r of f.recipients) ethBefore.set(r, await ethers.provider.getBalance(r));
        let balance = await ethers.provider.getBalance(faucetAddress);
        let cooldown = DAY;
        let ethAmount = await f.faucet.ethAmount();
        const usdcAmount = await f.faucet.usdcAmount();
        // Model of the budget: fixed windows from the deployment or the last budget change.
        let ethBudget = await f.faucet.ethBudget();
        let usdcBudget = await f.faucet.usdcBudget();
        let period = DAY;
        let windowStart = Number((await f.faucet.budgetLeft())[2]) - DAY;
        let ethSpent = 0n;
        let usdcSpent = 0n;
        const windowAt = (t: number) => {
          if (t < windowStart + period) return { start: windowStart, eth: ethSpent, usdc: usdcSpent };
          return { start: windowStart + Math.floor((t - windowStart) / period) * period, eth: 0n, usdc: 0n };
        };

        for (const step of steps) {
          const now = (await time.latest()) + 1;
          if (step.kind !== "jump") await time.setNextBlockTimestamp(now);
          const w = windowAt(now);
          switch (step.kind) {
            case "drip": {
              const to = f.recipients[step.to];
              const signer = step.by === "dripper" ? f.dripper : f.stranger;
              const tx = f.faucet.connect(signer).drip(to);
              const previous = last.get(to);
              if (step.by === "stranger") {
                await expect(tx)
                  .to.be.revertedWithCustomError(f.faucet, "AccessControlUnauthorizedAccount")
                  .withArgs(f.stranger.address, await f.faucet.DRIPPER_ROLE());
                seen.strangerRefusals++;
              } else if (previous !== undefined && now < previous + cooldown) {
                await expect(tx)
                  .to.be.revertedWithCustomError(f.faucet, "FaucetCooldown")
                  .withArgs(to, previous + cooldown);
                seen.cooldownRefusals++;
              } else if (balance < ethAmount) {
                await expect(tx)
                  .to.be.revertedWithCustomError(f.faucet, "FaucetInsufficientEth")
                  .withArgs(balance, ethAmount);
              } else if (w.eth + ethAmount > ethBudget || w.usdc + usdcAmount > usdcBudget) {
                const eth = w.eth + ethAmount > ethBudget;
                const [amount, spent, limit] = eth ? [ethAmount, w.eth, ethBudget] : [usdcAmount, w.usdc, usdcBudget];
                await expect(tx)
                  .to.be.revertedWithCustomError(f.faucet, "FaucetBudgetExceeded")
                  .withArgs(eth ? "eth" : "usdc", amount, spent < limit ? limit - spent : 0n, w.start + period);
                seen.budgetRefusals++;
              } else if (step.to === 3 && ethAmount > 0n) {
                await expect(tx).to.be.revertedWithCustomError(f.faucet, "FaucetEthTransferFailed");
                seen.failedTransfers++;
              } else {
                await expect(tx)
                  .to.emit(f.faucet, "Dripped")
                  .withArgs(to, f.dripper.address, ethAmount, usdcAmount, now + cooldown);
                if (previous !== undefined) expect(now - previous).to.be.at.least(cooldown);
                last.set(to, now);
                windowStart = w.start;
                ethSpent = w.eth + ethAmount;
                usdcSpent = w.usdc + usdcAmount;
                balance -= ethAmount;
                ethReceived.set(to, (ethReceived.get(to) ?? 0n) + ethAmount);
                usdcReceived.set(to, (usdcReceived.get(to) ?? 0n) + usdcAmount);
                seen.drips++;
              }
              break;
            }
            case "fund":
              await f.donor.sendTransaction({ to: faucetAddress, value: step.wei });
              balance += step.wei;
              break;
            case "cooldown":
              await f.faucet.connect(f.admin).setCooldown(step.seconds);
              cooldown = step.seconds;
              break;
            case "amounts":
              await f.faucet.connect(f.admin).setDripAmounts(step.eth, usdcAmount);
              ethAmount = step.eth;
              break;
            case "withdraw":
              if (balance < step.wei) {
                await expect(f.faucet.connect(f.admin).withdrawEth(f.admin.address, step.wei))
                  .to.be.revertedWithCustomError(f.faucet, "FaucetInsufficientEth")
                  .withArgs(balance, step.wei);
              } else {
                await f.faucet.connect(f.admin).withdrawEth(f.admin.address, step.wei);
                balance -= step.wei;
              }
              break;
            case "budget":
              ethBudget = step.ethDrips * 10n ** 16n;
              usdcBudget = step.usdcDrips * usdcAmount;
              await f.faucet.connect(f.admin).setBudget(ethBudget, usdcBudget, step.period);
              period = step.period;
              windowStart = now;
              ethSpent = w.eth;
              usdcSpent = w.usdc;
              break;
            case "jump":
              await time.increase(step.seconds);
              break;
          }

          const after = windowAt(await time.latest());
          expect(await f.faucet.budgetLeft()).to.deep.equal([
            after.eth < ethBudget ? ethBudget - after.eth : 0n,
            after.usdc < usdcBudget ? usdcBudget - after.usdc : 0n,
            BigInt(after.start + period),
          ]);

          expect(await ethers.provider.getBalance(faucetAddress)).to.equal(balance);
          for (const r of f.recipients) {
            const at = last.get(r);
            expect(await f.faucet.lastDripAt(r)).to.equal(BigInt(at ?? 0));
            expect(await f.faucet.nextEligibleAt(r)).to.equal(at === undefined ? 0n : BigInt(at + cooldown));
            expect(await f.usdc.balanceOf(r)).to.equal(usdcReceived.get(r) ?? 0n);
            // The stranger and the dripper pay gas; the two agents only receive.
            if (r !== f.stranger.address && r !== f.dripper.address) {
              expect((await ethers.provider.getBalance(r)) - ethBefore.get(r)!).to.equal(ethReceived.get(r) ?? 0n);
            }
          }
        }
      }),
      { numRuns: RUNS },
    );
    recordFigure(
      "NapFaucet invariant",
      `${RUNS} sequences: ${seen.drips} drips, ${seen.cooldownRefusals} inside the cooldown, ` +
        `${seen.strangerRefusals} by strangers, ${seen.failedTransfers} to a contract rejecting ETH, ` +
        `${seen.budgetRefusals} past the window's budget`,
    );
    expect(seen.drips).to.be.greaterThan(0);
    expect(seen.cooldownRefusals).to.be.greaterThan(0);
    expect(seen.budgetRefusals).to.be.greaterThan(0);
  });
});
