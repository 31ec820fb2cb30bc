import { z } from "zod";
import { decimalString as formatDecimal, usdcNumber, usdcString } from "../../../domain/units";
import { IDEMPOTENCY_HEADER } from "../../../usecases/idempotency";
import type { Deposit, VaultInfo, VaultPosition } from "../../../usecases/vaults";
import { agentAuth, authenticatedAgent, scopedKeyOf } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  depositBody,
  depositResponse,
  idempotencyHeaders,
  positionsLookupResponse,
  vaultListResponse,
  vaultPositionSchema,
  vaultPositionsResponse,
  walletLookupBody,
} from "../../../../../packages/wire/src/live";

/** Vaults: the public list, the agent's positions and deposits, and the public positions lookup of any wallet. */

/** What an onchain write can answer besides validation, auth and limits. */
const ONCHAIN_WRITE = ["CONFLICT", "TX_REJECTED", "CHAIN_UNAVAILABLE", "NOT_CONFIGURED"] as const;
const ONCHAIN_READ = ["CHAIN_UNAVAILABLE", "NOT_CONFIGURED"] as const;

/** The vault list as the spec gives it. */
function vaultListBody(vaults: VaultInfo[]): z.input<typeof vaultListResponse> {
  return {
    vaults: vaults.map((vault) => ({
      address: vault.address,
      name: vault.name,
      asset: vault.assetSymbol,
      total_assets: formatDecimal(vault.totalAssets, vault.assetDecimals),
      apy: Number(vault.apyBps) / 100,
      status: vault.paused ? "paused" : "active",
    })),
    total: vaults.length,
  };
}

/** A position as the spec's vault position (the agent's positions and its wallet status). */
export function positionBody(position: VaultPosition): z.input<typeof vaultPositionSchema> {
  return {
    vault_address: position.vaultAddress,
    vault_name: position.vaultName,
    shares: formatDecimal(position.shares, position.shareDecimals),
    value_usdc: usdcString(position.valueMicroUsdc),
  };
}

function depositBodyOf(deposit: Deposit): z.input<typeof depositResponse> {
  return {
    success: true,
    agent_address: deposit.agentAddress,
    vault: deposit.vault.name,
    vault_id: deposit.vault.id,
    vault_address: deposit.vault.address,
    amount_usdc: usdcNumber(deposit.amountMicroUsdc),
    approve_tx: deposit.approveTx,
    deposit_tx: deposit.depositTx,
    status: "confirmed",
    block_number: deposit.blockNumber,
    shares_balance: deposit.sharesBalance.toString(),
  };
}

export function vaultRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const { vaults, idempotency } = useCases;
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/vaults",
      tag: "vaults",
      summary: "Vaults of the deployment, read from the chain (cached per block)",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "vaults", schema: vaultListResponse } },
      errors: [...ONCHAIN_READ],
      // The use case hands out one array per block, so its body is serialized once per block, not once per request.
      cache: { kept: () => vaults.keptList(), body: vaultListBody },
      handler: () => vaults.list(),
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/vault/positions",
      tag: "vaults",
      summary: "Vault positions of the agent's server wallet",
      auth: agentAuth("read"),
      rateLimit: "agent",
      noStore: true,
      responses: {
        200: {
          description: "positions (vaults with shares or open redemption requests)",
          schema: vaultPositionsResponse,
        },
      },
      errors: [...ONCHAIN_READ],
      handler: async ({ ctx }) => {
        const agent = authenticatedAgent(ctx);
        const positions = await vaults.positionsOf(useCases.wallets.addressOf(agent));
        return { positions: positions.map(positionBody) };
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/vault/deposit",
      tag: "vaults",
      summary: "Deposit USDC from the agent's server wallet into a vault (approve + deposit)",
      description:
        "Deposits of one agent run one after another: each approval sets the vault's allowance to its own amount.",
      auth: agentAuth("vault.deposit"),
      rateLimit: "write",
      headers: idempotencyHeaders,
      body: depositBody,
      noStore: true,
      responses: { 200: { description: "both transactions mined", schema: depositResponse } },
      errors: [...ONCHAIN_WRITE],
      handler: async ({ body, headers, ctx }) => {
        const agent = authenticatedAgent(ctx);
        const key = headers[IDEMPOTENCY_HEADER];
        const scoped = scopedKeyOf(ctx);
        // USDC leaving by a scoped key counts against its daily limit, reserved before anything is sent.
        const reserve = scoped
          ? () => useCases.scopedKeys.reserveUsdc(scoped, body.amount_usdc, key && `vault.deposit:${key}`)
          : undefined;
        return idempotency.run(agent.agentId, "vault.deposit", key, body, async () =>
          depositBodyOf(await vaults.deposit(agent, body.vault_id, body.amount_usdc, key, reserve)),
        );
      },
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/positions",
      tag: "lookups",
      summary: "Vault positions of a wallet, with pending and claimable redemption requests",
      auth: null,
      rateLimit: "public",
      body: walletLookupBody,
      responses: { 200: { description: "positions", schema: positionsLookupResponse } },
      errors: [...ONCHAIN_READ],
      handler: async ({ body }) => {
        const positions = await vaults.positionsOf(body.wallet_address);
        return {
          wallet_address: body.wallet_address,
          positions: positions.map((p) => ({
            vault_id: p.vaultId,
            vault_address: p.vaultAddress,
            vault_name: p.vaultName,
            shares: formatDecimal(p.shares, p.shareDecimals),
            shares_raw: p.shares.toString(),
            value_usdc: usdcString(p.valueMicroUsdc),
            pending_redeem_shares: formatDecimal(p.pendingRedeemShares, p.shareDecimals),
            pending_redeem_ready_at: p.pendingRedeemReadyAt,
            claimable_redeem_shares: formatDecimal(p.claimableRedeemShares, p.shareDecimals),
            claimable_usdc: usdcString(p.claimableMicroUsdc),
            claimable_cancel_shares: formatDecimal(p.claimableCancelShares, p.shareDecimals),
          })),
          total: positions.length,
        };
      },
    }),
  ];
}
