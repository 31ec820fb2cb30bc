import { randomBytes } from "node:crypto";
import { operatorChangeStatement } from "../../domain/custodyStatements";
import { buildSignInMessage } from "../../domain/signInMessage";
import { ConflictError, PermissionError, invalidField } from "../../errors";
import type { AgentRecord, AgentService, AgentStore } from "../agents";
import {
  NONCE_TTL_SECONDS,
  type IssuedNonce,
  type NonceRecord,
  type NonceStore,
  type RegistrationSettings,
  type SignatureVerifier,
} from "../registration";

/**
 * Changing an agent's operator address, the only place its funds can leave to (exits.ts). Only the current operator
 * can do it, by signing a message that names the agent and the new operator over a single-use nonce; the agent's API
 * key plays no part, so a leaked key cannot redirect the exit.
 */

export interface OperatorChange {
  agent: AgentRecord;
  previousOperator: string;
}

export class OperatorChanges {
  constructor(
    private readonly stores: { agents: AgentStore; nonces: NonceStore },
    private readonly agents: AgentService,
    private readonly settings: RegistrationSettings,
    private readonly verifySignature: SignatureVerifier,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * A nonce bound to `operator` (the wallet that will sign) and the exact message to sign. Nothing about the agent is
   * checked here, so that the answer says nothing about which address operates which agent.
   */
  async issueNonce(agentId: string, operator: string, newOperator: string): Promise<IssuedNonce> {
    const issuedAt = new Date(Math.floor(this.clock().getTime() / 1000) * 1000);
    const record: NonceRecord = {
      nonce: randomBytes(16).toString("hex"),
      walletAddress: operator,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + NONCE_TTL_SECONDS * 1000),
    };
    await this.stores.nonces.insert(record);
    return {
      nonce: record.nonce,
      message: this.#message(record, agentId, newOperator),
      expires_in_seconds: NONCE_TTL_SECONDS,
    };
  }

  /**
   * Makes `newOperator` the agent's operator when `signature` is the current operator's over the nonce's message.
   * The nonce is used up only once everything else has passed; the change is a compare-and-set on the operator the
   * signature was checked against, so two changes signed by one operator cannot both land.
   */
  async change(agentId: string, newOperator: string, nonce: string, signature: string): Promise<OperatorChange> {
    const agent = await this.agents.getById(agentId);
    const now = this.clock();
    const record = await this.stores.nonces.find(nonce);
    if (!record)
      throw invalidField("nonce", "unknown nonce; request one from POST /api/v1/agents/{agent_id}/operator/nonce");
    if (record.consumedAt) throw invalidField("nonce", "already used; request a new nonce");
    if (record.expiresAt.getTime() <= now.getTime()) {
      throw invalidField("nonce", `expired (valid for ${NONCE_TTL_SECONDS} seconds); request a new nonce`);
    }
    const operator = agent.operatorAddress;
    if (record.walletAddress.toLowerCase() !== operator.toLowerCase()) {
      throw new PermissionError("signature: only the agent's current operator address can change its operator");
    }
    if (newOperator.toLowerCase() === operator.toLowerCase()) {
      throw invalidField("new_operator_address", "is already this agent's operator");
    }
    if (!(await this.verifySignature(operator, this.#message(record, agentId, newOperator), signature))) {
      throw invalidField(
        "signature",
        "not a valid signature by the agent's operator of the message issued with this nonce for new_operator_address",
      );
    }
    if (!(await this.stores.nonces.consume(nonce, operator, this.clock()))) {
      throw invalidField("nonce", "already used; request a new nonce");
    }
    const updated = await this.stores.agents.setOperator(agentId, operator, newOperator, this.clock());
    if (!updated) {
      throw new ConflictError("operator: the agent's operator changed meanwhile; sign again as the current operator");
    }
    return { agent: updated, previousOperator: operator };
  }

  #message(record: NonceRecord, agentId: string, newOperator: string): string {
    return buildSignInMessage({
      ...this.settings,
      ...record,
      statement: operatorChangeStatement(agentId, newOperator),
    });
  }
}
