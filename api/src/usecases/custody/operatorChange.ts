import { operatorChangeStatement } from "../../domain/custodyStatements";
import { ConflictError } from "../../errors";
import type { AgentRecord, AgentService, AgentStore } from "../agents";
import type { IssuedNonce } from "../registration";
import type { SignedNonces } from "./signedNonces";

/**
 * Changing an agent's operator address, the only place its funds can leave to (exits.ts). Only the current operator
 * can do it, by signing a message that names the agent and the new operator over a single-use nonce; the agent's API
 * key plays no part, so a leaked key cannot redirect the exit.
 */

const NONCE_ROUTE = "POST /api/v1/agents/{agent_id}/operator/nonce";

export interface OperatorChange {
  agent: AgentRecord;
  previousOperator: string;
}

export class OperatorChanges {
  constructor(
    private readonly store: AgentStore,
    private readonly agents: AgentService,
    private readonly signed: SignedNonces,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * A nonce bound to `operator` (the wallet that will sign) and the exact message to sign. Nothing about the agent is
   * checked here, so that the answer says nothing about which address operates which agent.
   */
  issueNonce(agentId: string, operator: string, newOperator: string): Promise<IssuedNonce> {
    return this.signed.issue(operator, operatorChangeStatement(agentId, newOperator));
  }

  /**
   * Makes `newOperator` the agent's operator when `signature` is the current operator's over the nonce's message.
   * The change is a compare-and-set on the operator the signature was checked against, so two changes signed by one
   * operator cannot both land. Naming the current operator again is a signed no-op.
   */
  async change(agentId: string, newOperator: string, nonce: string, signature: string): Promise<OperatorChange> {
    const agent = await this.agents.getById(agentId);
    const operator = agent.operatorAddress;
    await this.signed.prove(nonce, signature, [operator], operatorChangeStatement(agentId, newOperator), {
      denied: "signature: only the agent's current operator address can change its operator",
      nonceRoute: NONCE_ROUTE,
      signature:
        "not a valid signature by the agent's operator of the message issued with this nonce for new_operator_address",
    });
    const updated = await this.store.setOperator(agentId, operator, newOperator, this.clock());
    if (!updated) {
      throw new ConflictError("operator: the agent's operator changed meanwhile; sign again as the current operator");
    }
    return { agent: updated, previousOperator: operator };
  }
}
