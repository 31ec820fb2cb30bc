import { z } from "zod";
import type { ErrorCode } from "../../../errors";
import type { KeyScope } from "../../../domain/keyScopes";
import type { AgentRecord } from "../../../usecases/agents";
import type {
  IssuedScopedKey,
  ScopedKeyRecord,
  ScopedKeyRequest,
  ScopedKeyState,
} from "../../../usecases/custody/scopedKeys";
import type { Exit, ExitAsset } from "../../../usecases/custody/exits";
import { EXIT_OPERATION } from "../../../usecases/custody/exits";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import { agentAuth, authenticatedAgent, scopedKeyOf } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  agentIdParams,
  errorBodySchema,
  exitBody,
  exitResponse,
  idempotencyHeaders,
  keyListResponse,
  keyNonceBody,
  keyPrefixParams,
  keyProofBody,
  keyRevocationResponse,
  keyRotationResponse,
  keyScopeSchema,
  nonceResponse,
  operatorChangeBody,
  operatorChangeResponse,
  operatorNonceBody,
  scopedKeyBody,
  scopedKeyNonceBody,
  scopedKeyResponse,
  scopedKeyRevocationResponse,
  scopedKeySignedBody,
} from "../../../../../packages/wire/src/live";

/**
 * Custody: the agent's way out of its server wallet (to its operator address only), the operator change, which only
 * the current operator's signature makes, and the API key's rotation and revocation by a wallet's signature.
 */

const ONCHAIN_WRITE: ErrorCode[] = ["CONFLICT", "TX_REJECTED", "CHAIN_UNAVAILABLE", "NOT_CONFIGURED"];

function exitAsset(body: z.output<typeof exitBody>): ExitAsset {
  return body.asset === "shares"
    ? { asset: "shares", vaultId: body.vault_id, amount: body.amount }
    : { asset: body.asset, amount: body.amount };
}

function exitResult(exit: Exit): z.input<typeof exitResponse> {
  return {
    success: true,
    agent_address: exit.agentAddress,
    operator_address: exit.operatorAddress,
    asset: exit.asset,
    vault_id: exit.vaultId,
    token_address: exit.tokenAddress,
    amount_raw: exit.amount.toString(),
    tx_hash: exit.txHash,
    status: "confirmed",
    block_number: exit.blockNumber,
  };
}

type ListedKey = z.input<typeof keyListResponse>["keys"][number];

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** The agent's full key in use and those it held before, newest first. */
function fullKeys(agent: AgentRecord): ListedKey[] {
  const full = { kind: "full" as const, label: null, scope: null, expires_at: null };
  const retired = (agent.retiredKeys ?? []).map((key) => ({
    api_key_prefix: key.prefix,
    ...full,
    state: key.reason,
    created_at: key.createdAt.toISOString(),
    last_used_at: iso(key.lastUsedAt),
    ended_at: key.endedAt.toISOString(),
  }));
  const current =
    agent.apiKeyHash === ""
      ? []
      : [
          {
            api_key_prefix: agent.apiKeyPrefix,
            ...full,
            state: "active" as const,
            created_at: (agent.apiKeyCreatedAt ?? agent.createdAt).toISOString(),
            last_used_at: iso(agent.apiKeyLastUsedAt),
            ended_at: null,
          },
        ];
  return [...current, ...retired.reverse()];
}

export function scopeBody(scope: KeyScope): z.input<typeof keyScopeSchema> {
  return {
    read_only: scope.readOnly,
    operations: scope.operations,
    usdc_per_day: scope.usdcPerDay === null ? null : scope.usdcPerDay.toString(),
  };
}

function scopedKeyListed(key: ScopedKeyRecord, state: ScopedKeyState): ListedKey {
  return {
    api_key_prefix: key.keyPrefix,
    kind: "scoped",
    label: key.label,
    scope: scopeBody(key.scope),
    state,
    created_at: key.createdAt.toISOString(),
    last_used_at: iso(key.lastUsedAt),
    expires_at: key.expiresAt.toISOString(),
    ended_at: state === "revoked" ? iso(key.revokedAt) : state === "expired" ? key.expiresAt.toISOString() : null,
  };
}

/** A scoped key's request as the use case takes it. */
function scopedKeyRequest(body: z.output<typeof scopedKeyBody>): ScopedKeyRequest {
  return {
    label: body.label ?? null,
    scope: {
      readOnly: body.read_only === true,
      operations: body.operations ?? [],
      usdcPerDay: body.usdc_per_day ?? null,
    },
    lifetimeSeconds: body.expires_in_seconds,
  };
}

