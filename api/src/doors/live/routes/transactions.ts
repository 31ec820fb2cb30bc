import { z } from "zod";
import type { TxJournalEntry } from "../../../tx";
import { agentAuth, authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { transactionListResponse, transactionSchema, txHashParams } from "../../../../../packages/wire/src/live";

/** Status of the transactions the service sent for the agent, from the transaction journal. */

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
      auth: agentAuth("read"),
      rateLimit: "agent",
      noStore: true,
      responses: {
        200: {
          description: "transactions",
          schema: transactionListResponse,
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
      auth: agentAuth("read"),
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
