/**
 * `nap wallet ...`: the self-custody path (issue 30). A wallet whose key the user holds in a file signs EIP-712
 * messages and the service's relayer sends them, so the wallet needs no ETH and no registered agent. Plain data
 * here, for the usage; wallet/run.ts does the work.
 */

export const WALLET_USAGE = [
  [
    "wallet deposit VAULT AMOUNT_USDC --key-file FILE [--receiver ADDRESS] [--min-shares RAW]",
    "deposit USDC into a vault by the key file's signature (an EIP-2612 permit instead of an approve); the " +
      "service relays it and pays the gas, the wallet needs no ETH and no agent",
  ],
  [
    "wallet withdraw VAULT --shares RAW --key-file FILE [--receiver ADDRESS] [--min-assets RAW]",
    "redeem shares of a synchronous vault by signature",
  ],
  ["wallet redeem-request VAULT --shares RAW --key-file FILE", "ask an asynchronous vault to redeem, by signature"],
  [
    "wallet claim VAULT --shares RAW --key-file FILE [--receiver ADDRESS] [--min-assets RAW]",
    "claim fulfilled shares of a redemption as USDC, by signature",
  ],
  [
    "wallet cancel VAULT --key-file FILE [--receiver ADDRESS]",
    "cancel a pending redemption and take the shares back, by signature",
  ],
  ["wallet relay RELAY_ID", "a signed write's relay: submitted, confirmed (with shares or assets) or failed"],
] as const;

export const WALLET_OPTIONS = `Wallet options: --key-file FILE (default $NAP_KEY_FILE): an encrypted keystore JSON, its passphrase from
$NAP_KEY_PASSPHRASE or asked on the terminal, or a file holding the private key as hex, readable by its owner alone
(mode 0600); --no-wait (answer once the transaction is sent, not when it is mined); --chain-id N and --router ADDRESS
(refuse typed data for another chain or router).`;

/** The flags of the wallet commands, for parseArgs. */
export const WALLET_FLAGS = {
  "key-file": { type: "string" },
  receiver: { type: "string" },
  "min-shares": { type: "string" },
  "min-assets": { type: "string" },
  "no-wait": { type: "boolean" },
  "chain-id": { type: "string" },
  router: { type: "string" },
} as const;
