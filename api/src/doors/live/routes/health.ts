import { z } from "zod";
import type { ServiceHealth } from "../../../usecases/health";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { SerializedJson } from "../serializedJson";

export const healthResponse = z
  .object({
    status: z.enum(["ok", "degraded"]).meta({ description: "ok when the chain RPC and the store both answer" }),
    version: z.string(),
    chain_id: z.number().int(),
    chain_name: z.string(),
    rpc_connected: z.boolean(),
    store: z.object({ kind: z.enum(["mongodb", "memory"]), connected: z.boolean() }),
  })
  .meta({ id: "Health" });

export function healthRoutes({ useCases }: RouteContext): RouteDefinition[] {
  // One snapshot per second, so its body is serialized once per second, not once per request.
  const healthBody = new SerializedJson((health: ServiceHealth): z.input<typeof healthResponse> => ({
    status: health.status,
    version: health.version,
    chain_id: health.chainId,
    chain_name: health.chainName,
    rpc_connected: health.rpcConnected,
    store: health.store,
  }));
  return [
    defineRoute({
      method: "get",
      path: "/health",
      tag: "service",
      summary: "Service health (probed at most once per second)",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "health (also when degraded)", schema: healthResponse } },
      handler: async ({ ctx }) => healthBody.respond(ctx, await useCases.health.snapshot()),
    }),
  ];
}
