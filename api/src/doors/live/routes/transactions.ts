import { z } from "zod";
import { PERMISSIONS } from "../../../domain/tiers";
import type { TxJournalEntry } from "../../../tx";
import { authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { isoTimestamp, txHash, txHashParams } from "../../../../../packages/wire/src/live";

/** Status of the transactions the service sent for the agent, from the transaction journal. */

const AGENT = { kind: "agent", minTier: PERMISSIONS.agentAccess } as const;

export const transactionSchema = z
  .object({
    tx_hash: txHash.nullable().meta({ description: "null while not signed yet" }),
    operation: z.string().meta({ description: "e.g. vault.deposit, vault.withdraw, vault.fulfill, faucet.drip" }),
    status: z.enum(["pending", "confirmed", "reverted", "failed"]).meta({
      description:
        "pending: not mined yet; confirmed: mined successfully; reverted: mined and reverted; failed: never mined (error says why)",
    }),
    from: z.string().meta({ description: "the signing wallet: the agent's, or the service's relayer" }),
    to: z.string(),
    nonce: z.number().int().nullable(),
    block_number: z.number().int().nullable(),
    gas_used: z.string().nullable(),
    error: z.string().nullable(),
    replaced_hashes: z.array(z.string()).meta({
      description: "earlier signatures of this transaction whose nonce another transaction took (never mined)",
    }),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: "Transaction" });

function statusOf(entry: TxJournalEntry): z.input<typeof transactionSchema>["status"] {
  if (entry.state === "mined") return entry.status === 1 ? "confirmed" : "reverted";
  return entry.state === "failed" ? "failed" : "pending";
}

export function transactionBody(entry: TxJournalEntry): z.input<typeof transactionSchema> {
  return {
    tx_hash: entry.hash,
    operation: entry.kind,
    status: statusOf(entry),
    from: entry.from,
    to: entry.to,
    nonce: entry.nonce,
    block_number: entry.blockNumber,
    gas_used: entry.gasUsed,
    error: entry.error?.message ?? null,
    replaced_hashes: [...entry.replacedHashes],
    created_at: entry.createdAt.toISOString(),
    updated_at: entry.updatedAt.toISOString(),
  };
}

export function transactionRoutes({ useCases }: RouteContext): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/agent/transactions",
      tag: "transactions",
      summary: "The latest 50 transactions the service sent for the agent, newest first",
      auth: AGENT,
      rateLimit: "agent",
      noStore: true,
      responses: {
        200: {
          description: "transactions",
          schema: z.object({ transactions: z.array(transactionSchema) }).meta({ id: "TransactionList" }),
        },
      },
      handler: async ({ ctx }) => {
        const entries = await useCases.transactions.recent(authenticatedAgent(ctx), 50);
        return { transactions: entries.map(transactionBody) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/transactions/:tx_hash",
      tag: "transactions",
      summary: "Status of one transaction the service sent for the agent (its wallet's, or the relayer's for it)",
      auth: AGENT,
      rateLimit: "agent",
      params: txHashParams,
      noStore: true,
      responses: { 200: { description: "the transaction", schema: transactionSchema } },
      errors: ["NOT_FOUND"],
      handler: async ({ params, ctx }) =>
        transactionBody(await useCases.transactions.byHash(authenticatedAgent(ctx), params.tx_hash)),
    }),
  ];
}
