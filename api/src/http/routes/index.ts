import type { Services } from "../../services";
import type { RouteDefinition } from "../route";
import { agentRoutes } from "./agents";
import { authRoutes } from "./auth";
import { healthRoutes } from "./health";
import { onchainRoutes } from "./onchain";
import { operatorRoutes } from "./operator";
import { vaultRoutes } from "./vaults";

/** Every API route of the service (docs routes are added by the app). Issue 6 appends its route files here. */
export function apiRoutes(services: Services): RouteDefinition[] {
  return [
    ...healthRoutes(services),
    ...authRoutes(services),
    ...agentRoutes(services),
    ...vaultRoutes(services),
    ...onchainRoutes(services),
    ...operatorRoutes(services),
  ];
}
