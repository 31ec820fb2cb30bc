import type { TypedData, TypedDataDomain, TypedDataField } from "./typedData";

/**
 * The one place that knows how each library signs EIP-712 typed data. Every shape fits without glue:
 * - an ethers Signer (Wallet, JsonRpcSigner, a hardware signer...): `getAddress()`, `signTypedData(domain, types,
 *   value)`, with the primary type inferred and no EIP712Domain entry in `types`;
 * - a viem Account (local, or a smart account): `address`, `signTypedData({ domain, types, primaryType, message })`;
 * - a viem WalletClient (a browser or JSON-RPC wallet): its `account` (or its first address) and the same call.
 * What each one signs is built by the SDK from its checked values (see check.ts), never the service's text as is.
 */

type Hex = `0x${string}`;

type ViemTypedDataArgs = {
  domain: Omit<TypedDataDomain, "verifyingContract"> & { verifyingContract: Hex };
  types: Record<string, readonly TypedDataField[]>;
  primaryType: string;
  message: Record<string, unknown>;
};

export interface EthersTypedDataSigner {
  getAddress(): Promise<string>;
  signTypedData(
    domain: TypedDataDomain,
    types: Record<string, TypedDataField[]>,
    value: Record<string, unknown>,
  ): Promise<string>;
}

export interface ViemTypedDataAccount {
  readonly address: string;
  signTypedData(args: ViemTypedDataArgs): Promise<string>;
}

export interface ViemTypedDataWalletClient {
  readonly account?: { readonly address: Hex } | undefined;
  getAddresses(): Promise<readonly Hex[]>;
  // The client's own account object goes back in as is (a local one signs in process, an address asks the wallet
  // over JSON-RPC); its type is viem's Account union, which this package does not import.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  signTypedData(args: ViemTypedDataArgs & { account: any }): Promise<string>;
}

export type TypedDataSigner = EthersTypedDataSigner | ViemTypedDataAccount | ViemTypedDataWalletClient;

const isEthers = (signer: TypedDataSigner): signer is EthersTypedDataSigner =>
  typeof (signer as EthersTypedDataSigner).getAddress === "function";
const isViemAccount = (signer: TypedDataSigner): signer is ViemTypedDataAccount =>
  typeof (signer as ViemTypedDataAccount).address === "string";

/** The address that signs. */
export async function typedDataSignerAddress(signer: TypedDataSigner): Promise<string> {
  if (isEthers(signer)) return signer.getAddress();
  if (isViemAccount(signer)) return signer.address;
  const address = signer.account?.address ?? (await signer.getAddresses())[0];
  if (!address) throw new Error("the wallet client has no account to sign with");
  return address;
}

/**
 * uint fields as bigints (viem encodes nothing else as a uint256, and ethers takes them too); addresses in lower case,
 * which both take whatever case a service or a caller wrote them in (the hash is of the value, not the text).
 */
function typedValue(type: string, value: unknown): unknown {
  if (type.startsWith("uint")) return BigInt(value as string);
  return type === "address" ? (value as string).toLowerCase() : value;
}

function typedValues(fields: readonly TypedDataField[], message: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(fields.map(({ name, type }) => [name, typedValue(type, message[name])]));
}

/**
 * The 0x hex signature of `data` (one primary type with no nested structs, as every NAP message is). `address`, the
 * signer's when already known, spares a wallet client without a local account one more request for it.
 */
export async function signTypedData(signer: TypedDataSigner, data: TypedData, address?: string): Promise<string> {
  const fields = data.types[data.primaryType];
  const types = { [data.primaryType]: fields.map((field) => ({ ...field })) };
  const message = typedValues(fields, data.message);
  const domain = { ...data.domain, verifyingContract: data.domain.verifyingContract.toLowerCase() as Hex };
  if (isEthers(signer)) return signer.signTypedData(domain, types, message);
  const args = { domain, types, primaryType: data.primaryType, message };
  if (isViemAccount(signer)) return signer.signTypedData(args);
  const account = signer.account ?? ((address ?? (await typedDataSignerAddress(signer))) as Hex);
  return signer.signTypedData({ ...args, account });
}
