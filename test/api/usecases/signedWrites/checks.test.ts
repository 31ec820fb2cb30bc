import { expect } from "chai";
import fc from "fast-check";
import { Wallet } from "ethers";
import { AppError } from "../../../../api/src/errors";
import { dataErrorAnswer } from "../../../../api/src/doors/data/errors";
import { intentDigest, intentTypedData, routerDomain, type Intent } from "../../../../api/src/domain/signedWrites";
import { checkIntent, type RelayFacts } from "../../../../api/src/usecases/signedWrites/checks";
import { recoversTo } from "../../../../api/src/usecases/signedWrites/facts";
import { intentOf, uintField } from "../../../../api/src/usecases/signedWrites/input";
import { codeOfRevert, routerCalldata } from "../../../../api/src/usecases/signedWrites/relay";
import { ROUTER_INTERFACE } from "../../../../api/src/usecases/signedWrites/routerAbi";

/**
 * The checks a signed write passes before the relayer spends gas (usecases/signedWrites/checks.ts): each refusal's
 * data API code, status and exact message naming the field; and the binding of a signature to every field.
 */

const OWNER = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A";
const OTHER = "0x733A2AEfbfF542fF6130628bbC96fE5d38597095";
const VAULT = "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8";
const ROUTER = "0x4c5859f0F772848b2D91F1D83E2Fe57935348029";
const NOW = 1_795_710_000n;

const deposit = (over: Partial<Intent> = {}): Intent => ({
  action: "deposit",
  owner: OWNER,
  vault: VAULT,
  amount: 25_000_000n,
  receiver: OWNER,
  minimum: 0n,
  nonce: 7n,
  deadline: NOW + 1800n,
  ...over,
});

const facts = (over: Partial<RelayFacts> = {}): RelayFacts => ({
  now: NOW,
  vaultIsAsync: false,
  intentSignatureValid: true,
  nonceUsed: false,
  assetBalance: 100_000_000n,
  allowance: 0n,
  permit: { value: 25_000_000n, deadline: NOW + 1800n, signatureValid: true },
  shareBalance: 0n,
  claimableShares: 0n,
  pendingShares: 0n,
  canceledShares: 0n,
  routerIsOperator: false,
  authorization: null,
  ...over,
});

/** The data API answer to what `run` throws: status, code and message. */
function refusalOf(run: () => void): { status: number; code: string; message: string; field: unknown } {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    const answer = dataErrorAnswer(error);
    return { status: answer.status, code: answer.code, message: answer.message, field: answer.details.field };
  }
  throw new Error("expected a refusal");
}