function issuedBody(agentId: string, issued: IssuedScopedKey): z.input<typeof scopedKeyResponse> {
  const { record } = issued;
  return {
    success: true,
    agent_id: agentId,
    api_key: issued.apiKey,
    api_key_prefix: record.keyPrefix,
    label: record.label,
    scope: scopeBody(record.scope),
    expires_at: record.expiresAt.toISOString(),
  };
}

export function custodyRoutes({ useCases, logger }: RouteContext): RouteDefinition[] {
  const { exits, operatorChanges, agentKeys, scopedKeys, idempotency } = useCases;
  return [
    defineRoute({
      method: "post",
      path: "/api/v1/agent/exit",
      tag: "wallet",
      summary: "Send USDC, ETH or a vault's shares from the agent's server wallet to its operator address",
      description:
        "The way out of the server wallet. The recipient is always the agent's operator address (registration's " +
        "operator_address, changed only by the operator's signature: POST /api/v1/agents/{agent_id}/operator); no " +
        "request can name another. One transaction; Idempotency-Key, statuses and errors as every other write.",
      auth: agentAuth("exit"),
      rateLimit: "write",
      headers: idempotencyHeaders,
      noStore: true,
      body: exitBody,
      responses: { 200: { description: "mined", schema: exitResponse } },
      errors: ONCHAIN_WRITE,
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        const scoped = scopedKeyOf(ctx);
        // USDC leaving by a scoped key counts against its daily limit, reserved before the transfer is sent.
        const reserve =
          scoped && body.asset === "usdc"
            ? (amount: bigint) => scopedKeys.reserveUsdc(scoped, amount, key && `${EXIT_OPERATION}:${key}`)
            : undefined;
        return idempotency.run(agent.agentId, EXIT_OPERATION, key, body, async () => {
          const exit = await exits.toOperator(agent, exitAsset(body), key, reserve);
          logger.info(
            { agentId: agent.agentId, asset: exit.asset, amount: exit.amount.toString(), to: exit.operatorAddress },
            "exit to the operator",
          );
          return exitResult(exit);
        });
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/operator/nonce",
      tag: "registration",
      summary: "Get a nonce and the message with which the current operator hands the agent to a new operator",
      description:
        "Issues a single-use nonce bound to operator_address, valid for 600 seconds, and the exact EIP-4361 message " +
        "naming the agent and new_operator_address. Needs no API key: the signature is the proof.",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: operatorNonceBody,
      responses: { 200: { description: "nonce issued", schema: nonceResponse } },
      handler: ({ params, body }) =>
        operatorChanges.issueNonce(params.agent_id, body.operator_address, body.new_operator_address),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/operator",
      tag: "registration",
      summary: "Change the agent's operator address with the current operator's signature",
      description:
        "Verifies the current operator's signature of the nonce's message (EIP-191, or EIP-1271 for contract " +
        "wallets), consumes the nonce and sets the new operator: from then on every exit goes there. 403 when the " +
        "nonce was issued to another address than the agent's operator.",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: operatorChangeBody,
      responses: {
        200: { description: "operator changed", schema: operatorChangeResponse },
        403: {
          description: "the nonce was issued to an address that is not the agent's current operator",
          schema: errorBodySchema,
        },
      },
      errors: ["NOT_FOUND", "CONFLICT", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, body }) => {
        const { agent, previousOperator } = await operatorChanges.change(
          params.agent_id,
          body.new_operator_address,
          body.nonce,
          body.signature,
        );
        logger.info(
          { agentId: agent.agentId, from: previousOperator, to: agent.operatorAddress },
          "operator changed by the operator's signature",
        );
        return {
          success: true,
          agent_id: agent.agentId,
          operator_address: agent.operatorAddress,
          previous_operator_address: previousOperator,
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/keys",
      tag: "registration",
      summary:
        "The agent's API keys by prefix: its full key (in use and before), its scoped keys, creation and last use",
      description:
        "With the full key: the full key in use and those it held before, newest first, then every scoped key " +
        "(active, expired or revoked), newest first. With a scoped key: that key only.",
      auth: agentAuth("read"),
      rateLimit: "agent",
      noStore: true,
      responses: { 200: { description: "keys, newest first", schema: keyListResponse } },
      handler: async ({ ctx }) => {
        const agent = authenticatedAgent(ctx);
        const scoped = scopedKeyOf(ctx);
        const listed = (key: ScopedKeyRecord) => scopedKeyListed(key, scopedKeys.stateOf(key));
        if (scoped) return { agent_id: agent.agentId, keys: [listed(scoped)] };
        const others = await scopedKeys.list(agent.agentId);
        return { agent_id: agent.agentId, keys: [...fullKeys(agent), ...others.map(listed)] };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/keys",
      tag: "registration",
      summary: "Issue a scoped API key (for handing to an LLM) with the agent's full key",
      description:
        "A second key of the agent, limited to reading (read_only: true) or to a set of operations (reads " +
        "included), optionally to usdc_per_day (USDC base units leaving the agent's wallet per UTC day, across every " +
        "instance), expiring after expires_in_seconds (default 30 days, at most 365). Same format as the full key " +
        "(`nap-` plus 32 characters, sent as X-API-Key); returned once. A scoped key can never issue, list others or " +
        "revoke keys, rotate the full key or change the operator; the full key's rotation does not end it: revoke it " +
        "by its prefix (DELETE /api/v1/agent/keys/{prefix}).",
      auth: agentAuth("full_key"),
      rateLimit: "write",
      body: scopedKeyBody,
      noStore: true,
      responses: { 201: { description: "issued (the key is in this answer only)", schema: scopedKeyResponse } },
      errors: ["CONFLICT"],
      handler: async ({ body, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const issued = await scopedKeys.issue(agent, scopedKeyRequest(body));
        logger.info({ agentId: agent.agentId, key: issued.record.keyPrefix, by: "full_key" }, "scoped api key issued");
        ctx.status = 201;
        return issuedBody(agent.agentId, issued);
      },
    }),
    defineRoute({
      method: "delete",
      path: "/api/v1/agent/keys/:prefix",
      tag: "registration",
      summary: "Revoke one of the agent's scoped keys by its prefix, with the full key",
      description:
        "The key stops at once on every instance (keys are checked against the store on each request); its later " +
        "requests answer 401 naming the revocation. 404 for a prefix that is no scoped key of the agent (the full " +
        "key is revoked by a signature: POST /api/v1/agents/{agent_id}/key/revoke), 409 when revoked already.",
      auth: agentAuth("full_key"),
      rateLimit: "write",
      params: keyPrefixParams,
      responses: { 200: { description: "revoked", schema: scopedKeyRevocationResponse } },
      errors: ["NOT_FOUND", "CONFLICT"],
      handler: async ({ params, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const revoked = await scopedKeys.revoke(agent, params.prefix);
        logger.info({ agentId: agent.agentId, key: revoked.keyPrefix }, "scoped api key revoked");
        return {
          success: true,
          agent_id: agent.agentId,
          revoked_api_key_prefix: revoked.keyPrefix,
          message: "Scoped key revoked: it no longer works on any instance.",
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/keys/nonce",
      tag: "registration",
      summary: "Get a nonce and the message with which the agent's wallet issues a scoped key",
      description:
        "Takes the scope of the key to issue (as POST /api/v1/agent/keys) and returns a single-use nonce for the " +
        "agent's wallet, valid for 600 seconds, and the exact EIP-4361 message naming the agent and that scope. Needs " +
        "no API key: the wallet's signature is the proof.",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: scopedKeyNonceBody,
      responses: { 200: { description: "nonce issued", schema: nonceResponse } },
      errors: ["NOT_FOUND"],
      handler: ({ params, body }) => scopedKeys.issueNonce(params.agent_id, scopedKeyRequest(body)),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/keys",
      tag: "registration",
      summary: "Issue a scoped API key by the agent's wallet signature (no API key needed)",
      description:
        "The scope, label and expires_in_seconds exactly as sent to the nonce step, with the nonce and the agent " +
        "wallet's signature of its message (EIP-191, or EIP-1271 for contract wallets). Answers as POST " +
        "/api/v1/agent/keys.",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: scopedKeySignedBody,
      noStore: true,
      responses: {
        201: { description: "issued (the key is in this answer only)", schema: scopedKeyResponse },
        403: {
          description: "the nonce was issued to another address than the agent's wallet",
          schema: errorBodySchema,
        },
      },
      errors: ["NOT_FOUND", "CONFLICT", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, body, ctx }) => {
        const issued = await scopedKeys.issueBySignature(
          params.agent_id,
          scopedKeyRequest(body),
          body.nonce,
          body.signature,
        );
        logger.info({ agentId: params.agent_id, key: issued.record.keyPrefix, by: "wallet" }, "scoped api key issued");
        ctx.status = 201;
        return issuedBody(params.agent_id, issued);
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/key/nonce",
      tag: "registration",
      summary: "Get a nonce and the message that rotates or revokes the agent's API key",
      description:
        "Issues a single-use nonce bound to signer_address, valid for 600 seconds, and the exact EIP-4361 message of " +
        "the action: rotate (signed by the agent's wallet) or revoke (the agent's wallet or its operator). Needs no " +
        "API key: a leaked or lost key is what these replace. With api_key_prefix (revoke only): the message revokes " +
        "that scoped key instead of the full key (404 when the agent has no scoped key by that prefix).",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: keyNonceBody,
      responses: { 200: { description: "nonce issued", schema: nonceResponse } },
      errors: ["NOT_FOUND"],
      handler: ({ params, body }) =>
        body.api_key_prefix === undefined
          ? agentKeys.issueNonce(params.agent_id, body.signer_address, body.action)
          : scopedKeys.issueRevocationNonce(params.agent_id, body.signer_address, body.api_key_prefix),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/key/rotate",
      tag: "registration",
      summary: "A new API key by the agent's wallet signature; the current key stops at once",
      description:
        "Verifies the agent's wallet's signature of the rotation message (nonce with action rotate), replaces the " +
        "key and returns the new one once. The old key is refused from then on by every instance (keys are checked " +
        "against the store on each request).",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: keyProofBody,
      noStore: true,
      responses: {
        200: { description: "rotated (the key is in this answer only)", schema: keyRotationResponse },
        403: {
          description: "the nonce was issued to another address than the agent's wallet",
          schema: errorBodySchema,
        },
      },
      errors: ["NOT_FOUND", "CONFLICT", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, body }) => {
        const { agent, apiKey, previousPrefix } = await agentKeys.rotate(params.agent_id, body.nonce, body.signature);
        logger.info({ agentId: agent.agentId, from: previousPrefix, to: agent.apiKeyPrefix }, "api key rotated");
        return {
          success: true,
          agent_id: agent.agentId,
          api_key: apiKey,
          api_key_prefix: agent.apiKeyPrefix,
          previous_api_key_prefix: previousPrefix,
          message: "Key rotated: the previous key no longer works. Store this key now: it is shown only once.",
        };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agents/:agent_id/key/revoke",
      tag: "registration",
      summary: "Revoke the agent's API key by the signature of its wallet or its operator",
      description:
        "Verifies the signature of the revocation message (nonce with action revoke), which names the key's " +
        "prefix; the key stops at once on every instance and no key replaces it until a rotation by the agent's " +
        "wallet. With api_key_prefix (as given to the nonce step): that scoped key stops, the full key stays. 409 " +
        "when the key is revoked already.",
      auth: null,
      rateLimit: "public",
      params: agentIdParams,
      body: keyProofBody,
      responses: {
        200: { description: "revoked", schema: keyRevocationResponse },
        403: {
          description: "the nonce was issued to an address that is neither the agent's wallet nor its operator",
          schema: errorBodySchema,
        },
      },
      errors: ["NOT_FOUND", "CONFLICT", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, body }) => {
        if (body.api_key_prefix !== undefined) {
          const key = await scopedKeys.revokeBySignature(
            params.agent_id,
            body.api_key_prefix,
            body.nonce,
            body.signature,
          );
          logger.info({ agentId: key.agentId, key: key.keyPrefix }, "scoped api key revoked by signature");
          return {
            success: true,
            agent_id: key.agentId,
            revoked_api_key_prefix: key.keyPrefix,
            message: "Scoped key revoked: it no longer works on any instance.",
          };
        }
        const agent = await agentKeys.revoke(params.agent_id, body.nonce, body.signature);
        logger.info({ agentId: agent.agentId, key: agent.apiKeyPrefix }, "api key revoked");
        return {
          success: true,
          agent_id: agent.agentId,
          revoked_api_key_prefix: agent.apiKeyPrefix,
          message: "Key revoked. A new key needs a rotation signed by the agent's wallet.",
        };
      },
    }),
  ];
}
