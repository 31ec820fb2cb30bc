import type { ChainAccess } from "./chain";
import type { Config } from "./config";
import type { AgentService } from "./domain/agents";
import type { RegistrationService } from "./domain/registration";
import type { Logger } from "./logger";
import type { OnchainService } from "./ops/onchain";
import type { Store } from "./store/types";

/** What route factories receive. Issue 6 adds its services (tx engine, wallets) here. */
export interface Services {
  config: Config;
  logger: Logger;
  store: Store;
  chain: ChainAccess;
  registration: RegistrationService;
  agents: AgentService;
  /** Issue 6: server wallets, transaction engine, contracts, idempotency (api/src/ops). */
  onchain: OnchainService;
}
