import { z } from "zod";
import type { ErrorCode } from "../../../errors";
import { decimalString as formatDecimal, usdcNumber } from "../../../domain/units";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import type { Cancelation, Claim, RedeemRequest, Withdrawal } from "../../../usecases/withdrawals";
import { agentAuth, authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  cancelResponse,
  claimResponse,
  idempotencyHeaders,
  redeemRequestBody,
  redeemRequestResponse,
  vaultActionBody,
  withdrawBody,
  withdrawResponse,
} from "../../../../../packages/wire/src/live";

/**
 * Exits from the vaults from the agent's server wallet: withdraw or redeem from the synchronous vaults (ERC-4626);
 * request, claim or cancel a redemption in the asynchronous ones (ERC-7540 / ERC-7887). Amounts beyond the
 * position are refused before any transaction.
 */

const ONCHAIN_WRITE: ErrorCode[] = ["CONFLICT", "TX_REJECTED", "CHAIN_UNAVAILABLE", "NOT_CONFIGURED"];

function vaultPart(result: { agentAddress: string; vault: Withdrawal["vault"]; blockNumber: number }) {
  return {
    success: true as const,
    agent_address: result.agentAddress,
    vault_id: result.vault.id,
    vault: result.vault.name,
    vault_address: result.vault.address,
    status: "confirmed" as const,
    block_number: result.blockNumber,
  };
}

function exitBody(result: Withdrawal): z.input<typeof withdrawResponse> {
  return {
    ...vaultPart(result),
    tx_hash: result.txHash,
    amount_usdc: usdcNumber(result.assets),
    amount_raw: result.assets.toString(),
    shares: formatDecimal(result.shares, result.shareDecimals),
    shares_raw: result.shares.toString(),
    shares_balance: result.sharesBalance.toString(),
  };
}

function claimBody(result: Claim): z.input<typeof claimResponse> {
  return {
    ...exitBody(result),
    fulfill_tx: result.fulfillment?.txHash ?? null,
    fulfilled_by: result.fulfillment?.by ?? null,
  };
}

function requestBody(result: RedeemRequest): z.input<typeof redeemRequestResponse> {
  return {
    ...vaultPart(result),
    tx_hash: result.txHash,
    shares: formatDecimal(result.shares, result.shareDecimals),
    shares_raw: result.shares.toString(),
    pending_shares_raw: result.pendingShares.toString(),
    ready_at: result.readyAt,
    permissionless_at: result.permissionlessAt,
  };
}

function cancelBody(result: Cancelation): z.input<typeof cancelResponse> {
  return {
    ...vaultPart(result),
    cancel_tx: result.cancelTx,
    claim_tx: result.claimTx,
    shares: formatDecimal(result.shares, result.shareDecimals),
    shares_raw: result.shares.toString(),
    shares_balance: result.sharesBalance.toString(),
  };
}

export function withdrawalRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const { withdrawals, idempotency } = useCases;
  const common = {
    tag: "vaults",
    rateLimit: "write" as const,
    headers: idempotencyHeaders,
    noStore: true,
    errors: ONCHAIN_WRITE,
  };
  return [
    defineRoute({
      ...common,
      method: "post",
      path: "/api/v1/agent/vault/withdraw",
      auth: agentAuth("vault.withdraw"),
      summary: "Withdraw USDC or redeem shares from a synchronous vault (conservative, moderate, configurable)",
      description:
        "One transaction from the agent's server wallet (owner and receiver). Asynchronous vaults answer 400: use redeem-request, then claim.",
      body: withdrawBody,
      responses: { 200: { description: "mined", schema: withdrawResponse } },
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        const exit = body.amount_usdc !== undefined ? { amountMicroUsdc: body.amount_usdc } : { shares: body.shares! };
        return idempotency.run(agent.agentId, "vault.withdraw", key, body, async () =>
          exitBody(await withdrawals.withdraw(agent, body.vault_id, exit, key)),
        );
      },
    }),
    defineRoute({
      ...common,
      method: "post",
      path: "/api/v1/agent/vault/redeem-request",
      auth: agentAuth("vault.redeem_request"),
      summary: "Request a redemption from an asynchronous vault (ERC-7540 requestRedeem)",
      description:
        "Moves shares into the wallet's pending request; the service's fulfiller may fill it from ready_at, anyone from permissionless_at. Then POST /api/v1/agent/vault/claim.",
      body: redeemRequestBody,
      responses: { 200: { description: "mined", schema: redeemRequestResponse } },
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        return idempotency.run(agent.agentId, "vault.redeem_request", key, body, async () =>
          requestBody(await withdrawals.requestRedeem(agent, body.vault_id, body.shares, key)),
        );
      },
    }),
    defineRoute({
      ...common,
      method: "post",
      path: "/api/v1/agent/vault/claim",
      auth: agentAuth("vault.claim"),
      summary: "Claim a redemption from an asynchronous vault: fill the ready request, then redeem to the wallet",
      description:
        "409 with Retry-After while the pending request is not ready yet, or when there is nothing to claim.",
      body: vaultActionBody,
      responses: { 200: { description: "mined", schema: claimResponse } },
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        return idempotency.run(agent.agentId, "vault.claim", key, body, async () =>
          claimBody(await withdrawals.claim(agent, body.vault_id, key)),
        );
      },
    }),
    defineRoute({
      ...common,
      method: "post",
      path: "/api/v1/agent/vault/redeem-cancel",
      auth: agentAuth("vault.redeem_cancel"),
      summary: "Cancel the pending redemption request and take its shares back (ERC-7887)",
      description:
        "Two transactions (cancel, then claim the shares back). When the request is canceled already and its shares " +
        "wait to be claimed back (canceled outside the service, or a claim that failed), one: the claim; cancel_tx " +
        "is then null. 409 when there is neither a pending request nor canceled shares.",
      body: vaultActionBody,
      responses: { 200: { description: "the transactions mined", schema: cancelResponse } },
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        return idempotency.run(agent.agentId, "vault.redeem_cancel", key, body, async () =>
          cancelBody(await withdrawals.cancel(agent, body.vault_id, key)),
        );
      },
    }),
  ];
}
