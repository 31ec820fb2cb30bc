import type { RouteContext, RouteDefinition } from "../route";
import { agentRoutes } from "./agents";
import { campaignRoutes } from "./campaign";
import { custodyRoutes } from "./custody";
import { governanceRoutes } from "./governance";
import { healthRoutes } from "./health";
import { operatorRoutes } from "./operator";
import { registrationRoutes } from "./registration";
import { strategyRoutes } from "./strategies";
import { transactionRoutes } from "./transactions";
import { vaultRoutes } from "./vaults";
import { walletRoutes } from "./wallet";
import { withdrawalRoutes } from "./withdrawals";

/** Every route of the live API (its docs routes are added by the door, doors/live/index.ts). */
export function apiRoutes(context: RouteContext): RouteDefinition[] {
  return [
    ...healthRoutes(context),
    ...registrationRoutes(context),
    ...agentRoutes(context),
    ...vaultRoutes(context),
    ...withdrawalRoutes(context),
    ...transactionRoutes(context),
    ...strategyRoutes(context),
    ...walletRoutes(context),
    ...custodyRoutes(context),
    ...governanceRoutes(context),
    ...campaignRoutes(context),
    ...operatorRoutes(context),
  ];
}
