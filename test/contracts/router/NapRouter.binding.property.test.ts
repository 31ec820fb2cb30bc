import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { Wallet, getAddress } from "ethers";
import fc from "fast-check";
import type { NapRouter } from "../../../typechain-types";
import {
  INTENT_TYPES,
  NO_AUTHORIZATION,
  NO_PERMIT,
  deployRouterWorld,
  digestOf,
  inSeconds,
  signIntent,
  type IntentKind,
} from "./fixtures";

type Intent = Record<string, string | bigint>;

/** Sends `intent` as a `kind` with `signature`, as a call (nothing is mined). */
function send(router: NapRouter, kind: IntentKind, intent: Intent, signature: string): Promise<unknown> {
  switch (kind) {
    case "Deposit":
      return router.deposit.staticCall(intent as never, signature, NO_PERMIT);
    case "Redeem":
      return router.redeem.staticCall(intent as never, signature, NO_AUTHORIZATION);
    case "RequestRedeem":
      return router.requestRedeem.staticCall(intent as never, signature, NO_AUTHORIZATION);
    case "Claim":
      return router.claim.staticCall(intent as never, signature, NO_AUTHORIZATION);
    case "CancelRedeem":
      return router.cancelRedeem.staticCall(intent as never, signature, NO_AUTHORIZATION);
  }
}

/** The router's own digest of `intent` (hashDeposit, hashRedeem, ...). */
function routerDigest(router: NapRouter, kind: IntentKind, intent: Intent): Promise<string> {
  switch (kind) {
    case "Deposit":
      return router.hashDeposit(intent as never);
    case "Redeem":
      return router.hashRedeem(intent as never);
    case "RequestRedeem":
      return router.hashRequestRedeem(intent as never);
    case "Claim":
      return router.hashClaim(intent as never);
    case "CancelRedeem":
      return router.hashCancelRedeem(intent as never);
  }
}

const anyAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(ethers.hexlify(bytes)));
const anyUint = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

describe("NapRouter: the binding rule (fast-check)", () => {
  // Three owner keys; the deadline always in the future, so a refusal can only be the signature's.
  const owners = [1, 2, 3].map((i) => new Wallet(ethers.id(`binding owner ${i}`)));

  for (const kind of Object.keys(INTENT_TYPES) as IntentKind[]) {
    it(`${kind}: the router hashes what the wallet signs, and any one field changed is refused as a bad signature`, async () => {
      const { router } = await loadFixture(deployRouterWorld);
      const soon = await inSeconds(3600);
      const fields = INTENT_TYPES[kind];
      const deadline = fc.bigInt({ min: soon, max: 2n ** 256n - 1n });
      const value = (name: string, type: string) =>
        name === "deadline" ? deadline : type === "address" ? anyAddress : anyUint;
      const intentArb = fc.record(
        Object.fromEntries(fields.map((field) => [field.name, value(field.name, field.type)])) as Record<
          string,
          fc.Arbitrary<string | bigint>
        >,
      );
      const changeArb = fc
        .integer({ min: 0, max: fields.length - 1 })
        .chain((index) => value(fields[index].name, fields[index].type).map((replacement) => ({ index, replacement })));
      await fc.assert(
        fc.asyncProperty(
          intentArb,
          fc.integer({ min: 0, max: owners.length - 1 }),
          changeArb,
          async (drawn, who, { index, replacement }) => {
            const signer = owners[who];
            const intent: Intent = { ...drawn, owner: signer.address };
            const field = fields[index].name;
            fc.pre(intent[field] !== replacement);
            const changed: Intent = { ...intent, [field]: replacement };
            const signature = await signIntent(signer, router, kind, intent);
            const digest = await digestOf(router, kind, changed);
            expect(await routerDigest(router, kind, intent)).to.equal(await digestOf(router, kind, intent));
            expect(digest).to.not.equal(await digestOf(router, kind, intent));
            await expect(send(router, kind, changed, signature))
              .to.be.revertedWithCustomError(router, "InvalidSignature")
              .withArgs(changed.owner, digest);
          },
        ),
        { numRuns: 40 },
      );
    });
  }
});
