import { z } from "zod";
import { UnavailableError } from "../../errors";
import type { VaultInfo } from "../../chain/vaults";
import type { Services } from "../../services";
import { SerializedJson } from "../serializedJson";
import { defineRoute, type RouteDefinition } from "../route";

export const vaultItem = z
  .object({
    address: z.string().meta({ description: "0x address" }),
    name: z.string(),
    asset: z.string().meta({ description: "asset symbol", example: "USDC" }),
    total_assets: z.string().meta({ description: "decimal, whole asset units", example: "1250.5" }),
    apy: z.number().meta({
      description:
        "percent per year: the rate at which reported profit is unlocking now, gross of fees (VaultLens apyBps / 100)",
    }),
    status: z.enum(["active", "paused"]),
  })
  .meta({ id: "Vault" });

export const vaultListResponse = z
  .object({ vaults: z.array(vaultItem), total: z.number().int() })
  .meta({ id: "VaultList" });

/** The wire shape of a vault list, as the spec gives it. */
function vaultListBody(vaults: VaultInfo[]): z.input<typeof vaultListResponse> {
  return {
    vaults: vaults.map((vault) => ({
      address: vault.address,
      name: vault.name,
      asset: vault.asset,
      total_assets: vault.totalAssets,
      apy: vault.apy,
      status: vault.status,
    })),
    total: vaults.length,
  };
}

export function vaultRoutes(services: Services): RouteDefinition[] {
  // The reader hands out one array per block, so its body is serialized once per block, not once per request.
  const listBody = new SerializedJson(vaultListBody);
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/vaults",
      tag: "vaults",
      summary: "Vaults of the deployment, read from the chain (cached per block)",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "vaults", schema: vaultListResponse } },
      handler: async ({ ctx }) => {
        const reader = services.chain.vaults;
        if (!reader) {
          throw new UnavailableError(
            services.chain.deployment
              ? "the deployment file lists no VaultLens: vaults are unavailable"
              : `no deployment file for chain ${services.chain.chainId}: vaults are unavailable`,
          );
        }
        let vaults;
        try {
          vaults = await reader.list();
        } catch (error) {
          services.logger.warn({ err: error }, "vault read failed");
          throw new UnavailableError("chain unreachable: cannot read the vaults");
        }
        return listBody.respond(ctx, vaults);
      },
    }),
  ];
}
