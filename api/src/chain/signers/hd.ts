import { HDNodeWallet, Mnemonic, Wallet, type Provider } from "ethers";
import { DerivedSigner } from "./derived";
import {
  AGENT_PATH_PREFIX,
  checkIndex,
  InvalidServerWalletMnemonicError,
  RELAYER_PATH,
  walletLabel,
  type Eip1559Transaction,
  type SignerBackend,
  type WalletRef,
} from "./refs";

/**
 * The server wallets derived in this process from one BIP-32 seed (a mnemonic setting or an unlocked keystore):
 * the relayer at m/44'/60'/0'/0/0 and agent i at m/44'/60'/1'/0/i, so that a new agent's wallet exists as soon
 * as it is given an index.
 */
export class HdSigner implements SignerBackend {
  readonly #agents: HDNodeWallet;
  readonly #relayer: Wallet;
  readonly #agentWallets = new Map<number, Wallet>();
  readonly #signers = new Map<string, DerivedSigner>();

  /** @param seed the BIP-39 seed (64 bytes); the derived nodes then carry no `mnemonic` field to leak. */
  constructor(seed: string) {
    const root = HDNodeWallet.fromSeed(seed);
    this.#agents = root.derivePath(AGENT_PATH_PREFIX);
    this.#relayer = new Wallet(root.derivePath(RELAYER_PATH).privateKey);
  }

  /** From a BIP-39 phrase (whitespace normalised); throws InvalidServerWalletMnemonicError, never echoing it. */
  static fromPhrase(phrase: string): HdSigner {
    let seed: string;
    try {
      seed = Mnemonic.fromPhrase(phrase.trim().replace(/\s+/g, " ")).computeSeed();
    } catch {
      throw new InvalidServerWalletMnemonicError();
    }
    return new HdSigner(seed);
  }

  address(ref: WalletRef): string {
    return this.#wallet(ref).address;
  }

  signTransaction(ref: WalletRef, tx: Eip1559Transaction): string {
    return this.signer(ref).signPopulated(tx);
  }

  /** Signer of the wallet a reference names (without a provider: one per wallet, kept). */
  signer(ref: WalletRef, provider: Provider | null = null): DerivedSigner {
    const path = ref.kind === "relayer" ? RELAYER_PATH : `${AGENT_PATH_PREFIX}/${checkIndex(ref.index)}`;
    if (provider) return new DerivedSigner(this.#wallet(ref), path, provider);
    const label = walletLabel(ref);
    let signer = this.#signers.get(label);
    if (!signer) {
      signer = new DerivedSigner(this.#wallet(ref), path, null);
      this.#signers.set(label, signer);
    }
    return signer;
  }

  #wallet(ref: WalletRef): Wallet {
    if (ref.kind === "relayer") return this.#relayer;
    const index = checkIndex(ref.index);
    let wallet = this.#agentWallets.get(index);
    if (!wallet) {
      wallet = new Wallet(this.#agents.deriveChild(index).privateKey);
      this.#agentWallets.set(index, wallet);
    }
    return wallet;
  }
}
