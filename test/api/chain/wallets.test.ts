import { expect } from "chai";
import { STATUS_OF } from "../../../api/src/doors/live/errors";
import { inspect } from "node:util";
import { Writable } from "node:stream";
import pino from "pino";
import fc from "fast-check";
import { HDNodeWallet, Mnemonic, Transaction, hexlify, verifyMessage } from "ethers";
import { keccakReady } from "../../../api/src/chain/keccak";
import {
  InvalidServerWalletMnemonicError,
  ServerWallets,
  ServerWalletsNotConfiguredError,
  walletPath,
} from "../../../api/src/chain/wallets";

const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";

function reference(path: string): HDNodeWallet {
  return HDNodeWallet.fromPhrase(DEV_MNEMONIC, "", path);
}

describe("ServerWallets", () => {
  const wallets = new ServerWallets(DEV_MNEMONIC);

  it("derives agent i at m/44'/60'/1'/0/i and the relayer at m/44'/60'/0'/0/0", () => {
    for (const i of [0, 1, 7, 1234]) {
      expect(wallets.agentAddress(i)).to.equal(reference(`m/44'/60'/1'/0/${i}`).address);
      expect(wallets.agentSigner(i).address).to.equal(reference(`m/44'/60'/1'/0/${i}`).address);
      expect(walletPath({ kind: "agent", index: i })).to.equal(`m/44'/60'/1'/0/${i}`);
    }
    expect(wallets.relayerAddress()).to.equal(reference("m/44'/60'/0'/0/0").address);
    expect(wallets.address({ kind: "relayer" })).to.equal(reference("m/44'/60'/0'/0/0").address);
    expect(new Set([0, 1, 2].map((i) => wallets.agentAddress(i))).size).to.equal(3);
    expect(wallets.agentAddress(0)).to.not.equal(wallets.relayerAddress());
  });

  it("accepts the phrase with extra whitespace and refuses a bad index", () => {
    expect(new ServerWallets(`  ${DEV_MNEMONIC.replace(/ /g, "   ")}\n`).agentAddress(3)).to.equal(
      wallets.agentAddress(3),
    );
    expect(() => wallets.agentAddress(-1)).to.throw(
      RangeError,
      "agent wallet index must be an integer from 0 to 2147483647, got -1",
    );
    expect(() => wallets.agentAddress(1.5)).to.throw(RangeError);
    expect(() => wallets.agentAddress(2 ** 31)).to.throw(RangeError);
  });

  it("signs transactions and messages that recover to the derived address", async () => {
    const signer = wallets.agentSigner(5);
    const raw = signer.signPopulated({
      chainId: 31337n,
      nonce: 3,
      to: wallets.relayerAddress(),
      data: "0x",
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
    expect(Transaction.from(raw).from).to.equal(wallets.agentAddress(5));
    expect(verifyMessage("hello", await signer.signMessage("hello"))).to.equal(wallets.agentAddress(5));
  });

  it("signs a populated transaction exactly as ethers does (RFC 6979, low s), for any fields (property)", async () => {
    await keccakReady;
    fc.assert(
      fc.property(
        fc.nat(50),
        // Nonces and amounts from zero (an empty RLP item) through one byte, to the largest values of their fields.
        fc.oneof(fc.nat(1_000), fc.nat(Number.MAX_SAFE_INTEGER)),
        // Up to 3,000 bytes: short items, and items whose RLP header carries a one- or two-byte length.
        fc.uint8Array({ maxLength: 3000 }),
        fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })),
        fc.bigInt({ min: 21_000n, max: 30_000_000n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.constantFrom(1n, 31337n, 84532n),
        fc.constantFrom(
          "0x5FbDB2315678afecb367f032d93F642f64180aa3",
          "0x00000000000000000000000000000000000000aa",
          "0xffffffffffffffffffffffffffffffffffffffff",
        ),
        (index, nonce, data, value, gasLimit, fee, chainId, to) => {
          const tx = {
            chainId,
            nonce,
            to,
            data: hexlify(data),
            value,
            gasLimit,
            maxFeePerGas: fee * 2n,
            maxPriorityFeePerGas: fee,
          };
          const signer = wallets.agentSigner(index);
          const raw = signer.signPopulated(tx);
          const wallet = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${index}`);
          const expected = Transaction.from({ ...tx, type: 2 });
          expected.signature = wallet.signingKey.sign(expected.unsignedHash);
          expect(raw).to.equal(expected.serialized);
          expect(Transaction.from(raw).from).to.equal(signer.address);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("never prints a key or the mnemonic through JSON, inspect, string conversion or pino", () => {
    const secrets = [
      reference("m/44'/60'/1'/0/2").privateKey.slice(2),
      reference("m/44'/60'/0'/0/0").privateKey.slice(2),
      Mnemonic.fromPhrase(DEV_MNEMONIC).computeSeed().slice(2),
      ...DEV_MNEMONIC.split(" ").filter((w) => w.length > 4),
    ];
    const signer = wallets.agentSigner(2);
    const relayer = wallets.relayerSigner();
    let logged = "";
    const sink = new Writable({ write: (chunk, _enc, done) => ((logged += String(chunk)), done()) });
    const logger = pino({}, sink);
    logger.info({ signer, relayer, wallets }, "objects");
    logger.info({ nested: { signer } }, "nested");
    const outputs = [
      JSON.stringify({ signer, relayer, wallets }),
      inspect(signer, { showHidden: true, depth: 10 }),
      inspect(wallets, { showHidden: true, depth: 10 }),
      inspect(relayer, { showHidden: true, depth: 10 }),
      `${signer} ${wallets}`,
      logged,
    ];
    for (const output of outputs) {
      for (const secret of secrets) expect(output.toLowerCase()).to.not.contain(secret.toLowerCase());
    }
    expect(JSON.parse(JSON.stringify(signer))).to.deep.equal({
      address: wallets.agentAddress(2),
      path: "m/44'/60'/1'/0/2",
    });
    expect(JSON.parse(JSON.stringify(wallets))).to.deep.equal({ configured: true });
    expect(Object.keys(signer)).to.not.include("privateKey");
  });

  it("without a mnemonic is not configured and refuses every address and signer with a clear 503 error", () => {
    for (const empty of [undefined, null, "", "   "]) {
      const none = new ServerWallets(empty);
      expect(none.configured).to.equal(false);
      for (const ask of [
        () => none.agentAddress(0),
        () => none.agentSigner(0),
        () => none.relayerSigner(),
        () => none.relayerAddress(),
      ]) {
        expect(ask).to.throw(
          ServerWalletsNotConfiguredError,
          "server wallets are not configured: set SERVER_WALLET_MNEMONIC",
        );
      }
      expect(STATUS_OF[new ServerWalletsNotConfiguredError().code]).to.equal(503);
    }
  });

  it("refuses an invalid mnemonic without echoing it", () => {
    const bad = "myth like bonus scare over problem client lizard pioneer submit female female";
    let err: unknown;
    try {
      new ServerWallets(bad);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(InvalidServerWalletMnemonicError);
    expect((err as Error).message).to.equal(
      "SERVER_WALLET_MNEMONIC is not a valid BIP-39 mnemonic (12-24 English words with a valid checksum)",
    );
    expect((err as Error).message).to.not.contain("myth");
  });
});
