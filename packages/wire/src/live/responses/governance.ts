import { z } from "zod";
import { decimalString, txHash } from "../schemas";
import { PROPOSAL_STATES, VOTE_SUPPORT } from "../vocabulary";

/** Governance: the open proposals and the result of a vote. */

export const proposalSchema = z
  .object({
    proposal_id: z.string().meta({ description: "uint256 as a decimal string (sequential 1, 2, 3...)" }),
    proposer: z.string(),
    description: z.string(),
    state: z.enum(PROPOSAL_STATES),
    votes_for: decimalString("NAP, decimal"),
    votes_against: decimalString("NAP, decimal"),
    votes_abstain: decimalString("NAP, decimal"),
    quorum: decimalString("NAP needed (for + abstain); 0 before the snapshot"),
    vote_start: z.number().int().meta({ description: "snapshot, Unix seconds: voting opens after it" }),
    vote_end: z.number().int().meta({ description: "deadline, Unix seconds" }),
    eta: z.number().int().meta({ description: "execution time when queued, else 0" }),
    targets: z.array(z.string()),
  })
  .meta({ id: "Proposal" });

export const proposalsResponse = z
  .object({ proposals: z.array(proposalSchema), total: z.number().int() })
  .meta({ id: "ProposalList" });

export const voteResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string(),
    proposal_id: z.string(),
    support: z.number().int(),
    support_label: z.enum(VOTE_SUPPORT),
    reason: z.string(),
    weight: decimalString("votes counted, NAP decimal"),
    weight_raw: z.string(),
    tx_hash: txHash,
    status: z.literal("confirmed"),
    block_number: z.number().int(),
    gas_used: z.number().int(),
  })
  .meta({ id: "VoteResult" });
