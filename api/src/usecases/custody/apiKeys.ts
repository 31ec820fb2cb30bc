import { apiKeyPrefix, generateApiKey, hashApiKey } from "../../domain/apiKeys";
import { keyRevocationStatement, keyRotationStatement } from "../../domain/custodyStatements";
import { ConflictError, DuplicateKeyError } from "../../errors";
import type { AgentRecord, AgentService, AgentStore } from "../agents";
import type { IssuedNonce } from "../registration";
import type { SignedNonces } from "./signedNonces";

/**
 * An agent's API key, rotated or revoked by a wallet's signature: a leaked key is replaced without re-registering.
 * - rotation: a fresh signature of the agent's wallet (the one that registered) issues a new key; the old one stops;
 * - revocation: the agent's wallet or its operator signs, naming the key's prefix; the agent has no key until a
 *   rotation.
 * Keys are checked against the store of record on every request (doors/live/auth.ts keeps no cache), so a replaced
 * key stops on every instance the moment the store has the change.
 */

const NONCE_ROUTE = "POST /api/v1/agents/{agent_id}/key/nonce";

export type KeyAction = "rotate" | "revoke";

export interface Rotation {
  agent: AgentRecord;
  /** The new key in clear: returned once, never stored. */
  apiKey: string;
  previousPrefix: string;
}

export class AgentKeys {
  constructor(
    private readonly store: AgentStore,
    private readonly agents: AgentService,
    private readonly signed: SignedNonces,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** A nonce bound to `signer` and the message of the action on the agent's current key. */
  async issueNonce(agentId: string, signer: string, action: KeyAction): Promise<IssuedNonce> {
    const agent = await this.agents.getById(agentId);
    return this.signed.issue(signer, this.#statement(agent, action));
  }

  /** A new key for the agent, by its wallet's signature; the current key stops. */
  async rotate(agentId: string, nonce: string, signature: string): Promise<Rotation> {
    const agent = await this.agents.getById(agentId);
    await this.signed.prove(nonce, signature, [agent.walletAddress], this.#statement(agent, "rotate"), {
      denied: "signature: only the agent's wallet (the one that registered it) can rotate its key",
      nonceRoute: NONCE_ROUTE,
      signature: "not a valid signature by the agent's wallet of the rotation message issued with this nonce",
    });
    for (;;) {
      const apiKey = generateApiKey();
      try {
        const updated = await this.store.replaceKey(
          agentId,
          agent.apiKeyHash,
          { hash: hashApiKey(apiKey), prefix: apiKeyPrefix(apiKey) },
          this.clock(),
        );
        if (!updated) throw changedMeanwhile();
        return { agent: updated, apiKey, previousPrefix: agent.apiKeyHash === "" ? "" : agent.apiKeyPrefix };
      } catch (error) {
        // A clash of random keys (never in practice): draw again.
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
    }
  }

  /** Revokes the agent's key, by the signature of its wallet or its operator. */
  async revoke(agentId: string, nonce: string, signature: string): Promise<AgentRecord> {
    const agent = await this.agents.getById(agentId);
    if (agent.apiKeyHash === "") {
      throw new ConflictError(`the key ${agent.apiKeyPrefix} of this agent is revoked already`);
    }
    await this.signed.prove(
      nonce,
      signature,
      [agent.walletAddress, agent.operatorAddress],
      this.#statement(agent, "revoke"),
      {
        denied: "signature: only the agent's wallet or its operator can revoke its key",
        nonceRoute: NONCE_ROUTE,
        signature: "not a valid signature by the agent's wallet or operator of the revocation message of this nonce",
      },
    );
    const updated = await this.store.replaceKey(agentId, agent.apiKeyHash, null, this.clock());
    if (!updated) throw changedMeanwhile();
    return updated;
  }

  #statement(agent: AgentRecord, action: KeyAction): string {
    return action === "rotate"
      ? keyRotationStatement(agent.agentId)
      : keyRevocationStatement(agent.agentId, agent.apiKeyPrefix);
  }
}

function changedMeanwhile(): ConflictError {
  return new ConflictError("the agent's key changed meanwhile (another rotation or revocation); sign again");
}
