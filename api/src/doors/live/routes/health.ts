import { z } from "zod";
import type { ServiceHealth } from "../../../usecases/health";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";

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

export function healthRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const healthBody = (health: ServiceHealth): z.input<typeof healthResponse> => ({
    status: health.status,
    version: health.version,
    chain_id: health.chainId,
    chain_name: health.chainName,
    rpc_connected: health.rpcConnected,
    store: health.store,
    ...(health.indexer
      ? {
          indexer: {
            role: health.indexer.role,
            indexed_block: health.indexer.indexedBlock,
            head_block: health.indexer.headBlock,
            lag_blocks: health.indexer.lagBlocks,
            halt: health.indexer.halt,
          },
        }
      : {}),
  });
  return [
    defineRoute({
      method: "get",
      path: "/health",
      tag: "service",
      summary: "Service health (probed at most once per second)",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "health (also when degraded)", schema: healthResponse } },
      // One snapshot per second, so its body is serialized once per second, not once per request.
      cache: { kept: () => useCases.health.keptSnapshot(), body: healthBody },
      handler: () => useCases.health.snapshot(),
    }),
    defineRoute({
      method: "get",
      path: "/ready",
      tag: "service",
      summary: "Readiness: whether this instance should get traffic now (liveness is /health)",
      auth: null,
      rateLimit: "public",
      responses: {
        200: { description: "ready", schema: readinessResponse },
        503: { description: "not ready: a check failed, or the instance is shutting down", schema: readinessResponse },
      },
      handler: async ({ ctx }) => {
        const report = await useCases.readiness.check();
        ctx.set("Cache-Control", "no-store");
        ctx.status = report.ready ? 200 : 503;
        ctx.body = report;
      },
    }),
  ];
}
