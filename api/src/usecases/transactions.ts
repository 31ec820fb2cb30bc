import { NotFoundError } from "../errors";
import type { TxJournalEntry, TxJournalStore } from "../tx";
import type { AgentRecord } from "./agents";

/**
 * The transactions the service sent for an agent, as the transaction journal holds them: from its server wallet
 * (deposits, exits, submissions, votes) and from the relayer on its behalf (faucet drips, fulfilments of its
 * redemption requests). Another agent's transaction is answered as unknown (404), the same as a hash the service
 * never sent, so that nothing tells one from the other.
 */
export class Transactions {
  constructor(private readonly journal: TxJournalStore) {}

  async byHash(agent: AgentRecord, hash: string): Promise<TxJournalEntry> {
    const entry = await this.journal.findByHash(hash);
    if (!entry || entry.requestor !== agent.agentId) {
      throw new NotFoundError(`tx_hash: no transaction ${hash} was sent by this service for this agent`);
    }
    return entry;
  }

  /** The agent's latest transactions, newest first. */
  recent(agent: AgentRecord, limit: number): Promise<TxJournalEntry[]> {
    return this.journal.listByRequestor(agent.agentId, limit);
  }
}