describe("signed writes: the checks before gas is spent", function () {
  it("passes a deposit covered by its permit, and one covered by the allowance without a permit", function () {
    expect(() => checkIntent(deposit(), facts())).to.not.throw();
    expect(() => checkIntent(deposit(), facts({ allowance: 25_000_000n, permit: null }))).to.not.throw();
  });

  it("expired deadline: SIGNATURE_EXPIRED naming deadline, at the chain's time and not after it", function () {
    expect(
      refusalOf(() => checkIntent(deposit({ deadline: NOW }), facts())),
      "deadline == now",
    ).to.deep.equal({
      status: 400,
      code: "SIGNATURE_EXPIRED",
      message: `deadline: ${NOW} is past (the chain's time is ${NOW})`,
      field: "deadline",
    });
    // The next block is at least now + 1: a deadline of now + 1 is still good.
    expect(() => checkIntent(deposit({ deadline: NOW + 1n }), facts())).to.not.throw();
  });

  it("changed amount or receiver: INVALID_SIGNATURE naming signature", function () {
    expect(refusalOf(() => checkIntent(deposit(), facts({ intentSignatureValid: false })))).to.deep.equal({
      status: 400,
      code: "INVALID_SIGNATURE",
      message: `signature: not ${OWNER}'s signature of this deposit (vault, amounts, receiver, nonce, deadline and chain as sent)`,
      field: "signature",
    });
  });

  it("replay: NONCE_USED (409) naming nonce", function () {
    expect(refusalOf(() => checkIntent(deposit(), facts({ nonceUsed: true })))).to.deep.equal({
      status: 409,
      code: "NONCE_USED",
      message: `nonce: 7 of ${OWNER} is already used or invalidated`,
      field: "nonce",
    });
  });

  it("insufficient balance: INSUFFICIENT_BALANCE naming amount (deposit) and shares (redemptions)", function () {
    expect(refusalOf(() => checkIntent(deposit(), facts({ assetBalance: 10_000_000n })))).to.deep.equal({
      status: 400,
      code: "INSUFFICIENT_BALANCE",
      message: `amount: 25000000 asked, ${OWNER} holds 10000000`,
      field: "amount",
    });
    const redeem = deposit({ action: "redeem", amount: 5n });
    expect(refusalOf(() => checkIntent(redeem, facts({ shareBalance: 4n, routerIsOperator: true })))).to.deep.equal({
      status: 400,
      code: "INSUFFICIENT_BALANCE",
      message: `shares: 5 asked, ${OWNER} holds 4`,
      field: "shares",
    });
  });

  it("insufficient allowance: INSUFFICIENT_ALLOWANCE without a permit, or with a permit below the amount", function () {
    expect(refusalOf(() => checkIntent(deposit(), facts({ allowance: 3n, permit: null })))).to.deep.equal({
      status: 400,
      code: "INSUFFICIENT_ALLOWANCE",
      message: "permit: the router's allowance is 3, below the amount 25000000; sign the permit of the prepare answer",
      field: "permit",
    });
    const short = { value: 24_999_999n, deadline: NOW + 10n, signatureValid: true };
    expect(refusalOf(() => checkIntent(deposit(), facts({ permit: short })))).to.deep.equal({
      status: 400,
      code: "INSUFFICIENT_ALLOWANCE",
      message: "permit.value: 24999999 is below the amount 25000000",
      field: "permit.value",
    });
  });

  it("a permit past its deadline or not the owner's: SIGNATURE_EXPIRED / INVALID_SIGNATURE naming the permit's field", function () {
    const expired = { value: 25_000_000n, deadline: NOW - 1n, signatureValid: true };
    expect(refusalOf(() => checkIntent(deposit(), facts({ permit: expired })))).to.deep.equal({
      status: 400,
      code: "SIGNATURE_EXPIRED",
      message: `permit.deadline: ${NOW - 1n} is past (the chain's time is ${NOW})`,
      field: "permit.deadline",
    });
    const forged = { value: 25_000_000n, deadline: NOW + 10n, signatureValid: false };
    expect(refusalOf(() => checkIntent(deposit(), facts({ permit: forged })))).to.deep.equal({
      status: 400,
      code: "INVALID_SIGNATURE",
      message: `permit.signature: not ${OWNER}'s permit for the router of this value, deadline and the asset's current nonce`,
      field: "permit.signature",
    });
  });

  it("wrong kind of vault: WRONG_VAULT_KIND both ways", function () {
    const redeem = deposit({ action: "redeem", amount: 1n });
    expect(refusalOf(() => checkIntent(redeem, facts({ vaultIsAsync: true })))).to.deep.equal({
      status: 400,
      code: "WRONG_VAULT_KIND",
      message: `redeem: ${VAULT} is an ERC-7540 (asynchronous) vault; use request-redeem, then claim`,
      field: undefined,
    });
    const request = deposit({ action: "request-redeem", amount: 1n, receiver: null, minimum: null });
    expect(refusalOf(() => checkIntent(request, facts({ vaultIsAsync: false }))).code).to.equal("WRONG_VAULT_KIND");
  });

  it("the router not yet operator: OPERATOR_NOT_AUTHORIZED without an authorisation, its own codes with a bad one", function () {
    const request = deposit({ action: "request-redeem", amount: 1n, receiver: null, minimum: null });
    const base = { vaultIsAsync: true, shareBalance: 10n };
    expect(refusalOf(() => checkIntent(request, facts(base)))).to.deep.equal({
      status: 400,
      code: "OPERATOR_NOT_AUTHORIZED",
      message: `operator_authorization: the router is not ${OWNER}'s operator on this vault; sign the operator_authorization of the prepare answer`,
      field: "operator_authorization",
    });
    const authorization = { deadline: NOW + 60n, signatureValid: true, nonceUsed: false };
    expect(() => checkIntent(request, facts({ ...base, authorization }))).to.not.throw();
    expect(
      refusalOf(() => checkIntent(request, facts({ ...base, authorization: { ...authorization, nonceUsed: true } }))),
    ).to.deep.equal({
      status: 409,
      code: "NONCE_USED",
      message: "operator_authorization.nonce: already used by this owner on this vault",
      field: "operator_authorization.nonce",
    });
    expect(
      refusalOf(() =>
        checkIntent(request, facts({ ...base, authorization: { ...authorization, signatureValid: false } })),
      ).field,
    ).to.equal("operator_authorization.signature");
    expect(
      refusalOf(() => checkIntent(request, facts({ ...base, authorization: { ...authorization, deadline: NOW } })))
        .code,
    ).to.equal("SIGNATURE_EXPIRED");
  });

  it("claim beyond what is claimable: NOTHING_TO_CLAIM; cancel without a request: NOTHING_TO_CANCEL", function () {
    const claim = deposit({ action: "claim", amount: 5n });
    expect(
      refusalOf(() => checkIntent(claim, facts({ vaultIsAsync: true, routerIsOperator: true, claimableShares: 4n }))),
    ).to.deep.equal({
      status: 400,
      code: "NOTHING_TO_CLAIM",
      message: "shares: 5 asked, 4 claimable",
      field: "shares",
    });
    const cancel = deposit({ action: "cancel-redeem", amount: null, minimum: null });
    expect(refusalOf(() => checkIntent(cancel, facts({ vaultIsAsync: true, routerIsOperator: true })))).to.deep.equal({
      status: 400,
      code: "NOTHING_TO_CANCEL",
      message: `owner: ${OWNER} has no pending redemption request on this vault`,
      field: "owner",
    });
    // A request canceled earlier but not taken back is what the router's cancel finishes.
    expect(() =>
      checkIntent(cancel, facts({ vaultIsAsync: true, routerIsOperator: true, canceledShares: 3n })),
    ).to.not.throw();
  });
});

