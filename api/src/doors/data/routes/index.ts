import type { RouteDefinition } from "../../route";
import { readRoutes } from "./reads";
import type { DataRouteDeps } from "./shared";
import { signedWriteRoutes, type SignedWriteDeps } from "./signedWrites";
import { vaultRoutes } from "./vaults";
import { indexerStatus } from "../../indexerStatus";

/**
 * The data API's routes under /v1 (data-api.md, Endpoints): the reads, each: validate, ask the query layer, shape; and
 * the signed writes, relayed to the NapRouter.
 */

export type { DataRouteDeps } from "./shared";

export function dataRoutes(deps: DataRouteDeps & SignedWriteDeps): RouteDefinition[] {
  return [
    ...vaultRoutes(deps),
    ...signedWriteRoutes(deps),
    ...readRoutes({ ...deps, status: () => indexerStatus(deps.queries, deps.chain, deps.indexer) }),
  ];
}
