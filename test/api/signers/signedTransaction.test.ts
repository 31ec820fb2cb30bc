import { expect } from "chai";
import fc from "fast-check";
import { Transaction, Wallet } from "ethers";
import { SignerAnswerRefusedError } from "../../../api/src/chain/signers/errors";
import { checkSignedTransaction } from "../../../api/src/chain/signers/signedTransaction";
import type { Eip1559Transaction } from "../../../api/src/chain/wallets";

/**
 * The check the engine makes on a remote signer's answer: accepted exactly when the signed bytes are the asked
 * transaction, field for field, signed by the expected wallet (property: any fields, any one field changed).
 */

const key = Wallet.createRandom();
const other = Wallet.createRandom();

function signed(fields: Eip1559Transaction, by: Wallet | typeof key = key): string {
  const tx = Transaction.from({ type: 2, ...fields });
  tx.signature = by.signingKey.sign(tx.unsignedHash);
  return tx.serialized;
}

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}`);

// The fee cap stays above the tip by at least 1, so that a tip one higher is still a valid transaction.
const fieldsArb: fc.Arbitrary<Eip1559Transaction> = fc
  .record({
    chainId: fc.bigInt({ min: 1n, max: 2n ** 32n }),
    nonce: fc.integer({ min: 0, max: 2 ** 31 }),
    to: hex(20),
    data: fc.uint8Array({ maxLength: 68 }).map((b) => `0x${Buffer.from(b).toString("hex")}`),
    value: fc.bigInt({ min: 0n, max: 2n ** 96n }),
    gasLimit: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
    maxPriorityFeePerGas: fc.bigInt({ min: 0n, max: 2n ** 40n }),
    feeAboveTip: fc.bigInt({ min: 1n, max: 2n ** 64n }),
  })
  .map(({ feeAboveTip, ...fields }) => ({ ...fields, maxFeePerGas: fields.maxPriorityFeePerGas + feeAboveTip }));

/** One field changed to a different value of its kind. */
function changed(fields: Eip1559Transaction, field: keyof Eip1559Transaction): Eip1559Transaction {
  const value = fields[field];
  if (field === "to") return { ...fields, to: `0x${(BigInt(fields.to) ^ 1n).toString(16).padStart(40, "0")}` };
  if (field === "data") return { ...fields, data: `${fields.data}00` };
  if (typeof value === "number") return { ...fields, [field]: value + 1 };
  return { ...fields, [field]: (value as bigint) + 1n };
}

const FIELDS: (keyof Eip1559Transaction)[] = [
  "chainId",
  "nonce",
  "to",
  "data",
  "value",
  "gasLimit",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
];

describe("Signer boundary: the check of a signer's answer before broadcast", () => {
  it("accepts the asked transaction signed by the expected wallet; refuses any one field changed, naming it (property)", () => {
    fc.assert(
      fc.property(fieldsArb, fc.constantFrom(...FIELDS), (fields, field) => {
        expect(() => checkSignedTransaction(signed(fields), fields, key.address.toLowerCase())).to.not.throw();
        let error: unknown = null;
        try {
          checkSignedTransaction(signed(changed(fields, field)), fields, key.address);
        } catch (e) {
          error = e;
        }
        expect(error).to.be.instanceOf(SignerAnswerRefusedError);
        expect((error as SignerAnswerRefusedError).code).to.equal("TX_REJECTED");
        expect((error as SignerAnswerRefusedError).details).to.deep.equal({
          reason: "other_transaction",
          fields: [field],
        });
      }),
      { numRuns: 150 },
    );
  });

  it("refuses the asked transaction signed by another key, naming both addresses", () => {
    const fields: Eip1559Transaction = {
      chainId: 8453n,
      nonce: 3,
      to: "0x00000000000000000000000000000000000000c1",
      data: "0x",
      value: 0n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
    };
    expect(() => checkSignedTransaction(signed(fields, other), fields, key.address))
      .to.throw(SignerAnswerRefusedError)
      .with.property(
        "message",
        `the signer answered with a signature by ${other.address}, not by the wallet ${key.address}: not broadcast`,
      );
  });

  it("refuses bytes that are not a signed transaction, and a legacy transaction", () => {
    const fields: Eip1559Transaction = {
      chainId: 1n,
      nonce: 0,
      to: "0x00000000000000000000000000000000000000c1",
      data: "0x",
      value: 0n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n,
      maxPriorityFeePerGas: 1n,
    };
    expect(() => checkSignedTransaction("0x1234", fields, key.address))
      .to.throw(SignerAnswerRefusedError)
      .with.property("message", "the signer answered with bytes that are not a signed transaction");
    const legacy = Transaction.from({
      type: 0,
      chainId: 1n,
      nonce: 0,
      to: fields.to,
      gasLimit: 21_000n,
      gasPrice: 10n,
    });
    legacy.signature = key.signingKey.sign(legacy.unsignedHash);
    expect(() => checkSignedTransaction(legacy.serialized, fields, key.address))
      .to.throw(SignerAnswerRefusedError)
      .with.property("message")
      .that.match(
        /^the signer answered with a signature of another transaction \(type, maxFeePerGas, maxPriorityFeePerGas differ\)/,
      );
  });
});
