/**
 * What registration needs of a wallet: its address and an EIP-191 `personal_sign` of a text message. Both shapes
 * of the common libraries fit without glue:
 * - an ethers Signer (Wallet, JsonRpcSigner, a hardware signer...): `getAddress()` and `signMessage(message)`;
 * - a viem Account or anything shaped like it: `address` and `signMessage({ message })`.
 */

export interface EthersLikeSigner {
  getAddress(): Promise<string>;
  signMessage(message: string): Promise<string>;
}

export interface ViemLikeAccount {
  readonly address: string;
  signMessage(args: { message: string }): Promise<string>;
}

export type MessageSigner = EthersLikeSigner | ViemLikeAccount;

export async function signerAddress(signer: MessageSigner): Promise<string> {
  return "getAddress" in signer ? signer.getAddress() : signer.address;
}

export function signText(signer: MessageSigner, message: string): Promise<string> {
  return "getAddress" in signer
    ? (signer as EthersLikeSigner).signMessage(message)
    : (signer as ViemLikeAccount).signMessage({ message });
}
