import type { RouteDefinition } from "../../route";
import { readRoutes } from "./reads";
import type { DataRouteDeps } from "./shared";
import { vaultRoutes } from "./vaults";
import { indexerStatus } from "../../indexerStatus";

/** The data API's read routes under /v1 (data-api.md, Endpoints), each: validate, ask the query layer, shape. */

export type { DataRouteDeps } from "./shared";

export function dataRoutes(deps: DataRouteDeps): RouteDefinition[] {
  return [
    ...vaultRoutes(deps),
    ...readRoutes({ ...deps, status: () => indexerStatus(deps.queries, deps.chain, deps.indexer) }),
  ];
}
