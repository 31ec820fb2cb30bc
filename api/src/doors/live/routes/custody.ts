import { z } from "zod";
import { PERMISSIONS } from "../../../domain/tiers";
import type { ErrorCode } from "../../../errors";
import type { Exit, ExitAsset } from "../../../usecases/custody/exits";
import { EXIT_OPERATION } from "../../../usecases/custody/exits";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import { authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  agentIdParams,
  errorBodySchema,
  exitBody,
  exitResponse,
  idempotencyHeaders,
  nonceResponse,
  operatorChangeBody,
  operatorChangeResponse,
  operatorNonceBody,
} from "../../../../../packages/wire/src/live";

/**
 * Custody: the agent's way out of its server wallet (to its operator address only) and the operator change, which
 * only the current operator's signature makes.
 */

const AGENT = { kind: "agent", minTier: PERMISSIONS.agentAccess } as const;
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

export function custodyRoutes({ useCases, logger }: RouteContext): RouteDefinition[] {
  const { exits, operatorChanges, idempotency } = useCases;
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
      auth: AGENT,
      rateLimit: "write",
      headers: idempotencyHeaders,
      noStore: true,
      body: exitBody,
      responses: { 200: { description: "mined", schema: exitResponse } },
      errors: ONCHAIN_WRITE,
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        return idempotency.run(agent.agentId, EXIT_OPERATION, key, body, async () => {
          const exit = await exits.toOperator(agent, exitAsset(body), key);
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
  ];
}
