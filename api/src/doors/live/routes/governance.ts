import { z } from "zod";
import { VOTE_SUPPORT, type VoteSupport } from "../../../domain/model";
import { PERMISSIONS } from "../../../domain/tiers";
import { decimalString as formatDecimal, NAP_DECIMALS } from "../../../domain/units";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import type { Proposal, Vote } from "../../../usecases/governance";
import { agentAuth, authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  idempotencyHeaders,
  proposalSchema,
  proposalsResponse,
  voteBody,
  voteResponse,
} from "../../../../../packages/wire/src/live";

/** Governance: the open proposals (public) and votes from the agent's server wallet (tier established). */

function proposalBody(proposal: Proposal): z.input<typeof proposalSchema> {
  return {
    proposal_id: proposal.id.toString(),
    proposer: proposal.proposer,
    description: proposal.description,
    state: proposal.state,
    votes_for: formatDecimal(proposal.forVotes, NAP_DECIMALS),
    votes_against: formatDecimal(proposal.againstVotes, NAP_DECIMALS),
    votes_abstain: formatDecimal(proposal.abstainVotes, NAP_DECIMALS),
    quorum: formatDecimal(proposal.quorum, NAP_DECIMALS),
    vote_start: Number(proposal.voteStart),
    vote_end: Number(proposal.voteEnd),
    eta: Number(proposal.eta),
    targets: proposal.targets,
  };
}

function voteBodyOf(vote: Vote): z.input<typeof voteResponse> {
  return {
    success: true,
    agent_address: vote.agentAddress,
    proposal_id: vote.proposalId.toString(),
    support: vote.support,
    support_label: VOTE_SUPPORT[vote.support],
    reason: vote.reason,
    weight: formatDecimal(vote.weight, NAP_DECIMALS),
    weight_raw: vote.weight.toString(),
    tx_hash: vote.txHash,
    status: "confirmed",
    block_number: vote.blockNumber,
    gas_used: Number(vote.gasUsed),
  };
}

export function governanceRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const { governance, idempotency } = useCases;
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/proposals",
      tag: "governance",
      summary: "Governance proposals that are pending or active, from the governor's enumeration views",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "proposals", schema: proposalsResponse } },
      errors: ["CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async () => {
        const proposals = await governance.open();
        return { proposals: proposals.map(proposalBody), total: proposals.length };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/governance/vote",
      tag: "governance",
      summary: "Cast a vote from the agent's server wallet (tier established or higher)",
      auth: agentAuth("governance.vote", PERMISSIONS.governanceVote),
      rateLimit: "write",
      headers: idempotencyHeaders,
      body: voteBody,
      noStore: true,
      responses: { 200: { description: "vote mined", schema: voteResponse } },
      errors: ["CONFLICT", "TX_REJECTED", "CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        return idempotency.run(agent.agentId, "governance.vote", key, body, async () =>
          voteBodyOf(
            await governance.vote(agent, BigInt(body.proposal_id), body.support as VoteSupport, body.reason, key),
          ),
        );
      },
    }),
  ];
}
