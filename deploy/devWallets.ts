/**
 * The public development wallets of local chains (never for a real chain). Kept free of imports so that `npm start`
 * can read them before anything is compiled.
 */

/** Mnemonic of the service's server wallets on local chains; the API derives the relayer and agent wallets from it. */
export const DEV_SERVER_WALLET_MNEMONIC =
  "myth like bonus scare over problem client lizard pioneer submit female collect";
/** Derivation path of the service relayer (faucet dripper, 7540 fulfiller, badge minter, screening bot). */
export const RELAYER_PATH = "m/44'/60'/0'/0/0";
/** Parent of the API's agent wallets (m/44'/60'/1'/0/<index>), as api/src/chain/wallets.ts derives them. */
export const AGENT_PATH_PREFIX = "m/44'/60'/1'/0";
/** Hardhat's default mnemonic (Anvil's too): the accounts of every local node, whose keys anyone can read. */
export const HARDHAT_DEFAULT_MNEMONIC = "test test test test test test test test test test test junk";

/**
 * Keys published with the tools or this repository: anyone can sign with them, so no role on a public chain may be
 * one of them. Each entry is a mnemonic and the parent path of the accounts derived from it.
 */
export const PUBLIC_DEV_KEY_SOURCES: readonly { name: string; mnemonic: string; parentPath: string }[] = [
  { name: "Hardhat's default mnemonic", mnemonic: HARDHAT_DEFAULT_MNEMONIC, parentPath: "m/44'/60'/0'/0" },
  { name: "DEV_SERVER_WALLET_MNEMONIC", mnemonic: DEV_SERVER_WALLET_MNEMONIC, parentPath: "m/44'/60'/0'/0" },
  { name: "DEV_SERVER_WALLET_MNEMONIC", mnemonic: DEV_SERVER_WALLET_MNEMONIC, parentPath: AGENT_PATH_PREFIX },
];
/** Accounts checked under each parent path (Hardhat's node unlocks the first 20). */
export const PUBLIC_DEV_ACCOUNTS_PER_PATH = 20;
