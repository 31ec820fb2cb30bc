import { Contract, getAddress, hashMessage, type Provider } from "ethers";
import { ChainUnavailableError } from "../errors";
import { recoverOnThisThread, type Recover } from "./recoveryPool";

/** EIP-1271 magic value returned by `isValidSignature` for a valid signature. */
export const EIP1271_MAGIC_VALUE = "0x1626ba7e";
const EIP1271_ABI = ["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"];

/**
 * Checks that `signature` is `wallet`'s EIP-191 signature of `message`:
 * - an externally owned account: the signer recovered with ethers equals the wallet;
 * - a contract wallet: `isValidSignature(hashMessage(message), signature)` on the service's chain returns 0x1626ba7e.
 * The chain is asked only when recovery does not match, so registrations of plain wallets cost no RPC call.
 * Throws ChainUnavailableError when the chain cannot be reached for a contract wallet check.
 */
export async function verifyWalletSignature(
  provider: Provider,
  wallet: string,
  message: string,
  signature: string,
  recover: Recover = recoverOnThisThread,
): Promise<boolean> {
  // null: not an ECDSA signature at all; it may still be a contract wallet's signature.
  if ((await recover(message, signature)) === wallet.toLowerCase()) return true;
  const expected = getAddress(wallet);
  let code: string;
  try {
    code = await provider.getCode(expected);
  } catch {
    throw new ChainUnavailableError(
      "the chain is unreachable: cannot check the wallet's code for an EIP-1271 signature; try again later",
    );
  }
  if (code === "0x") return false;
  try {
    const contract = new Contract(expected, EIP1271_ABI, provider);
    const result = (await contract
      .getFunction("isValidSignature")
      .staticCall(hashMessage(message), signature)) as string;
    return result.toLowerCase() === EIP1271_MAGIC_VALUE;
  } catch {
    // A revert (or a contract without the function) means "not valid", as EIP-1271 prescribes for callers.
    return false;
  }
}
