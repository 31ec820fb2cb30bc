import type { Context } from "koa";
import { hashApiKey } from "../../domain/apiKeys";
import type { Tier } from "../../domain/model";
import { tierAtLeast } from "../../domain/tiers";
import { AuthenticationError, NotConfiguredError, PermissionError } from "../../errors";
import type { AgentRecord, AgentService } from "../../usecases/agents";
import type { InvalidKeyLimiter } from "./invalidKeys";

/**
 * API-key authentication for the keyed endpoints (`X-API-Key`).
 * Order of answers: 503 when the server has no keys at all (no registered agent and no operator key in
 * AGENT_API_KEYS), 401 for a missing key, 429 when this client IP has sent too many invalid keys (checked before the
 * key is looked up), 401 for an unknown key, 403 when the key's kind or tier lacks permission. Keys are looked up by
 * their SHA-256 hash only.
 */

export type Principal = { kind: "agent"; keyId: string; agent: AgentRecord } | { kind: "operator"; keyId: string };

/** Who may call a route. */
export type AuthRequirement = { kind: "agent"; minTier: Tier } | { kind: "operator" };

export class Authenticator {
  /** hash -> operator id ("operator:1", ...): ids name keys in logs and grants without revealing them. */
  private readonly operatorKeys = new Map<string, string>();

  constructor(
    private readonly agents: AgentService,
    operatorApiKeys: string[],
    private readonly invalidKeys: InvalidKeyLimiter,
  ) {
    operatorApiKeys.forEach((key, index) => this.operatorKeys.set(hashApiKey(key), `operator:${index + 1}`));
  }

  /** Resolves the caller's principal or throws the 503/401/429 error. */
  async identify(ctx: Context): Promise<Principal> {
    if (this.operatorKeys.size === 0 && !(await this.agents.anyExists())) {
      throw new NotConfiguredError(
        "no API keys are configured on this server: register an agent or set AGENT_API_KEYS",
      );
    }
    const key = ctx.get("X-API-Key");
    if (key === "") throw new AuthenticationError("missing API key: send it in the X-API-Key header");
    await this.invalidKeys.check(ctx.ip);
    const operatorId = this.operatorKeys.get(hashApiKey(key));
    if (operatorId) return { kind: "operator", keyId: operatorId };
    const agent = await this.agents.byApiKey(key);
    if (!agent) {
      await this.invalidKeys.record(ctx.ip);
      throw new AuthenticationError("invalid API key");
    }
    this.agents.noteKeyUse(agent);
    return { kind: "agent", keyId: `agent:${agent.agentId}`, agent };
  }

  /** Checks the requirement; throws 403 with what is missing. */
  authorize(principal: Principal, requirement: AuthRequirement): void {
    if (requirement.kind === "operator") {
      if (principal.kind !== "operator")
        throw new PermissionError("this endpoint needs an operator key (AGENT_API_KEYS)");
      return;
    }
    if (principal.kind !== "agent")
      throw new PermissionError("this endpoint needs an agent's API key, not an operator key");
    if (principal.agent.status !== "active") throw new PermissionError(`agent status is ${principal.agent.status}`);
    if (!tierAtLeast(principal.agent.tier, requirement.minTier)) {
      throw new PermissionError(
        `tier ${requirement.minTier} or higher required; this agent's tier is ${principal.agent.tier}`,
      );
    }
  }
}

/** The authenticated agent of a keyed agent route (set by the route's auth step). */
export function authenticatedAgent(ctx: Context): AgentRecord {
  const principal = ctx.state.principal as Principal | undefined;
  if (!principal || principal.kind !== "agent")
    throw new Error("authenticatedAgent called on a route without agent auth");
  return principal.agent;
}

export function principalOf(ctx: Context): Principal {
  const principal = ctx.state.principal as Principal | undefined;
  if (!principal) throw new Error("principalOf called on a route without auth");
  return principal;
}