describe("signed writes: the message's fields", function () {
  it("refuses each bad field with INVALID_<FIELD> and a message naming it", function () {
    const bad = (fields: Record<string, string>, action: Intent["action"] = "deposit") =>
      refusalOf(() => intentOf(action, VAULT, { owner: OWNER, amount: "1", shares: "1", ...fields }, 1n, 1n));
    expect(bad({ amount: "0" })).to.deep.equal({
      status: 400,
      code: "INVALID_AMOUNT",
      message: "amount: must be above 0",
      field: "amount",
    });
    expect(bad({ shares: (1n << 256n).toString() }, "redeem")).to.deep.equal({
      status: 400,
      code: "INVALID_SHARES",
      message: "shares: must be below 2**256",
      field: "shares",
    });
    // A mixed-case address whose checksum is wrong is a typo, not an address.
    expect(bad({ receiver: "0x19e7e376e7c213b7e7E7e46cc70a5dd086daff2a" })).to.deep.equal({
      status: 400,
      code: "INVALID_RECEIVER",
      message: "receiver: '0x19e7e376e7c213b7e7E7e46cc70a5dd086daff2a' is not an address (bad checksum?)",
      field: "receiver",
    });
    expect(bad({ min_shares: "01" }).code).to.equal("INVALID_MIN_SHARES");
  });

  it("attack: uint256 overflow: 2**256 in an amount, slippage bound, nonce or deadline is refused naming the field; 2**256 - 1 passes", function () {
    const max = (1n << 256n) - 1n;
    const over = (1n << 256n).toString();
    // A nested field is coded by its top-level one, as the request schema codes it, and named whole.
    for (const [field, code] of [
      ["amount", "INVALID_AMOUNT"],
      ["min_shares", "INVALID_MIN_SHARES"],
      ["nonce", "INVALID_NONCE"],
      ["deadline", "INVALID_DEADLINE"],
      ["permit.value", "INVALID_PERMIT"],
      ["operator_authorization.deadline", "INVALID_OPERATOR_AUTHORIZATION"],
    ] as const) {
      expect(
        refusalOf(() => uintField(over, field)),
        field,
      ).to.deep.equal({
        status: 400,
        code,
        message: `${field}: must be below 2**256`,
        field,
      });
      expect(uintField(max.toString(), field), field).to.equal(max);
    }
    const intent = intentOf(
      "deposit",
      VAULT,
      { owner: OWNER, amount: max.toString(), min_shares: max.toString() },
      max,
      max,
    );
    expect([intent.amount, intent.minimum, intent.nonce, intent.deadline]).to.deep.equal([max, max, max, max]);
  });

  it("defaults the receiver to the owner and the slippage bound to 0; a request has neither", function () {
    const lower = OWNER.toLowerCase();
    expect(intentOf("deposit", VAULT, { owner: lower, amount: "5" }, 1n, 2n)).to.deep.equal({
      action: "deposit",
      owner: OWNER,
      vault: VAULT,
      amount: 5n,
      receiver: OWNER,
      minimum: 0n,
      nonce: 1n,
      deadline: 2n,
    });
    const request = intentOf("request-redeem", VAULT, { owner: OWNER, shares: "5", receiver: OTHER }, 1n, 2n);
    expect([request.receiver, request.minimum]).to.deep.equal([null, null]);
  });
});

