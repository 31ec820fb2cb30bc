/**
 * The public development wallets of local chains (never for a real chain). Kept free of imports so that `npm start`
 * can read them before anything is compiled.
 */

/** Mnemonic of the service's server wallets on local chains; the API derives the relayer and agent wallets from it. */
export const DEV_SERVER_WALLET_MNEMONIC =
  "myth like bonus scare over problem client lizard pioneer submit female collect";
/** Derivation path of the service relayer (faucet dripper, 7540 fulfiller, badge minter, screening bot). */
export const RELAYER_PATH = "m/44'/60'/0'/0/0";
