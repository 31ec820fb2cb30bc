import type { Context } from "koa";
import { hashApiKey } from "../../domain/apiKeys";
import { describeScope, scopeAllows, type KeyAccess } from "../../domain/keyScopes";
import type { Tier } from "../../domain/model";
import { PERMISSIONS, tierAtLeast } from "../../domain/tiers";
import { AuthenticationError, NotConfiguredError, PermissionError } from "../../errors";
import type { AgentRecord, AgentService } from "../../usecases/agents";
import type { ScopedKeyRecord, ScopedKeys } from "../../usecases/custody/scopedKeys";
import type { InvalidKeyLimiter } from "./invalidKeys";

/**
 * API-key authentication for the keyed endpoints (`X-API-Key`).
 * Order of answers: 503 when the server has no keys at all (no registered agent and no operator key in
 * AGENT_API_KEYS), 401 for a missing key, 429 when this client IP has sent too many invalid keys (checked before the
 * key is looked up), 401 for an unknown key (or a scoped key revoked or expired, naming when), 403 when the key's kind,
 * tier or scope lacks permission. Keys are looked up by their SHA-256 hash only: the agent's full key, then its
 * scoped keys (usecases/custody/scopedKeys.ts).
 */

/**
 * An agent's key: its full key, or one of its scoped keys (`scopedKey`). Both count against the agent's one rate limit
 * (`keyId` names the agent), so scoped keys do not multiply it.
 */
export type Principal =
  | { kind: "agent"; keyId: string; agent: AgentRecord; scopedKey?: ScopedKeyRecord }
  | { kind: "operator"; keyId: string };

/**
 * Who may call a route. An agent route also says what it needs of the key (`access`: a read, one operation, or the
 * full key): the one place that decides what a scoped key reaches, and a route cannot be declared without it.
 */
export type AuthRequirement = { kind: "agent"; minTier: Tier; access: KeyAccess } | { kind: "operator" };

/** The auth of an agent route: what it needs of the key, and the lowest tier (default: any agent). */
export function agentAuth(access: KeyAccess, minTier: Tier = PERMISSIONS.agentAccess): AuthRequirement {
  return { kind: "agent", minTier, access };
}

export class Authenticator {
  /** hash -> operator id ("operator:1", ...): ids name keys in logs and grants without revealing them. */
  private readonly operatorKeys = new Map<string, string>();

  constructor(
    private readonly agents: AgentService,
    operatorApiKeys: string[],
    private readonly invalidKeys: InvalidKeyLimiter,
    private readonly scopedKeys: Pick<ScopedKeys, "authenticate">,
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
    if (agent) {
      this.agents.noteKeyUse(agent);
      return { kind: "agent", keyId: `agent:${agent.agentId}`, agent };
    }
    const scoped = await this.scopedKeys.authenticate(key);
    if (!scoped) {
      await this.invalidKeys.record(ctx.ip);
      throw new AuthenticationError("invalid API key");
    }
    return { kind: "agent", keyId: `agent:${scoped.agent.agentId}`, agent: scoped.agent, scopedKey: scoped.key };
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
    const scoped = principal.scopedKey;
    if (scoped && !scopeAllows(scoped.scope, requirement.access)) throw outOfScope(scoped, requirement.access);
  }
}

function outOfScope(key: ScopedKeyRecord, access: KeyAccess): PermissionError {
  const scope = describeScope(key.scope);
  const details = { api_key_prefix: key.keyPrefix, operation: access, scope };
  if (access === "full_key") {
    return new PermissionError(
      `this endpoint needs the agent's full API key: the scoped key ${key.keyPrefix} (scope: ${scope}) cannot ` +
        "issue, list others or revoke keys",
      details,
    );
  }
  return new PermissionError(
    `operation ${access} is outside the scope of the key ${key.keyPrefix} (scope: ${scope}); a key that may call ` +
      "it: POST /api/v1/agent/keys with the full key",
    details,
  );
}

/** The scoped key of the request, or undefined when the agent's full key (or an operator key) made it. */
export function scopedKeyOf(ctx: Context): ScopedKeyRecord | undefined {
  const principal = ctx.state.principal as Principal | undefined;
  return principal?.kind === "agent" ? principal.scopedKey : undefined;
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
