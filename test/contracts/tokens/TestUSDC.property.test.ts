import { expect } from "chai";
import { ethers, network } from "hardhat";
import fc from "fast-check";

/** Number of random sequences; raise with PROPERTY_RUNS for a deeper search. */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 50);

type Step =
  { kind: "mint"; to: number; amount: bigint } | { kind: "transfer"; from: number; to: number; amount: bigint };

const ACTORS = 3;
const amountArb = fc.bigInt({ min: 1n, max: 10_000_000_000n });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("mint" as const), to: fc.nat(ACTORS - 1), amount: amountArb }),
  fc.record({
    kind: fc.constant("transfer" as const),
    from: fc.nat(ACTORS - 1),
    to: fc.nat(ACTORS - 1),
    amount: amountArb,
  }),
);

describe("TestUSDC properties", () => {
  it("keeps every balance equal to a model and the supply equal to the sum of balances", async () => {
    const [admin, ...rest] = await ethers.getSigners();
    const actors = rest.slice(0, ACTORS);
    const usdc = await ethers.deployContract("TestUSDC", [admin.address]);
    // A snapshot is consumed by evm_revert, so each run reverts to the last one and takes a fresh one.
    let clean = (await network.provider.send("evm_snapshot")) as string;

    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), async (steps) => {
        expect(await network.provider.send("evm_revert", [clean])).to.equal(true);
        clean = (await network.provider.send("evm_snapshot")) as string;
        const model = new Array<bigint>(ACTORS).fill(0n);
        for (const step of steps) {
          if (step.kind === "mint") {
            await usdc.mint(actors[step.to].address, step.amount);
            model[step.to] += step.amount;
          } else if (model[step.from] >= step.amount) {
            await usdc.connect(actors[step.from]).transfer(actors[step.to].address, step.amount);
            model[step.from] -= step.amount;
            model[step.to] += step.amount;
          } else {
            await expect(usdc.connect(actors[step.from]).transfer(actors[step.to].address, step.amount))
              .to.be.revertedWithCustomError(usdc, "ERC20InsufficientBalance")
              .withArgs(actors[step.from].address, model[step.from], step.amount);
          }
          let sum = 0n;
          for (let i = 0; i < ACTORS; i++) {
            const balance = await usdc.balanceOf(actors[i].address);
            expect(balance).to.equal(model[i]);
            sum += balance;
          }
          expect(await usdc.totalSupply()).to.equal(sum);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
