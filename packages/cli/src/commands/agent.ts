import { Reader, UsageError, type CommandLine } from "./binding";
import type { CommandTable } from "./table";

/** The commands of the agent's value-moving and governance operations. */

const SUPPORT = { against: 0, for: 1, abstain: 2 } as const;

/** --shares RAW or --all. */
function sharesOf(read: Reader, line: CommandLine): string {
  if (line.flags.all) return "all";
  return read.need(line.flags.shares, "--shares RAW or --all");
}

/** The VAULT argument, as the API's vault id (the schema checks it before anything is sent). */
const vaultId = (read: Reader, line: CommandLine) => read.need(line.positionals[0], "VAULT") as never;

export const MONEY_COMMANDS = {
  faucet: {
    args: () => ({}),
    progress: () => "asking the faucet",
    lines: (drip) => [
      `received ${drip.drip_amount_eth} ETH and ${drip.drip_amount_usdc} USDC (tx ${drip.tx_hash}, block ${drip.block_number})`,
    ],
  },
  deposit: {
    args: (line) => {
      const read = new Reader("deposit");
      return { vault_id: vaultId(read, line), amount_usdc: read.amount(line.positionals[1]) };
    },
    progress: (args) => `depositing ${args.amount_usdc} USDC into ${args.vault_id}`,
    lines: (deposit) => [
      `deposited ${deposit.amount_usdc} USDC into ${deposit.vault}: approve ${deposit.approve_tx}, deposit ${deposit.deposit_tx} (block ${deposit.block_number})`,
      `shares now: ${deposit.shares_balance} (raw)`,
    ],
  },
  withdraw: {
    args: (line) => {
      const read = new Reader("withdraw");
      const [, value] = line.positionals;
      return value !== undefined
        ? { vault_id: vaultId(read, line), amount_usdc: read.amount(value) }
        : { vault_id: vaultId(read, line), shares: sharesOf(read, line) };
    },
    progress: (args) => `withdrawing from ${args.vault_id}`,
    lines: (withdrawal) => [
      `withdrew ${withdrawal.amount_usdc} USDC from ${withdrawal.vault} for ${withdrawal.shares} shares (tx ${withdrawal.tx_hash}, block ${withdrawal.block_number})`,
      `shares left: ${withdrawal.shares_balance} (raw)`,
    ],
  },
  redeem_request: {
    args: (line) => {
      const read = new Reader("redeem-request");
      return { vault_id: vaultId(read, line), shares: sharesOf(read, line) };
    },
    progress: (args) => `requesting a redemption from ${args.vault_id}`,
    lines: (request, args) => [
      `requested ${request.shares} shares of ${request.vault} (tx ${request.tx_hash})`,
      `claimable from ${new Date(request.ready_at * 1000).toISOString()}: run nap claim ${args.vault_id} then`,
    ],
  },
  claim: {
    args: (line) => ({ vault_id: vaultId(new Reader("claim"), line) }),
    progress: (args) => `claiming from ${args.vault_id}`,
    lines: (claim) => [
      `claimed ${claim.amount_usdc} USDC from ${claim.vault} (tx ${claim.tx_hash}` +
        (claim.fulfill_tx ? `, filled by the ${claim.fulfilled_by} in ${claim.fulfill_tx})` : ")"),
    ],
  },
  cancel_redeem: {
    args: (line) => ({ vault_id: vaultId(new Reader("cancel"), line) }),
    progress: (args) => `canceling the redemption request in ${args.vault_id}`,
    lines: (cancel) => [`took back ${cancel.shares} shares of ${cancel.vault} (tx ${cancel.claim_tx})`],
  },
  submit_strategy: {
    args: (line) => {
      const read = new Reader("strategy");
      return {
        name: read.need(line.flags.name, "--name"),
        description: read.need(line.flags.description, "--description"),
        ...(typeof line.flags.dna === "string" && line.flags.dna ? { dna_string: line.flags.dna } : {}),
      };
    },
    progress: (args) => `submitting strategy "${args.name}"`,
    lines: (submitted) => [
      `submitted "${submitted.strategy_name}": ${submitted.strategy_id}, status ${submitted.strategy_status} (tx ${submitted.tx_hash})`,
    ],
  },
  vote: {
    args: (line) => {
      const read = new Reader("vote");
      const [proposal, choice] = line.positionals;
      const support = SUPPORT[read.need(choice, "for, against or abstain") as keyof typeof SUPPORT];
      if (support === undefined) throw new UsageError("vote: the choice is for, against or abstain");
      return {
        proposal_id: read.need(proposal, "PROPOSAL_ID"),
        support,
        ...(typeof line.flags.reason === "string" && line.flags.reason ? { reason: line.flags.reason } : {}),
      };
    },
    progress: (args) =>
      `voting ${Object.keys(SUPPORT).find((k) => SUPPORT[k as keyof typeof SUPPORT] === args.support)} on proposal ${args.proposal_id}`,
    lines: (vote) => [
      `voted ${vote.support_label} on proposal ${vote.proposal_id} with ${vote.weight} NAP (tx ${vote.tx_hash})`,
    ],
  },
} satisfies Partial<CommandTable>;

export const AGENT_READ_COMMANDS = {
  positions: {
    args: () => ({}),
    lines: ({ positions }) =>
      positions.length === 0
        ? ["no vault positions"]
        : positions.map((p) => `${p.vault_name}: ${p.shares} shares worth ${p.value_usdc} USDC`),
  },
  list_strategies: {
    args: () => ({}),
    lines: (list) =>
      list.strategies.length === 0
        ? ["no strategies yet"]
        : list.strategies.map((s) => `${s.strategy_id}  ${s.status}  ${s.name}`),
  },
  transactions: {
    args: () => ({}),
    lines: (list) =>
      list.transactions.length === 0
        ? ["no transactions yet"]
        : list.transactions.map((t) => `${t.tx_hash}  ${t.operation}  ${t.status}`),
  },
  transaction: {
    args: (line) => ({ tx_hash: new Reader("tx").need(line.positionals[0], "HASH") }),
    lines: (tx) => [
      `${tx.operation}: ${tx.status}${tx.block_number !== null ? ` in block ${tx.block_number}` : ""}` +
        (tx.error ? ` (${tx.error})` : ""),
    ],
  },
} satisfies Partial<CommandTable>;
