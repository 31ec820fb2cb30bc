import { z } from "zod";
import type { Services } from "../../services";
import { SERVICE_VERSION } from "../../version";
import { TtlCache } from "../../ttlCache";
import { SerializedJson } from "../serializedJson";
import { defineRoute, type RouteDefinition } from "../route";

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

/** How long one health answer is reused: under load, /health costs no store ping or RPC call per request. */
export const HEALTH_TTL_MS = 1_000;

type Health = z.input<typeof healthResponse>;

export function healthRoutes(services: Services): RouteDefinition[] {
  const snapshots = new TtlCache<"health", Health>(HEALTH_TTL_MS);
  const healthBody = new SerializedJson((health: Health) => health);

  async function probe(): Promise<Health> {
    const [rpcConnected, store] = await Promise.all([services.chain.isConnected(), services.store.health()]);
    return {
      status: rpcConnected && store.connected ? "ok" : "degraded",
      version: SERVICE_VERSION,
      chain_id: services.chain.chainId,
      chain_name: services.chain.chainName,
      rpc_connected: rpcConnected,
      store,
    };
  }

  return [
    defineRoute({
      method: "get",
      path: "/health",
      tag: "service",
      summary: "Service health (probed at most once per second)",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "health (also when degraded)", schema: healthResponse } },
      handler: async ({ ctx }) => healthBody.respond(ctx, await snapshots.get("health", probe)),
    }),
  ];
}
