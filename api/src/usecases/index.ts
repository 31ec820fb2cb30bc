import { parseEther } from "ethers";
import type { ChainAccess } from "../chain";
import { RecoveryPool } from "../chain/recoveryPool";
import { verifyWalletSignature } from "../chain/signatures";
import { ServerWallets, type ServerWalletSettings } from "../chain/wallets";
import type { Config } from "../config";
import type { Logger } from "../logger";
import { TxEngine, type TxEngineOptions, type TxJournalStore } from "../tx";
import { AgentService, type AgentStore } from "./agents";
import { Campaign } from "./campaign";
import { AgentKeys } from "./custody/apiKeys";
import { Exits } from "./custody/exits";
import { OperatorChanges } from "./custody/operatorChange";
import { ScopedKeys, type ScopedKeyStore } from "./custody/scopedKeys";
import { SignedNonces } from "./custody/signedNonces";
import { Faucet } from "./faucet";
import { Governance } from "./governance";
import { Health, type StoreProbe } from "./health";
import { Idempotency, type IdempotencyStore } from "./idempotency";
import { Readiness } from "./readiness";
import { RegistrationService, type NonceStore, type SignatureVerifier } from "./registration";
import { Relayer } from "./relayer";
import { SignedWrites } from "./signedWrites";
import { Strategies } from "./strategies";
import { Transactions } from "./transactions";
import { Vaults } from "./vaults";
import { AgentWallets, WalletIndexes, type CounterStore } from "./wallet";
import { Withdrawals } from "./withdrawals";

/**
 * The use cases of the service, built once from their dependencies, for every door to call. Each use case returns
 * domain values; the doors shape them into bodies.
 */

/** NAP granted (minted by the relayer) to an agent's server wallet when it reaches tier established. */
export const DEFAULT_NAP_GRANT = parseEther("100");

/** Every store the use cases need: the interfaces they own, implemented by store/ (one factory, two adapters). */
export interface UseCaseStores extends StoreProbe {
  readonly agents: AgentStore;
  readonly nonces: NonceStore;
  readonly counters: CounterStore;
  readonly journal: TxJournalStore;
  readonly idempotency: IdempotencyStore;
  readonly scopedKeys: ScopedKeyStore;
}

export interface UseCaseDeps {
  config: Config;
  logger: Logger;
  stores: UseCaseStores;
  chain: ChainAccess;
  clock?: () => Date;
  /** Default: EIP-191 recovery (worker threads), then EIP-1271 on the service's chain. */
  signatureVerifier?: SignatureVerifier;
  /** Engine settings (tests poll faster). */
  engineOptions?: Partial<Omit<TxEngineOptions, "provider" | "rpc" | "journal" | "wallets" | "head">>;
  /** NAP minted at tier established (default 100 NAP). */
  napGrantWei?: bigint;
}

export interface UseCases {
  readonly agents: AgentService;
  readonly registration: RegistrationService;
  readonly wallets: AgentWallets;
  readonly vaults: Vaults;
  readonly withdrawals: Withdrawals;
  /** The way out of the server wallets: to the agent's operator address only. */
  readonly exits: Exits;
  /** Operator changes, signed by the current operator. */
  readonly operatorChanges: OperatorChanges;
  /** API key rotation (the agent's wallet signs) and revocation (the wallet or the operator signs). */
  readonly agentKeys: AgentKeys;
  /** Scoped keys for handing to an LLM: issued by the full key or the wallet, limited in operations and USDC a day. */
  readonly scopedKeys: ScopedKeys;
  readonly transactions: Transactions;
  readonly strategies: Strategies;
  readonly governance: Governance;
  readonly faucet: Faucet;
  readonly campaign: Campaign;
  readonly relayer: Relayer;
  /** Signed-message deposits and redemptions of self-custody wallets, relayed to the NapRouter (data API). */
  readonly signedWrites: SignedWrites;
  readonly idempotency: Idempotency;
  readonly health: Health;
  /** Whether this instance should get traffic now (/ready). */
  readonly readiness: Readiness;
  readonly engine: TxEngine;
  /** Wallet signatures as registration checks them (EIP-191, then EIP-1271); the data API's key issuance uses it. */
  readonly verifySignature: SignatureVerifier;
  /**
   * Start-up, before serving: the journal's and stores' indexes, the wallet index counter past the wallets used
   * onchain, the engine's reconcile (finishes what a previous process accepted), the relayer's screening sweep.
   */
  start(): Promise<void>;
  /** Waits for background relayer work started so far. */
  settled(): Promise<void>;
  /** Stops the engine's leases and the signature workers. */
  close(): Promise<void>;
}

