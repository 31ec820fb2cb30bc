import { z } from "zod";

/** The service's liveness (/health) and readiness (/ready). */

export const healthResponse = z
  .object({
    status: z.enum(["ok", "degraded"]).meta({ description: "ok when the chain RPC and the store both answer" }),
    version: z.string(),
    chain_id: z.number().int(),
    chain_name: z.string(),
    rpc_connected: z.boolean(),
    store: z.object({ kind: z.enum(["mongodb", "memory"]), connected: z.boolean() }),
    indexer: z
      .object({
        role: z.enum(["writer", "reader", "halted"]),
        indexed_block: z.number().int().nullable(),
        head_block: z.number().int().nullable(),
        lag_blocks: z.number().int().nullable(),
        halt: z.string().nullable().meta({ description: "why the indexer stopped (a reorg deeper than its window)" }),
      })
      .optional()
      .meta({ description: "the data API's indexer (docs/data-api.md)" }),
  })
  .meta({ id: "Health" });

export const readinessResponse = z
  .object({
    ready: z.boolean().meta({ description: "true when every check passes: send this instance traffic" }),
    checks: z.object({
      serving: z.boolean().meta({ description: "false once a shutdown has begun" }),
      store: z.boolean(),
      rpc: z.boolean(),
      redis: z.boolean().optional().meta({ description: "present when REDIS_URL is set" }),
      indexer: z
        .boolean()
        .optional()
        .meta({ description: "the read model within READY_MAX_LAG_BLOCKS of the head and not halted" }),
    }),
  })
  .meta({ id: "Readiness" });