describe("signed writes: the signature binds every field", function () {
  const wallet = new Wallet(`0x${"11".repeat(32)}`);
  const domain = routerDomain(31337, ROUTER);
  const sign = async (intent: Intent) => {
    const typed = intentTypedData(domain, intent);
    const { EIP712Domain: _, ...types } = typed.types;
    return wallet.signTypedData(typed.domain, types, typed.message);
  };

  it("a changed amount, receiver, vault, nonce, deadline, chain or router no longer recovers to the owner", async function () {
    const intent = deposit({ owner: wallet.address, receiver: wallet.address });
    const signature = await sign(intent);
    expect(recoversTo(wallet.address, intentDigest(domain, intent), signature)).to.equal(true);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("amount", "receiver", "vault", "nonce", "deadline", "chain", "router"),
        fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }),
        async (field, delta) => {
          const changed = { ...intent };
          let changedDomain = domain;
          if (field === "amount") changed.amount = (intent.amount ?? 0n) + delta;
          if (field === "nonce") changed.nonce = intent.nonce + delta;
          if (field === "deadline") changed.deadline = intent.deadline + delta;
          if (field === "receiver") changed.receiver = OTHER;
          if (field === "vault") changed.vault = OTHER;
          if (field === "chain") changedDomain = { ...domain, chainId: 31337 + Number(delta % 1000n) + 1 };
          if (field === "router") changedDomain = { ...domain, verifyingContract: OTHER };
          return !recoversTo(wallet.address, intentDigest(changedDomain, changed), signature);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("the router calldata carries the intent as signed and an empty permit when none is given", function () {
    const intent = deposit();
    const data = routerCalldata(intent, { signature: "0x1234" });
    const decoded = ROUTER_INTERFACE.decodeFunctionData("deposit", data);
    expect(decoded[0].assets).to.equal(25_000_000n);
    expect(decoded[0].receiver).to.equal(OWNER);
    expect(decoded[1]).to.equal("0x1234");
    expect(decoded[2].deadline).to.equal(0n);
  });

  it("names each router revert by the data API's code, and any other as TRANSACTION_REVERTED", function () {
    expect(
      ["SignatureExpired", "InvalidSignature", "NonceAlreadyUsed", "InsufficientAllowance", "InsufficientBalance"].map(
        codeOfRevert,
      ),
    ).to.deep.equal([
      "SIGNATURE_EXPIRED",
      "INVALID_SIGNATURE",
      "NONCE_USED",
      "INSUFFICIENT_ALLOWANCE",
      "INSUFFICIENT_BALANCE",
    ]);
    expect(codeOfRevert("SharesBelowMinimum")).to.equal("TRANSACTION_REVERTED");
    expect(codeOfRevert(undefined)).to.equal("TRANSACTION_REVERTED");
  });
});