export function createUseCases(deps: UseCaseDeps): UseCases {
  const { config, logger, stores, chain } = deps;
  const clock = deps.clock ?? (() => new Date());
  const serverWallets = new ServerWallets(serverWalletSettings(config));
  const recoveryPool = new RecoveryPool(deps.signatureVerifier ? 0 : config.signatureWorkers);
  const verifier: SignatureVerifier =
    deps.signatureVerifier ??
    ((wallet, message, signature) =>
      verifyWalletSignature(chain.provider, wallet, message, signature, recoveryPool.recover));

  const engine = new TxEngine({
    provider: chain.provider,
    rpc: chain.rpc,
    head: chain.head,
    journal: stores.journal,
    wallets: serverWallets,
    logger,
    ...deps.engineOptions,
  });
  const agents = new AgentService(stores.agents, clock);
  const walletIndexes = new WalletIndexes(stores.counters, chain, serverWallets, logger);
  const relayer = new Relayer(chain, engine, serverWallets, agents, stores.agents, logger, {
    screening: config.strategyScreening,
    napGrantWei: deps.napGrantWei ?? DEFAULT_NAP_GRANT,
  });
  const vaults = new Vaults(chain, engine, serverWallets, agents);
  const health = new Health(chain, stores);
  const signIn = { domain: config.serviceDomain, uri: config.publicUrl, chainId: chain.chainId };
  const signed = new SignedNonces(stores.nonces, signIn, verifier, clock);
  const idempotency = new Idempotency(stores.idempotency, clock);
  const signedWrites = new SignedWrites(chain, engine, idempotency, logger);

  return {
    agents,
    registration: new RegistrationService(
      stores,
      { domain: config.serviceDomain, uri: config.publicUrl, chainId: chain.chainId },
      verifier,
      () => walletIndexes.allocate(),
      clock,
    ),
    wallets: new AgentWallets(chain, serverWallets, vaults),
    vaults,
    withdrawals: new Withdrawals(chain, engine, serverWallets),
    exits: new Exits(chain, engine, serverWallets, agents),
    operatorChanges: new OperatorChanges(stores.agents, agents, signed, clock),
    agentKeys: new AgentKeys(stores.agents, agents, signed, clock),
    scopedKeys: new ScopedKeys(stores.scopedKeys, agents, signed, clock),
    transactions: new Transactions(stores.journal),
    strategies: new Strategies(chain, engine, serverWallets, agents, clock, (agentId, strategyId) =>
      relayer.screenLater(agentId, strategyId),
    ),
    governance: new Governance(chain, engine, serverWallets),
    faucet: new Faucet(chain, engine, serverWallets),
    campaign: new Campaign(chain, serverWallets),
    relayer,
    signedWrites,
    idempotency,
    health,
    readiness: new Readiness(health, { maxLagBlocks: config.readyMaxLagBlocks }),
    engine,
    verifySignature: verifier,
    async start() {
      // First: a wrong passphrase, an unreachable signer or public keys on a real chain stop the start here.
      await serverWallets.open(chain.chainId);
      if (serverWallets.configured) logger.info({ mode: serverWallets.mode }, "server wallets ready");
      await stores.journal.init();
      await stores.idempotency.init();
      if (!serverWallets.configured) {
        logger.warn("server wallets not configured (SERVER_WALLET_MNEMONIC): keyed onchain endpoints answer 503");
      } else {
        await walletIndexes.seedPastUsed().catch((error: unknown) => {
          // Registration still checks each new index against the chain; this only spares it a long walk.
          logger.warn({ err: error }, "agent wallet indexes: could not read the chain at start-up");
        });
      }
      const report = await engine.reconcile();
      if (report.open > 0) logger.info(report, "tx journal reconciled at start-up");
      await relayer.sweep();
    },
    settled: () => Promise.all([relayer.settled(), signedWrites.settled()]).then(() => undefined),
    async close() {
      await engine.close();
      await recoveryPool.close();
    },
  };
}

/** Which signer the settings choose (config.ts allows at most one); undefined: no server wallets. */
function serverWalletSettings(config: Config): ServerWalletSettings | undefined {
  if (config.remoteSignerUrl) return { mode: "remote", url: config.remoteSignerUrl };
  if (config.serverWalletKeystore) return { mode: "keystore", ...config.serverWalletKeystore };
  if (config.serverWalletMnemonic) return { mode: "mnemonic", mnemonic: config.serverWalletMnemonic };
  return undefined;
}
