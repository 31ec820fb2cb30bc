import type { OperationName } from "@nap/sdk";

/**
 * What `nap --help` shows of each command and the flags it reads: plain data with no runtime import, so the usage
 * answers without loading the SDK, ethers or the commands' code (commands/index.ts holds what each one does).
 */

export interface CommandSpec {
  /** The words after `nap`: ["deposit"], ["strategy", "submit"]. */
  words: readonly string[];
  /** Its arguments as the usage shows them: "VAULT AMOUNT_USDC". */
  synopsis: string;
  /** One line on what it does. */
  summary: string;
  /** The flags it reads (besides the common ones), as parseArgs options. */
  flags?: Record<string, { type: "string" | "boolean" }>;
}

/** One spec for each operation of the SDK's list: a missing one is a compile error. */
export const COMMAND_SPECS: { [N in OperationName]: CommandSpec } = {
  register: {
    words: ["register"],
    synopsis: "--name NAME [--type TYPE] [--owner-key 0xKEY] [--faucet] [--force]",
    summary:
      "register an agent (a new owner wallet unless --owner-key); the API key is saved to the credentials file " +
      "(mode 0600) and never printed; --faucet then asks the faucet for test ETH and USDC too",
    flags: {
      name: { type: "string" },
      type: { type: "string" },
      description: { type: "string" },
      "owner-key": { type: "string" },
      force: { type: "boolean" },
      faucet: { type: "boolean" },
    },
  },
  wallet: {
    words: ["status"],
    synopsis: "",
    summary:
      "the agent's wallet: ETH, USDC, NAP, vault positions, and its redemption requests with when each is claimable",
  },
  redemptions: {
    words: ["redemptions"],
    synopsis: "",
    summary: "the agent's pending and claimable redemption requests, with when each becomes claimable",
  },
  faucet: {
    words: ["faucet"],
    synopsis: "",
    summary: "test ETH and USDC to the agent's wallet (once a day)",
  },
  deposit: {
    words: ["deposit"],
    synopsis: "VAULT AMOUNT_USDC",
    summary: "deposit USDC into a vault",
  },
  withdraw: {
    words: ["withdraw"],
    synopsis: "VAULT (AMOUNT_USDC | --shares RAW | --all)",
    summary: "withdraw from a synchronous vault (conservative, moderate, configurable)",
    flags: { shares: { type: "string" }, all: { type: "boolean" } },
  },
  redeem_request: {
    words: ["redeem-request"],
    synopsis: "VAULT (--shares RAW | --all)",
    summary: "ask to redeem from an asynchronous vault (aggressive, inverse, hedged)",
    flags: { shares: { type: "string" }, all: { type: "boolean" } },
  },
  claim: {
    words: ["claim"],
    synopsis: "VAULT",
    summary: "claim a redemption once it is ready",
  },
  cancel_redeem: {
    words: ["cancel"],
    synopsis: "VAULT",
    summary: "cancel a pending redemption and take the shares back",
  },
  submit_strategy: {
    words: ["strategy", "submit"],
    synopsis: "--name NAME --description TEXT [--dna HEX]",
    summary: "submit a strategy onchain",
    flags: { name: { type: "string" }, description: { type: "string" }, dna: { type: "string" } },
  },
  vote: {
    words: ["vote"],
    synopsis: "PROPOSAL_ID (for|against|abstain) [--reason TEXT]",
    summary: "vote on a governance proposal",
    flags: { reason: { type: "string" } },
  },
  positions: {
    words: ["positions"],
    synopsis: "",
    summary: "the agent's vault positions",
  },
  list_strategies: {
    words: ["strategy", "list"],
    synopsis: "",
    summary: "the agent's strategies",
  },
  transactions: {
    words: ["transactions"],
    synopsis: "",
    summary: "the transactions the service sent for the agent",
  },
  transaction: {
    words: ["tx"],
    synopsis: "HASH",
    summary: "status of a transaction the service sent for the agent",
  },
  vaults: {
    words: ["vaults"],
    synopsis: "",
    summary: "the vaults, their assets and APY",
  },
  proposals: {
    words: ["proposals"],
    synopsis: "",
    summary: "governance proposals",
  },
  leaderboard: {
    words: ["leaderboard"],
    synopsis: "[--limit N]",
    summary: "agents by performance score",
    flags: { limit: { type: "string" } },
  },
  vault: {
    words: ["vault"],
    synopsis: "VAULT [--period 7d|30d|90d|1y|all] [--interval 1h|4h|1d|1w]",
    summary: "a vault (id or address): TVL, price, APY, fees, strategies and history",
    flags: { period: { type: "string" }, interval: { type: "string" } },
  },
  strategies: {
    words: ["strategies"],
    synopsis: "",
    summary: "every strategy registered onchain, of all agents",
  },
  activity: {
    words: ["activity"],
    synopsis: "[WALLET] [--limit N]",
    summary: "positions and transactions of a wallet (default: the agent's wallet)",
    flags: { limit: { type: "string" } },
  },
  stats: {
    words: ["stats"],
    synopsis: "",
    summary: "protocol totals",
  },
};
