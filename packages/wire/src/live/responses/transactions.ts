import { z } from "zod";
import { isoTimestamp, txHash } from "../schemas";

/** The transactions the service sent for an agent, from its transaction journal. */

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

export const transactionListResponse = z
  .object({ transactions: z.array(transactionSchema) })
  .meta({ id: "TransactionList" });
