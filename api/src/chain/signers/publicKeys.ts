import { HDNodeWallet } from "ethers";
import { PUBLIC_DEV_ACCOUNTS_PER_PATH, PUBLIC_DEV_KEY_SOURCES } from "../../../../deploy/devWallets";

/** Chains whose funds are worth nothing: Hardhat's and Ganache's/Anvil's default chain ids. */
export const LOCAL_CHAIN_IDS: ReadonlySet<number> = new Set([31337, 1337]);

/** Thrown at start-up when the server wallets' keys are published ones and the chain is not a local one. */
export class PublicDevKeysError extends Error {
  constructor(what: string, chainId: number) {
    super(
      `server wallets: ${what} is public (anyone can sign with its keys) and chain ${chainId} is not a local chain ` +
        `(${[...LOCAL_CHAIN_IDS].join(", ")}): set a secret mnemonic, keystore or remote signer`,
    );
    this.name = "PublicDevKeysError";
  }
}

/** Refuses a seed phrase published with Hardhat or this repository off the local chains. */
export function refusePublicPhrase(phrase: string, chainId: number): void {
  if (LOCAL_CHAIN_IDS.has(chainId)) return;
  const normalised = phrase.trim().replace(/\s+/g, " ").toLowerCase();
  const source = PUBLIC_DEV_KEY_SOURCES.find((s) => s.mnemonic === normalised);
  if (source) throw new PublicDevKeysError(`the seed is ${source.name}`, chainId);
}

/** Refuses remote signer accounts that are published development accounts, off the local chains. */
export function refusePublicAccounts(accounts: readonly string[], chainId: number): void {
  if (LOCAL_CHAIN_IDS.has(chainId)) return;
  const listed = new Set(accounts.map((a) => a.toLowerCase()));
  for (const source of PUBLIC_DEV_KEY_SOURCES) {
    const parent = HDNodeWallet.fromPhrase(source.mnemonic, undefined, source.parentPath);
    for (let i = 0; i < PUBLIC_DEV_ACCOUNTS_PER_PATH; i++) {
      const { address } = parent.deriveChild(i);
      if (listed.has(address.toLowerCase())) {
        throw new PublicDevKeysError(`account ${address} of the remote signer (${source.name})`, chainId);
      }
    }
  }
}
