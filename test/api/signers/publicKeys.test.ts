import { expect } from "chai";
import { ethers } from "hardhat";
import { HDNodeWallet, Wallet } from "ethers";
import { DEV_SERVER_WALLET_MNEMONIC, HARDHAT_DEFAULT_MNEMONIC } from "../../../deploy/devWallets";
import { createChainAccess, type RpcProvider } from "../../../api/src/chain";
import { PublicDevKeysError } from "../../../api/src/chain/signers/publicKeys";
import { ServerWallets } from "../../../api/src/chain/wallets";
import { startRemoteSigner } from "../../helpers/remoteSigner";
import { startTestApp } from "../helpers/app";

/** Start-up refuses keys anyone can read (Hardhat's mnemonic, this repository's) unless the chain is a local one. */

const BASE_SEPOLIA = 84532;

async function openError(wallets: ServerWallets, chainId: number): Promise<Error | null> {
  return wallets.open(chainId).then(
    () => null,
    (e: unknown) => e as Error,
  );
}

describe("Signer boundary: published development keys off the local chains", () => {
  it("start-up refuses Hardhat's public mnemonic on a chain that is not local, with a clear error", async () => {
    const chain = createChainAccess(ethers.provider as unknown as RpcProvider, BASE_SEPOLIA, null);
    const api = await startTestApp({ chain, env: { SERVER_WALLET_MNEMONIC: HARDHAT_DEFAULT_MNEMONIC } });
    try {
      const error = await api.app.useCases.start().then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error).to.be.instanceOf(PublicDevKeysError);
      expect(error?.message).to.equal(
        "server wallets: the seed is Hardhat's default mnemonic is public (anyone can sign with its keys) and chain " +
          "84532 is not a local chain (31337, 1337): set a secret mnemonic, keystore or remote signer",
      );
    } finally {
      await api.close();
    }
  });

  it("accepts the public mnemonics on the local chains 31337 and 1337", async () => {
    for (const chainId of [31337, 1337]) {
      expect(await openError(new ServerWallets(HARDHAT_DEFAULT_MNEMONIC), chainId)).to.equal(null);
      expect(await openError(new ServerWallets(DEV_SERVER_WALLET_MNEMONIC), chainId)).to.equal(null);
    }
  });

  it("refuses this repository's development mnemonic too, whatever its whitespace and case", async () => {
    const phrase = `  ${DEV_SERVER_WALLET_MNEMONIC.toUpperCase().replace(/ /g, "   ")} `;
    const error = await openError(new ServerWallets(phrase.toLowerCase()), 8453);
    expect(error?.message).to.equal(
      "server wallets: the seed is DEV_SERVER_WALLET_MNEMONIC is public (anyone can sign with its keys) and chain " +
        "8453 is not a local chain (31337, 1337): set a secret mnemonic, keystore or remote signer",
    );
  });

  it("accepts a secret mnemonic on any chain", async () => {
    const secret = Wallet.createRandom().mnemonic!.phrase;
    expect(await openError(new ServerWallets(secret), 8453)).to.equal(null);
  });

  it("refuses a remote signer that lists a published development account off the local chains", async () => {
    const hardhat5 = HDNodeWallet.fromPhrase(HARDHAT_DEFAULT_MNEMONIC, undefined, "m/44'/60'/0'/0/5");
    const signer = await startRemoteSigner([Wallet.createRandom() as unknown as Wallet, hardhat5]);
    try {
      const error = await openError(new ServerWallets({ mode: "remote", url: signer.url }), BASE_SEPOLIA);
      expect(error).to.be.instanceOf(PublicDevKeysError);
      expect(error?.message).to.equal(
        `server wallets: account ${hardhat5.address} of the remote signer (Hardhat's default mnemonic) is public ` +
          "(anyone can sign with its keys) and chain 84532 is not a local chain (31337, 1337): set a secret " +
          "mnemonic, keystore or remote signer",
      );
      expect(await openError(new ServerWallets({ mode: "remote", url: signer.url }), 31337)).to.equal(null);
    } finally {
      await signer.close();
    }
  });
});
