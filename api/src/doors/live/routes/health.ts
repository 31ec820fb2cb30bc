import { z } from "zod";
import type { ServiceHealth } from "../../../usecases/health";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { healthResponse, readinessResponse } from "../../../../../packages/wire/src/live";

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
