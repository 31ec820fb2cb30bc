import type { ChainAccess } from "../chain";
import { callLenient } from "../chain/abiText";
import { readChain } from "../chain/rpcErrors";
import { proposalState } from "../chain/vocabulary";
import { agentWallet, type ServerWallets } from "../chain/wallets";
import type { ProposalState, VoteSupport } from "../domain/model";
import { ValidationError } from "../errors";
import { intentKeyFor, type TxEngine } from "../tx";
import type { AgentRecord } from "./agents";

/** Governance: the open proposals (public) and votes from an agent's server wallet. */

export interface Proposal {
  id: bigint;
  proposer: string;
  description: string;
  state: ProposalState;
  forVotes: bigint;
  againstVotes: bigint;
  abstainVotes: bigint;
  /** NAP needed (for + abstain); 0 before the snapshot. */
  quorum: bigint;
  voteStart: bigint;
  voteEnd: bigint;
  eta: bigint;
  targets: string[];
}

export interface Vote {
  agentAddress: string;
  proposalId: bigint;
  support: VoteSupport;
  reason: string;
  /** Votes counted (VoteCast), NAP with 18 decimals. */
  weight: bigint;
  txHash: string;
  blockNumber: number;
  gasUsed: bigint;
}

interface OnchainProposalView {
  id: bigint;
  proposer: string;
  description: string;
  state: bigint;
  againstVotes: bigint;
  forVotes: bigint;
  abstainVotes: bigint;
  voteStart: bigint;
  voteEnd: bigint;
  eta: bigint;
  quorum: bigint;
  targets: string[];
}

/** Proposals are read from the governor this many at a time. */
const PAGE = 50;

export class Governance {
  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
  ) {}

  /**
   * Proposals open for voting or about to open (state pending or active), oldest first, at the read block.
   * Descriptions are decoded leniently: anyone with enough votes can propose, and a description that is not UTF-8
   * must not make the list unreadable for everyone.
   */
  async open(): Promise<Proposal[]> {
    const governor = this.chain.contracts.governor;
    const block = await this.chain.head.readBlock();
    const views = await readChain("the governor", async () => {
      const count = Number(await governor.proposalCount({ blockTag: block }));
      const pages: Promise<unknown>[] = [];
      for (let offset = 0; offset < count; offset += PAGE) {
        pages.push(callLenient(governor, "proposalsPage", [offset, PAGE], block));
      }
      return ((await Promise.all(pages)) as OnchainProposalView[][]).flat();
    });
    return views
      .map((view) => ({
        id: view.id,
        proposer: view.proposer,
        description: view.description,
        state: proposalState(view.state),
        forVotes: view.forVotes,
        againstVotes: view.againstVotes,
        abstainVotes: view.abstainVotes,
        quorum: view.quorum,
        voteStart: view.voteStart,
        voteEnd: view.voteEnd,
        eta: view.eta,
        targets: [...view.targets],
      }))
      .filter((proposal) => proposal.state === "pending" || proposal.state === "active");
  }

  /**
   * Casts the agent's vote with `castVoteWithReason`, after checking at the read block what the governor would refuse
   * (unknown or inactive proposal, a second vote, no voting power at the snapshot) for a clear 400.
   */
  async vote(
    agent: AgentRecord,
    proposalId: bigint,
    support: VoteSupport,
    reason: string,
    idempotencyKey: string | undefined,
  ): Promise<Vote> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const governor = this.chain.contracts.governor;
    const intentKey = intentKeyFor(agent.agentId, "governance.vote", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(intentKey) : null;
    if (!known) await this.#checkVote(address, proposalId);
    const result = await this.engine.send({
      wallet: agentWallet(agent.agentIndex),
      to: governor.target as string,
      data: governor.interface.encodeFunctionData("castVoteWithReason", [proposalId, support, reason]),
      kind: "governance.vote",
      intentKey,
      requestor: agent.agentId,
      meta: { proposal_id: proposalId.toString(), support },
    });
    const event = this.chain.events.first(result.receipt.logs, "VoteCast");
    return {
      agentAddress: address,
      proposalId,
      support,
      reason,
      weight: event?.weight ?? 0n,
      txHash: result.hash,
      blockNumber: result.receipt.blockNumber,
      gasUsed: result.receipt.gasUsed,
    };
  }

  async #checkVote(address: string, proposalId: bigint): Promise<void> {
    const governor = this.chain.contracts.governor;
    const block = await this.chain.head.readBlock();
    const at = { blockTag: block };
    const count = await readChain("the governor", () => governor.proposalCount(at));
    if (proposalId < 1n || proposalId > count) throw new ValidationError(`proposal_id: no proposal ${proposalId}`);
    const [stateIndex, voteStart] = await readChain("the governor", () =>
      Promise.all([governor.state(proposalId, at), governor.proposalSnapshot(proposalId, at)]),
    );
    const state = proposalState(stateIndex);
    if (state !== "active") {
      throw new ValidationError(
        `proposal_id: proposal ${proposalId} is ${state}, not active; votes are accepted only while it is active` +
          (state === "pending" ? ` (voting opens after ${new Date(Number(voteStart) * 1000).toISOString()})` : ""),
      );
    }
    const [voted, weight] = await readChain("the governor", () =>
      Promise.all([governor.hasVoted(proposalId, address, at), governor.getVotes(address, voteStart, at)]),
    );
    if (voted)
      throw new ValidationError(`proposal_id: this agent (${address}) already voted on proposal ${proposalId}`);
    if (weight === 0n) {
      throw new ValidationError(
        `proposal_id: the agent wallet ${address} had no voting power (NAP) at the snapshot of proposal ` +
          `${proposalId}; NAP is granted at tier established and counts for proposals created after the grant`,
      );
    }
  }
}
