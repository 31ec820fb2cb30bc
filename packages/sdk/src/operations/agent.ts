import { z } from "zod";
import {
  cancelResponse,
  claimResponse,
  depositBody,
  depositResponse,
  faucetResponse,
  redeemRequestBody,
  redeemRequestResponse,
  registerBody,
  registerResponse,
  strategyListResponse,
  submitBody,
  submitResponse,
  transactionListResponse,
  transactionSchema,
  txHashParams,
  vaultActionBody,
  vaultPositionsResponse,
  voteBody,
  voteResponse,
  walletResponse,
  withdrawBody,
  withdrawResponse,
} from "@nap/wire/live";
import { defineOperation, NapOperationError, type OperationContext } from "./operation";

/** The agent's own operations on the live API: each needs the agent's API key. */

const nothing = z.strictObject({});

/** Options of a value-moving call: the caller's Idempotency-Key when it gave one. */
const write = (context: OperationContext) =>
  context.idempotencyKey !== undefined ? { idempotencyKey: context.idempotencyKey } : {};

/** The registration's fields an agent chooses; the wallet, nonce and signature are the owner wallet's to give. */
export const registerInput = registerBody
  .pick({ agent_name: true, agent_type: true, description: true })
  .meta({ id: "RegisterArguments" });

export const register = defineOperation({
  name: "register",
  title: "Register an agent",
  description:
    "Registers a new agent owned by the host's wallet (which signs the registration) and answers its API key, which is shown only this once. Use it once, before any other agent operation.",
  input: registerInput,
  output: registerResponse,
  readOnly: false,
  movesValue: false,
  needsAgent: false,
  run: async (context, args) => {
    if (!context.signer) {
      throw new NapOperationError(
        "register: registration is signed by the owner's wallet, and none is configured here",
      );
    }
    return context.live.register({
      signer: context.signer,
      agentName: args.agent_name,
      ...(args.agent_type !== undefined ? { agentType: args.agent_type } : {}),
      ...(args.description !== undefined ? { description: args.description } : {}),
    });
  },
});

export const faucet = defineOperation({
  name: "faucet",
  title: "Faucet",
  description:
    "Sends test ETH (for gas) and test USDC to the agent's server wallet. Allowed once a day per agent; use it before the first deposit on a test network.",
  input: nothing,
  output: faucetResponse,
  readOnly: false,
  movesValue: true,
  needsAgent: true,
  run: (context) => context.live.faucet(write(context)),
});

export const deposit = defineOperation({
  name: "deposit",
  title: "Deposit into a vault",
  description:
    "Deposits amount_usdc USDC from the agent's wallet into the vault vault_id (approve, then deposit); answers once both transactions are mined, with the agent's share balance after it.",
  input: depositBody,
  output: depositResponse,
  readOnly: false,
  movesValue: true,
  needsAgent: true,
  run: (context, args) => context.live.deposit(args as never, write(context)),
});

export const withdraw = defineOperation({
  name: "withdraw",
  title: "Withdraw from a synchronous vault",
  description:
    'Withdraws amount_usdc USDC, or redeems shares (raw, or "all"), from a synchronous vault (conservative, moderate, configurable) to the agent\'s wallet. For aggressive, inverse and hedged use nap_redeem_request, then nap_claim.',
  input: withdrawBody,
  output: withdrawResponse,
  readOnly: false,
  movesValue: true,
  needsAgent: true,
  run: (context, args) => context.live.withdraw(args as never, write(context)),
});

export const redeemRequest = defineOperation({
  name: "redeem_request",
  title: "Request a redemption (asynchronous vault)",
  description:
    'Asks to redeem shares (raw, or "all") from an asynchronous vault (aggressive, inverse, hedged). The answer\'s ready_at (Unix seconds) says from when nap_claim can take the USDC.',
  input: redeemRequestBody,
  output: redeemRequestResponse,
  readOnly: false,
  movesValue: true,
  needsAgent: true,
  run: (context, args) => context.live.requestRedeem(args as never, write(context)),
});

export const claim = defineOperation({
  name: "claim",
  title: "Claim a redemption",
  description:
    "Claims the USDC of the agent's redemption request in vault_id once it is ready (the request is filled first if needed). Refused with the time to wait while it is not ready.",
  input: vaultActionBody,
  output: claimResponse,
  readOnly: false,
  movesValue: true,
  needsAgent: true,
  run: (context, args) => context.live.claim(args as never, write(context)),
});

export const cancelRedeem = defineOperation({
  name: "cancel_redeem",
  title: "Cancel a redemption request",
  description:
    "Cancels the agent's pending redemption request in vault_id and takes its shares back into the agent's wallet.",
  input: vaultActionBody,
  output: cancelResponse,
  readOnly: false,
  movesValue: true,
  needsAgent: true,
  run: (context, args) => context.live.cancelRedeem(args as never, write(context)),
});

export const submitStrategy = defineOperation({
  name: "submit_strategy",
  title: "Submit a strategy",
  description:
    "Registers a trading strategy onchain from the agent's wallet: a name, a description and optional risk parameters (each has a default). Answers its strategy_id and status.",
  input: submitBody,
  output: submitResponse,
  readOnly: false,
  movesValue: false,
  needsAgent: true,
  run: (context, args) => context.live.submitStrategy(args as never, write(context)),
});

export const vote = defineOperation({
  name: "vote",
  title: "Vote on a proposal",
  description:
    "Casts the agent's vote on a governance proposal (support 0 against, 1 for, 2 abstain) with its NAP as weight; needs tier established and NAP. See nap_proposals for the ids.",
  input: voteBody,
  output: voteResponse,
  readOnly: false,
  movesValue: false,
  needsAgent: true,
  run: (context, args) => context.live.vote(args as never, write(context)),
});

export const wallet = defineOperation({
  name: "wallet",
  title: "Agent wallet",
  description:
    "The agent's server wallet: its address, ETH (gas), USDC, NAP and voting power, and its vault positions. Start here to see what the agent can spend.",
  input: nothing,
  output: walletResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: true,
  run: (context) => context.live.wallet(),
});

export const positions = defineOperation({
  name: "positions",
  title: "Vault positions",
  description: "The agent's vault positions: shares and their USDC value in each vault where it holds some.",
  input: nothing,
  output: vaultPositionsResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: true,
  run: (context) => context.live.positions(),
});

export const listStrategies = defineOperation({
  name: "list_strategies",
  title: "The agent's strategies",
  description: "The strategies the agent submitted, with their status.",
  input: nothing,
  output: strategyListResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: true,
  run: (context) => context.live.strategies(),
});

export const transactions = defineOperation({
  name: "transactions",
  title: "The agent's transactions",
  description:
    "The transactions the service sent for the agent (deposits, withdrawals, claims, votes...), newest first, with their status.",
  input: nothing,
  output: transactionListResponse,
  readOnly: true,
  movesValue: false,
  needsAgent: true,
  run: (context) => context.live.transactions(),
});

export const transaction = defineOperation({
  name: "transaction",
  title: "Transaction status",
  description:
    "Status of one transaction the service sent for the agent, by hash: pending, confirmed, reverted or failed (with why).",
  input: txHashParams,
  output: transactionSchema,
  readOnly: true,
  movesValue: false,
  needsAgent: true,
  run: (context, args) => context.live.transaction(args.tx_hash),
});

export const AGENT_OPERATIONS = [
  register,
  faucet,
  deposit,
  withdraw,
  redeemRequest,
  claim,
  cancelRedeem,
  submitStrategy,
  vote,
  wallet,
  positions,
  listStrategies,
  transactions,
  transaction,
] as const;
