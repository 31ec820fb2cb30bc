import { getAddress, Transaction } from "ethers";
import { SignerAnswerRefusedError } from "./errors";
import type { Eip1559Transaction } from "./refs";

/**
 * Checks that raw signed bytes from a signer outside the process are exactly the transaction asked for, signed by
 * the expected wallet: a compromised or confused signer could otherwise have the service broadcast another
 * transfer, a replay on another chain, or a transaction of another account. Throws SignerAnswerRefusedError naming
 * what differs; returns nothing when all matches.
 */
export function checkSignedTransaction(rawTx: string, expected: Eip1559Transaction, from: string): void {
  let tx: Transaction;
  try {
    tx = Transaction.from(rawTx);
  } catch {
    throw new SignerAnswerRefusedError("the signer answered with bytes that are not a signed transaction", {
      reason: "undecodable",
    });
  }
  const differs: string[] = [];
  if (tx.type !== 2) differs.push("type");
  if (tx.chainId !== expected.chainId) differs.push("chainId");
  if (tx.nonce !== expected.nonce) differs.push("nonce");
  if (tx.to === null || tx.to.toLowerCase() !== expected.to.toLowerCase()) differs.push("to");
  if (tx.data.toLowerCase() !== expected.data.toLowerCase()) differs.push("data");
  if (tx.value !== expected.value) differs.push("value");
  if (tx.gasLimit !== expected.gasLimit) differs.push("gasLimit");
  if (tx.maxFeePerGas !== expected.maxFeePerGas) differs.push("maxFeePerGas");
  if (tx.maxPriorityFeePerGas !== expected.maxPriorityFeePerGas) differs.push("maxPriorityFeePerGas");
  if ((tx.accessList?.length ?? 0) !== 0) differs.push("accessList");
  if (differs.length > 0) {
    throw new SignerAnswerRefusedError(
      `the signer answered with a signature of another transaction (${differs.join(", ")} differ): not broadcast`,
      { reason: "other_transaction", fields: differs },
    );
  }
  const signer = tx.from;
  if (signer === null || signer.toLowerCase() !== from.toLowerCase()) {
    throw new SignerAnswerRefusedError(
      `the signer answered with a signature by ${signer ?? "nobody"}, not by the wallet ${getAddress(from)}: not broadcast`,
      { reason: "other_signer", signer, expected: getAddress(from) },
    );
  }
}
