import {
  AbiCoder,
  formatEther,
  formatUnits,
  getAddress,
  keccak256,
  parseEther,
  parseUnits,
  type Log,
  type Provider,
  type TransactionReceipt,
} from "ethers";
import type { ChainAccess } from "../chain";
import { ServerWallets, type WalletRef } from "../chain/wallets";
import { trimDecimal } from "../chain/vaults";
import type { Config } from "../config";
import type { AgentService } from "../domain/agents";
import { TIERS, type Tier, type VaultId } from "../domain/model";
import {
  SHADOW_STATUS,
  SWEEP_MAX_AGENTS,
  SWEEP_MAX_STRATEGIES,
  passedScreening,
  screenStrategy,
  screeningIntentKey,
  type ScreeningMode,
} from "../domain/screening";
import { tierAtLeast } from "../domain/tiers";
import { UnavailableError, ValidationError } from "../errors";
import type { Logger } from "../logger";
import { MemoryTxJournal } from "../store/memory/txJournal";
import { MongoTxJournal } from "../store/mongo/txJournal";
import type { TxJournalStore } from "../store/txJournal";
import type { AgentRecord, Store, StrategyFact } from "../store/types";
import { ContractRevertError, TxEngine, intentKeyFor, stepKey, type SendResult, type TxEngineOptions } from "../tx";
import { isNetworkError } from "../tx/providerErrors";
import { SystemContracts } from "./contracts";
import { Idempotency, MemoryIdempotencyStore, MongoIdempotencyStore, type IdempotencyStore } from "./idempotency";

/**
 * The onchain operations of the agent API (issue 6): every write goes through the transaction engine with the
 * agent's server wallet (m/44'/60'/1'/0/i, i = the agent's stored index) or the relayer (m/44'/60'/0'/0/0);
 * every read goes to the contracts of the deployment file. Routes (http/routes/onchain.ts) validate and shape;
 * this class decides and talks to the chain.
 */

export const USDC_DECIMALS = 6;
/** NAP granted (minted by the relayer) to an agent's server wallet when it reaches tier established. */
export const DEFAULT_NAP_GRANT = parseEther("100");
/** `has_gas` is true when the wallet can pay this much gas at the current max fee (a deposit is two txs ~ 130k). */
export const HAS_GAS_UNITS = 300_000n;
export const CAMPAIGN_ID = "nap-galaxy-season-1";

export const STRATEGY_STATUSES = [
  "shadow",
  "guardian_review",
  "paper_trading",
  "pending_oracle_approval",
  "live",
  "paused",
  "deprecated",
] as const;

export const PROPOSAL_STATES = [
  "pending",
  "active",
  "canceled",
  "defeated",
  "succeeded",
  "queued",
  "expired",
  "executed",
] as const;

/** Badge milestones in the contract's enum order (AgentBadges.Milestone). */
export const MILESTONES = ["registered", "established", "core_contributor"] as const satisfies readonly Tier[];

export interface RiskParams {
  max_position_size_percent: number;
  max_leverage: number;
  stop_loss_percent: number;
  slippage_tolerance_bps: number;
  correlation_threshold: number;
  velocity_limit: number;
  flash_loans_enabled: boolean;
}

export interface StrategyInput {
  name: string;
  description: string;
  dna_string?: string;
  risk: RiskParams;
}

export interface OnchainDeps {
  config: Config;
  logger: Logger;
  store: Store;
  chain: ChainAccess;
  agents: AgentService;
  clock: () => Date;
  /** Default: Mongo journal on the store's database, or in memory. */
  journal?: TxJournalStore;
  idempotencyStore?: IdempotencyStore;
  engineOptions?: Partial<TxEngineOptions>;
  /** NAP minted at tier established (default 100 NAP). */
  napGrantWei?: bigint;
}

/**
 * Strategy DNA when the agent gives none: keccak256(abi.encode(string name, address agentWallet, uint256 unixSeconds)),
 * the request's server time in Unix seconds. Deterministic for a given name, wallet and second.
 */
export function deriveDna(name: string, wallet: string, unixSeconds: number): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(["string", "address", "uint256"], [name, wallet, unixSeconds]));
}

function decimal(value: bigint, decimals: number): string {
  return trimDecimal(formatUnits(value, decimals));
}

/** Reads that fail because the RPC is down become 503s; anything else is re-thrown. */
async function read<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isNetworkError(error)) throw new UnavailableError(`chain unreachable: cannot read ${what}; try again later`);
    throw error;
  }
}

function eventsOf(receipt: TransactionReceipt, parse: (log: Log) => { name: string; args: unknown } | null) {
  const out: { name: string; args: unknown }[] = [];
  for (const log of receipt.logs) {
    try {
      const parsed = parse(log);
      if (parsed) out.push(parsed);
    } catch {
      // a log of another contract
    }
  }
  return out;
}

/** Values computed once per (block, key); entries of older blocks are dropped when a newer block is asked for. */
class PerBlock<V> {
  #block = -1;
  readonly #entries = new Map<string, Promise<V>>();

  get(block: number, key: string, compute: () => Promise<V>): Promise<V> {
    if (block > this.#block) {
      this.#block = block;
      this.#entries.clear();
    }
    if (block < this.#block) return compute();
    let value = this.#entries.get(key);
    if (!value) {
      value = compute();
      this.#entries.set(key, value);
      value.catch(() => this.#entries.delete(key));
    }
    return value;
  }
}

export class OnchainService {
  readonly wallets: ServerWallets;
  readonly engine: TxEngine;
  readonly journal: TxJournalStore;
  readonly contracts: SystemContracts;
  readonly idempotency: Idempotency;
  readonly #idempotencyStore: IdempotencyStore;
  readonly #provider: Provider;
  readonly #log: Logger;
  readonly #agents: AgentService;
  readonly #clock: () => Date;
  readonly #chain: ChainAccess;
  readonly #napGrant: bigint;
  readonly #store: Store;
  readonly #screening: ScreeningMode;
  readonly #shareDecimals = new Map<string, number>();
  /** Wallet and position reads, per block and address (a block's state never changes). */
  readonly #walletReads = new PerBlock<Awaited<ReturnType<OnchainService["readWallet"]>>>();
  readonly #positionReads = new PerBlock<Awaited<ReturnType<OnchainService["readPositions"]>>>();
  #blockInflight: Promise<number> | null = null;
  /** Highest block of a receipt this process saw: reads never go below it (read-your-writes). */
  #seenBlock = 0;
  #fees: { at: number; maxFee: bigint } | null = null;
  /** Background relayer work (badges, NAP grants) still running, so tests and shutdown can wait for it. */
  readonly #background = new Set<Promise<unknown>>();

  constructor(deps: OnchainDeps) {
    this.#provider = deps.chain.provider;
    this.#chain = deps.chain;
    this.#log = deps.logger;
    this.#agents = deps.agents;
    this.#clock = deps.clock;
    this.#napGrant = deps.napGrantWei ?? DEFAULT_NAP_GRANT;
    this.#store = deps.store;
    this.#screening = deps.config.strategyScreening;
    this.wallets = new ServerWallets(deps.config.serverWalletMnemonic);
    const mongoDb = (deps.store as { db?: import("mongodb").Db }).db;
    this.journal =
      deps.journal ?? (deps.store.kind === "mongodb" && mongoDb ? new MongoTxJournal(mongoDb) : new MemoryTxJournal());
    this.#idempotencyStore =
      deps.idempotencyStore ??
      (deps.store.kind === "mongodb" && mongoDb ? new MongoIdempotencyStore(mongoDb) : new MemoryIdempotencyStore());
    this.idempotency = new Idempotency(this.#idempotencyStore, deps.clock);
    this.engine = new TxEngine({
      provider: deps.chain.provider,
      journal: this.journal,
      wallets: this.wallets,
      logger: deps.logger,
      ...deps.engineOptions,
    });
    this.contracts = new SystemContracts(deps.chain.provider, deps.chain.deployment, deps.chain.chainId);
    deps.agents.onTierChange((agent, previous) => this.#onTierChange(agent, previous));
  }

  /** Start-up, before listening: indexes, then the engine finishes what the journal holds open. */
  async start(): Promise<void> {
    await this.journal.init();
    await this.#idempotencyStore.init();
    const report = await this.engine.reconcile();
    if (report.open > 0) this.#log.info(report, "tx journal reconciled at start-up");
    await this.#sweepScreening();
  }

  async close(): Promise<void> {
    await this.engine.close();
  }

  /** Waits for background relayer work (badge mints, NAP grants) started so far. */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  walletRef(agent: AgentRecord): WalletRef {
    return { kind: "agent", index: agent.agentIndex };
  }

  /** The agent's server wallet address; 503 without SERVER_WALLET_MNEMONIC. */
  agentAddress(agent: AgentRecord): string {
    return this.wallets.agentAddress(agent.agentIndex);
  }

  // ---------------------------------------------------------------- wallet and positions

  async walletStatus(agent: AgentRecord) {
    const base = { network: this.#chain.chainName, chain_id: this.#chain.chainId };
    if (!this.wallets.configured) {
      return {
        configured: false as const,
        agent_address: null,
        ...base,
        message: "server wallets are not configured on this server (SERVER_WALLET_MNEMONIC)",
      };
    }
    const address = this.agentAddress(agent);
    const block = await this.#readBlock();
    return this.#walletReads.get(block, address, () => this.readWallet(address, block));
  }

  /** One wallet status at one block (cached by walletStatus). */
  async readWallet(address: string, block: number) {
    const base = { network: this.#chain.chainName, chain_id: this.#chain.chainId };
    const { usdc, token } = this.contracts;
    const [eth, maxFee, usdcRaw, napRaw, votes, positions] = await read("the wallet", () =>
      Promise.all([
        this.#provider.getBalance(address, block),
        this.#maxFee(),
        usdc.balanceOf(address, { blockTag: block }),
        token.balanceOf(address, { blockTag: block }),
        token.getVotes(address, { blockTag: block }),
        this.#positionsAt(address, block),
      ]),
    );
    return {
      configured: true as const,
      agent_address: address,
      ...base,
      eth_balance: formatEther(eth),
      eth_balance_wei: eth.toString(),
      has_gas: eth > 0n && eth >= HAS_GAS_UNITS * maxFee,
      usdc_balance: Number(formatUnits(usdcRaw, USDC_DECIMALS)),
      usdc_balance_raw: usdcRaw.toString(),
      nap_balance: decimal(napRaw, 18),
      nap_balance_raw: napRaw.toString(),
      voting_power: decimal(votes, 18),
      voting_power_raw: votes.toString(),
      positions: positions.map((p) => ({
        vault_address: p.vault_address,
        vault_name: p.vault_name,
        shares: p.shares,
        value_usdc: p.value_usdc,
      })),
    };
  }

  async #shareDecimalsOf(vaults: string[]): Promise<number[]> {
    const missing = vaults.filter((v) => !this.#shareDecimals.has(v));
    if (missing.length > 0) {
      const views = await this.contracts.lens.vaults(missing);
      views.forEach((view, i) => this.#shareDecimals.set(missing[i], Number(view.shareDecimals)));
    }
    return vaults.map((v) => this.#shareDecimals.get(v) ?? 6);
  }

  /**
   * Positions of any wallet in the six vaults (VaultLens.positions), only vaults where the wallet holds shares or has
   * a pending or claimable redemption.
   */
  async positionsOf(wallet: string) {
    if (this.contracts.vaultList().length === 0) return [];
    return this.#positionsAt(wallet, await this.#readBlock());
  }

  #positionsAt(wallet: string, block: number) {
    return this.#positionReads.get(block, wallet.toLowerCase(), () => this.readPositions(wallet, block));
  }

  /** Positions at one block (cached per block and wallet). */
  async readPositions(wallet: string, block: number) {
    const vaults = this.contracts.vaultList();
    if (vaults.length === 0) return [];
    const addresses = vaults.map((v) => v.address);
    const [views, decimals] = await read("vault positions", () =>
      Promise.all([
        this.contracts.lens.positions(addresses, wallet, { blockTag: block }),
        this.#shareDecimalsOf(addresses),
      ]),
    );
    // A copy: ethers' Result does not support flatMap (its species constructor is not an Array's).
    return Array.from(views).flatMap((view, i) => {
      if (view.shares === 0n && view.pendingRedeemShares === 0n && view.claimableRedeemShares === 0n) return [];
      return [
        {
          vault_id: vaults[i].id,
          vault_address: vaults[i].address,
          vault_name: view.name,
          shares: decimal(view.shares, decimals[i]),
          shares_raw: view.shares.toString(),
          value_usdc: decimal(view.assets, USDC_DECIMALS),
          pending_redeem_shares: decimal(view.pendingRedeemShares, decimals[i]),
          claimable_redeem_shares: decimal(view.claimableRedeemShares, decimals[i]),
          claimable_usdc: decimal(view.claimableAssets, USDC_DECIMALS),
        },
      ];
    });
  }

  /**
   * The block reads are made at: the latest block (concurrent requests share one eth_blockNumber), never below the
   * block of a receipt this process already returned, so that an agent reads its own writes.
   */
  async #readBlock(): Promise<number> {
    this.#blockInflight ??= read("the block number", () => this.#provider.getBlockNumber()).finally(() => {
      this.#blockInflight = null;
    });
    return Math.max(await this.#blockInflight, this.#seenBlock);
  }

  #saw(...results: SendResult[]): void {
    for (const result of results) this.#seenBlock = Math.max(this.#seenBlock, result.receipt.blockNumber);
  }

  /** Current max fee per gas, shared for 2 s (only `has_gas` uses it). */
  async #maxFee(): Promise<bigint> {
    if (this.#fees && Date.now() - this.#fees.at < 2_000) return this.#fees.maxFee;
    const fees = await this.#provider.getFeeData();
    const maxFee = fees.maxFeePerGas ?? fees.gasPrice ?? 0n;
    this.#fees = { at: Date.now(), maxFee };
    return maxFee;
  }

  // ---------------------------------------------------------------- deposit

  async deposit(agent: AgentRecord, vaultId: VaultId, amountUsdc: number, idempotencyKey: string | undefined) {
    const address = this.agentAddress(agent);
    const text = String(amountUsdc);
    if (!/^\d+(\.\d{1,6})?$/.test(text)) {
      throw new ValidationError("amount_usdc: must be a number of USDC with at most 6 decimal places");
    }
    const amount = parseUnits(text, USDC_DECIMALS);
    if (amount === 0n) throw new ValidationError("amount_usdc: must be greater than 0");
    const vault = this.contracts.vault(vaultId);
    const vaultAddress = await vault.getAddress();
    const usdc = this.contracts.usdc;
    const usdcAddress = await usdc.getAddress();
    const intentKey = intentKeyFor(agent.agentId, "vault.deposit", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(stepKey(intentKey, "approve")) : null;
    if (!known) {
      const balance = await read("the USDC balance", () => usdc.balanceOf(address));
      if (balance < amount) {
        throw new ValidationError(
          `amount_usdc: the agent wallet ${address} holds ${decimal(balance, USDC_DECIMALS)} USDC ` +
            `(raw ${balance}), less than ${text}; request test USDC with POST /api/v1/agent/faucet`,
        );
      }
    }
    const wallet = this.walletRef(agent);
    const meta = { vault_id: vaultId, amount_raw: amount.toString() };
    const [approve, deposit] = await this.engine.sendSteps(intentKey, [
      {
        step: "approve",
        wallet,
        to: usdcAddress,
        data: usdc.interface.encodeFunctionData("approve", [vaultAddress, amount]),
        kind: "vault.deposit.approve",
        requestor: agent.agentId,
        meta,
      },
      {
        step: "deposit",
        wallet,
        to: vaultAddress,
        data: vault.interface.encodeFunctionData("deposit", [amount, address]),
        kind: "vault.deposit",
        requestor: agent.agentId,
        meta,
      },
    ]);
    this.#saw(approve, deposit);
    // Counted once per transaction, so a retry answered from the journal (also after a crash) may report it again.
    await this.#agents.recordDeposit(agent.agentId, deposit.hash, amount);
    const [name, shares] = await read("the vault", () =>
      Promise.all([vault.name(), vault.balanceOf(address, { blockTag: deposit.receipt.blockNumber })]),
    );
    return {
      success: true as const,
      agent_address: address,
      vault: name,
      vault_id: vaultId,
      vault_address: vaultAddress,
      amount_usdc: amountUsdc,
      approve_tx: approve.hash,
      deposit_tx: deposit.hash,
      status: "confirmed",
      block_number: deposit.receipt.blockNumber,
      shares_balance: shares.toString(),
    };
  }

  // ---------------------------------------------------------------- strategies

  async submitStrategy(agent: AgentRecord, input: StrategyInput, idempotencyKey: string | undefined) {
    const address = this.agentAddress(agent);
    const registry = this.contracts.registry;
    const registryAddress = await registry.getAddress();
    const dna = input.dna_string
      ? `0x${input.dna_string.replace(/^0x/i, "").toLowerCase()}`
      : deriveDna(input.name, address, Math.floor(this.#clock().getTime() / 1000));
    const r = input.risk;
    const data = registry.interface.encodeFunctionData("submit", [
      input.name,
      input.description,
      dna,
      {
        maxPositionSizePercent: r.max_position_size_percent,
        maxLeverage: r.max_leverage,
        stopLossPercent: r.stop_loss_percent,
        slippageToleranceBps: r.slippage_tolerance_bps,
        correlationThreshold: r.correlation_threshold,
        velocityLimit: r.velocity_limit,
        flashLoansEnabled: r.flash_loans_enabled,
      },
    ]);
    const result = await this.engine.send({
      wallet: this.walletRef(agent),
      to: registryAddress,
      data,
      kind: "strategy.submit",
      intentKey: intentKeyFor(agent.agentId, "strategy.submit", idempotencyKey),
      requestor: agent.agentId,
      meta: { name: input.name },
    });
    // Everything in the answer comes from the mined event, so a retry that joined an earlier intent (whose DNA was
    // derived at another second) answers with what is onchain.
    const event = eventsOf(result.receipt, (log) =>
      log.address.toLowerCase() === registryAddress.toLowerCase() ? registry.interface.parseLog(log) : null,
    ).find((e) => e.name === "StrategySubmitted");
    if (!event) throw new Error(`strategy submission ${result.hash} mined without a StrategySubmitted event`);
    const args = event.args as unknown as {
      strategyId: string;
      dna: string;
      name: string;
      params: {
        maxPositionSizePercent: bigint;
        maxLeverage: bigint;
        stopLossPercent: bigint;
        slippageToleranceBps: bigint;
        correlationThreshold: bigint;
        velocityLimit: bigint;
        flashLoansEnabled: boolean;
      };
    };
    this.#saw(result);
    // Counted once per strategy, so a retry or a replay through the journal may report it again.
    await this.#agents.recordStrategyFacts(agent.agentId, [{ kind: "submitted", strategyId: args.strategyId }]);
    // Screening runs after the answer, in the background; its intent key makes it happen once per strategy.
    if (this.#screeningEnabled()) {
      this.#background_(`screening ${args.strategyId}`, () => this.screen(agent.agentId, args.strategyId));
    }
    return {
      success: true as const,
      agent_address: address,
      strategy_name: args.name,
      strategy_id: args.strategyId,
      dna_string: args.dna,
      risk_params: {
        max_position_size_percent: Number(args.params.maxPositionSizePercent),
        max_leverage: Number(args.params.maxLeverage),
        stop_loss_percent: Number(args.params.stopLossPercent),
        slippage_tolerance_bps: Number(args.params.slippageToleranceBps),
        correlation_threshold: Number(args.params.correlationThreshold),
        velocity_limit: Number(args.params.velocityLimit),
        flash_loans_enabled: args.params.flashLoansEnabled,
      },
      tx_hash: result.hash,
      status: "confirmed",
      strategy_status: "shadow" as const,
      block_number: result.receipt.blockNumber,
      gas_used: Number(result.receipt.gasUsed),
    };
  }

  /** Every strategy of the agent's server wallet, enumerated from the registry 100 at a time. */
  async listStrategies(agent: AgentRecord) {
    const address = this.agentAddress(agent);
    const registry = this.contracts.registry;
    const registryAddress = await registry.getAddress();
    const views = await read("the strategy registry", async () => {
      const block = await this.#provider.getBlockNumber();
      const count = Number(await registry.strategyCountOf(address, { blockTag: block }));
      const pages = [];
      for (let offset = 0; offset < count; offset += 100) {
        pages.push(registry.strategiesOf(address, offset, 100, { blockTag: block }));
      }
      return (await Promise.all(pages)).flat();
    });
    await this.#syncCounters(agent, views);
    return {
      agent_address: address,
      strategies: views.map((v) => ({
        strategy_id: v.id,
        name: v.name,
        description: v.description,
        status: STRATEGY_STATUSES[Number(v.status)],
        created_at: Number(v.createdAt),
        last_status_change: Number(v.lastStatusChange),
        strategy_contract: registryAddress,
      })),
      total_count: views.length,
    };
  }

  /**
   * The chain is the record of what was submitted and screened: when it shows more than the agent's counters (a
   * submission finished by reconcile after a crash, strategies moved past screening by the screener), the facts of
   * every listed strategy are recorded. Each fact counts once, whichever process or path reported it first, so this
   * catch-up cannot double-count a submission or a screening recorded at the same moment; it may promote the agent
   * (tiers.ts).
   */
  async #syncCounters(agent: AgentRecord, views: ReadonlyArray<{ id: string; status: bigint }>): Promise<void> {
    const passed = views.filter((view) => passedScreening(Number(view.status)));
    if (views.length <= agent.strategiesSubmitted && passed.length <= agent.strategiesPassedScreening) return;
    const facts: StrategyFact[] = [
      ...views.map((view) => ({ kind: "submitted" as const, strategyId: view.id })),
      ...passed.map((view) => ({ kind: "passed_screening" as const, strategyId: view.id })),
    ];
    await this.#agents.recordStrategyFacts(agent.agentId, facts, { recount: true });
  }

  // ---------------------------------------------------------------- faucet

  async faucet(agent: AgentRecord, idempotencyKey: string | undefined) {
    const address = this.agentAddress(agent);
    const faucet = this.contracts.faucet;
    const faucetAddress = await faucet.getAddress();
    const intentKey = intentKeyFor(agent.agentId, "faucet.drip", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(intentKey) : null;
    if (!known) {
      const [next, block] = await read("the faucet", () =>
        Promise.all([faucet.nextEligibleAt(address), this.#provider.getBlock("latest")]),
      );
      const now = BigInt(block?.timestamp ?? Math.floor(Date.now() / 1000));
      if (next > now) return this.#cooldown(address, next, now);
    }
    let result: SendResult;
    try {
      result = await this.engine.send({
        wallet: { kind: "relayer" },
        to: faucetAddress,
        data: faucet.interface.encodeFunctionData("drip", [address]),
        kind: "faucet.drip",
        intentKey,
        requestor: agent.agentId,
        meta: { recipient: address },
      });
    } catch (error) {
      const revert = error instanceof ContractRevertError ? error.revert : null;
      if (revert?.name === "FaucetCooldown") {
        const block = await this.#provider.getBlock("latest");
        return this.#cooldown(address, BigInt(String(revert.args[1])), BigInt(block?.timestamp ?? 0));
      }
      throw error;
    }
    this.#saw(result);
    const event = eventsOf(result.receipt, (log) =>
      log.address.toLowerCase() === faucetAddress.toLowerCase() ? faucet.interface.parseLog(log) : null,
    ).find((e) => e.name === "Dripped");
    const args = event?.args as unknown as { ethAmount: bigint; usdcAmount: bigint; nextEligibleAt: bigint };
    return {
      kind: "dripped" as const,
      body: {
        success: true as const,
        agent_address: address,
        tx_hash: result.hash,
        status: "confirmed",
        drip_amount_wei: args.ethAmount.toString(),
        drip_amount_eth: formatEther(args.ethAmount),
        drip_amount_usdc: Number(formatUnits(args.usdcAmount, USDC_DECIMALS)),
        drip_amount_usdc_raw: args.usdcAmount.toString(),
        next_eligible_timestamp: Number(args.nextEligibleAt),
        block_number: result.receipt.blockNumber,
      },
    };
  }

  #cooldown(address: string, next: bigint, now: bigint) {
    const remaining = Number(next - now);
    return {
      kind: "cooldown" as const,
      retryAfterSeconds: remaining,
      body: {
        success: false as const,
        agent_address: address,
        error: `faucet cooldown: this wallet can receive again at ${new Date(Number(next) * 1000).toISOString()} (in ${remaining} s)`,
        next_eligible_timestamp: Number(next),
        seconds_remaining: remaining,
      },
    };
  }

  // ---------------------------------------------------------------- governance

  #proposalView(view: {
    id: bigint;
    proposer: string;
    description: string;
    state: bigint;
    againstVotes: bigint;
    forVotes: bigint;
    abstainVotes: bigint;
    voteStart: bigint;
    voteEnd: bigint;
    eta: bigint;
    quorum: bigint;
    targets: string[];
  }) {
    return {
      proposal_id: view.id.toString(),
      proposer: view.proposer,
      description: view.description,
      state: PROPOSAL_STATES[Number(view.state)],
      votes_for: decimal(view.forVotes, 18),
      votes_against: decimal(view.againstVotes, 18),
      votes_abstain: decimal(view.abstainVotes, 18),
      quorum: decimal(view.quorum, 18),
      vote_start: Number(view.voteStart),
      vote_end: Number(view.voteEnd),
      eta: Number(view.eta),
      targets: [...view.targets],
    };
  }

  /** Proposals open for voting or about to open (state pending or active), oldest first. */
  async proposals() {
    const governor = this.contracts.governor;
    const views = await read("the governor", async () => {
      const block = await this.#provider.getBlockNumber();
      const count = Number(await governor.proposalCount({ blockTag: block }));
      const pages = [];
      for (let offset = 0; offset < count; offset += 50)
        pages.push(governor.proposalsPage(offset, 50, { blockTag: block }));
      return (await Promise.all(pages)).flat();
    });
    const open = views.filter((v) => Number(v.state) <= 1).map((v) => this.#proposalView(v));
    return { proposals: open, total: open.length };
  }

  async vote(
    agent: AgentRecord,
    proposalId: bigint,
    support: 0 | 1 | 2,
    reason: string,
    idempotencyKey: string | undefined,
  ) {
    const address = this.agentAddress(agent);
    const governor = this.contracts.governor;
    const governorAddress = await governor.getAddress();
    const intentKey = intentKeyFor(agent.agentId, "governance.vote", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(intentKey) : null;
    if (!known) {
      const count = await read("the governor", () => governor.proposalCount());
      if (proposalId < 1n || proposalId > count) throw new ValidationError(`proposal_id: no proposal ${proposalId}`);
      const view = await read("the governor", () => governor.getProposal(proposalId));
      const state = PROPOSAL_STATES[Number(view.state)];
      if (state !== "active") {
        throw new ValidationError(
          `proposal_id: proposal ${proposalId} is ${state}, not active; votes are accepted only while it is active` +
            (state === "pending"
              ? ` (voting opens after ${new Date(Number(view.voteStart) * 1000).toISOString()})`
              : ""),
        );
      }
      const [voted, weight] = await read("the governor", () =>
        Promise.all([governor.hasVoted(proposalId, address), governor.getVotes(address, view.voteStart)]),
      );
      if (voted)
        throw new ValidationError(`proposal_id: this agent (${address}) already voted on proposal ${proposalId}`);
      if (weight === 0n) {
        throw new ValidationError(
          `proposal_id: the agent wallet ${address} had no voting power (NAP) at the snapshot of proposal ` +
            `${proposalId}; NAP is granted at tier established and counts for proposals created after the grant`,
        );
      }
    }
    const result = await this.engine.send({
      wallet: this.walletRef(agent),
      to: governorAddress,
      data: governor.interface.encodeFunctionData("castVoteWithReason", [proposalId, support, reason]),
      kind: "governance.vote",
      intentKey,
      requestor: agent.agentId,
      meta: { proposal_id: proposalId.toString(), support },
    });
    this.#saw(result);
    const event = eventsOf(result.receipt, (log) =>
      log.address.toLowerCase() === governorAddress.toLowerCase() ? governor.interface.parseLog(log) : null,
    ).find((e) => e.name === "VoteCast");
    const weight = (event?.args as unknown as { weight: bigint } | undefined)?.weight ?? 0n;
    return {
      success: true as const,
      agent_address: address,
      proposal_id: proposalId.toString(),
      support,
      support_label: (["against", "for", "abstain"] as const)[support],
      reason,
      weight: decimal(weight, 18),
      weight_raw: weight.toString(),
      tx_hash: result.hash,
      status: "confirmed",
      block_number: result.receipt.blockNumber,
      gas_used: Number(result.receipt.gasUsed),
    };
  }

  // ---------------------------------------------------------------- campaign, NFTs

  async eligibility(agent: AgentRecord) {
    const address = this.agentAddress(agent);
    const strategies = Number(
      await read("the strategy registry", () => this.contracts.registry.strategyCountOf(address)),
    );
    const deposits = BigInt(agent.depositsMicroUsdc);
    const criteria = [
      {
        id: "registered",
        description: "The agent registered with a wallet signature",
        met: true,
        value: agent.createdAt.toISOString(),
      },
      {
        id: "tier_registered",
        description: "The agent's tier is registered or higher",
        met: tierAtLeast(agent.tier, "registered"),
        value: agent.tier,
      },
      {
        id: "strategy_submitted",
        description: "At least 1 strategy submitted onchain from the agent's wallet",
        met: strategies >= 1,
        value: strategies,
      },
      {
        id: "vault_deposit",
        description: "At least 1 USDC deposited into a NAP vault through the service",
        met: deposits >= 1_000_000n,
        value: Number(formatUnits(deposits, USDC_DECIMALS)),
      },
    ];
    return {
      campaign_id: CAMPAIGN_ID,
      agent_address: address,
      eligible: criteria.every((c) => c.met),
      criteria,
    };
  }

  /** ERC-721 holdings of a wallet among the system's collections (AgentBadges). */
  async nftsOf(wallet: string) {
    const badges = this.contracts.badges;
    const contract = await badges.getAddress();
    // ERC-721 balance queries revert for the zero address; nothing is ever minted to it.
    if (BigInt(wallet) === 0n) return { wallet_address: getAddress(wallet), nfts: [], total: 0 };
    const owned = await read("the badges", () => badges.badgesOf(wallet));
    const nfts = await read("the badges", () =>
      Promise.all(
        owned.map(async (badge) => {
          const uri = await badges.tokenURI(badge.tokenId);
          let name = "";
          const prefix = "data:application/json;base64,";
          if (uri.startsWith(prefix)) {
            try {
              name = String(
                (JSON.parse(Buffer.from(uri.slice(prefix.length), "base64").toString("utf8")) as { name?: string })
                  .name ?? "",
              );
            } catch {
              name = "";
            }
          }
          return {
            collection: "AgentBadges",
            contract_address: contract,
            token_id: badge.tokenId.toString(),
            milestone: MILESTONES[Number(badge.milestone)],
            name,
            minted_at: Number(badge.mintedAt),
            token_uri: uri,
          };
        }),
      ),
    );
    return { wallet_address: getAddress(wallet), nfts, total: nfts.length };
  }

  // ---------------------------------------------------------------- tier rewards (relayer)

  #onTierChange(agent: AgentRecord, previous: Tier): void {
    if (!this.wallets.configured || !this.#chain.deployment) return;
    if (TIERS.indexOf(agent.tier) <= TIERS.indexOf(previous)) return;
    const address = this.agentAddress(agent);
    for (const [index, milestone] of MILESTONES.entries()) {
      if (tierAtLeast(agent.tier, milestone))
        this.#background_(`badge ${milestone}`, () => this.#mintBadge(address, index));
    }
    if (tierAtLeast(agent.tier, "established")) this.#background_("NAP grant", () => this.#grantNap(address));
  }

  // ---------------------------------------------------------------- automated screening (relayer)

  #screeningEnabled(): boolean {
    return this.#screening === "auto" && this.wallets.configured && Boolean(this.#chain.deployment);
  }

  /**
   * Screens one strategy by the rules of domain/screening.ts: the relayer sends passScreening or failScreening through
   * the engine under `screen:<chainId>:<strategyId>`, so a strategy is screened at most once, also across restarts
   * and instances. A pass is recorded for the agent (tier and score) by the call that created the intent; a crash
   * between the receipt and that record is caught up by the start-up sweep (counters follow the chain).
   * Returns the verdict sent, or null when the strategy is no longer in shadow.
   */
  async screen(agentId: string, strategyId: string): Promise<"passed" | "failed" | null> {
    const registry = this.contracts.registry;
    const view = await registry.getStrategy(strategyId);
    if (Number(view.status) !== SHADOW_STATUS) return null;
    const verdict = screenStrategy(view.params);
    const result = await this.engine.send({
      wallet: { kind: "relayer" },
      to: await registry.getAddress(),
      data: verdict.pass
        ? registry.interface.encodeFunctionData("passScreening", [strategyId])
        : registry.interface.encodeFunctionData("failScreening", [strategyId]),
      kind: "strategy.screen",
      intentKey: screeningIntentKey(this.#chain.chainId, strategyId),
      requestor: "system",
      meta: { strategy_id: strategyId, verdict: verdict.pass ? "passed" : "failed", reasons: verdict.reasons },
    });
    this.#saw(result);
    if (verdict.pass) {
      await this.#agents.recordStrategyFacts(agentId, [{ kind: "passed_screening", strategyId }]);
    }
    this.#log.info(
      { strategyId, agentId, verdict: verdict.pass ? "passed" : "failed", reasons: verdict.reasons, tx: result.hash },
      "strategy screened",
    );
    return verdict.pass ? "passed" : "failed";
  }

  /**
   * Start-up sweep (after reconcile): for up to SWEEP_MAX_AGENTS agents, the counters catch up with the chain (awaited,
   * reads only), then up to SWEEP_MAX_STRATEGIES strategies still in shadow are screened in the background.
   */
  async #sweepScreening(): Promise<void> {
    if (!this.#screeningEnabled()) return;
    const registry = this.contracts.registry;
    const queue: { agentId: string; strategyId: string }[] = [];
    let shadow = 0;
    let agentsSwept = 0;
    try {
      const agents = await this.#store.agents.leaderboard(SWEEP_MAX_AGENTS);
      for (const agent of agents) {
        const address = this.agentAddress(agent);
        const count = Number(await registry.strategyCountOf(address));
        if (count === 0) continue;
        agentsSwept += 1;
        const views = [];
        for (let offset = 0; offset < count; offset += 100)
          views.push(...(await registry.strategiesOf(address, offset, 100)));
        await this.#syncCounters(agent, views);
        for (const view of views) {
          if (Number(view.status) !== SHADOW_STATUS) continue;
          shadow += 1;
          if (queue.length < SWEEP_MAX_STRATEGIES) queue.push({ agentId: agent.agentId, strategyId: view.id });
        }
      }
    } catch (error) {
      this.#log.warn({ err: error }, "screening sweep: reading agents or strategies failed; continuing");
    }
    this.#log.info(
      { agents: agentsSwept, shadow, screening: queue.length, deferred: shadow - queue.length },
      "screening sweep at start-up",
    );
    if (queue.length === 0) return;
    this.#background_("screening sweep", async () => {
      for (const { agentId, strategyId } of queue) {
        await this.screen(agentId, strategyId).catch((error: unknown) =>
          this.#log.warn({ err: error, strategyId }, "screening failed"),
        );
      }
    });
  }

  #background_(what: string, task: () => Promise<unknown>): void {
    const promise = task()
      .catch((error: unknown) => this.#log.warn({ err: error, what }, "relayer task failed"))
      .finally(() => this.#background.delete(promise));
    this.#background.add(promise);
  }

  async #mintBadge(address: string, milestone: number): Promise<void> {
    const badges = this.contracts.badges;
    if ((await badges.badgeOf(address, milestone)) !== 0n) return;
    const result = await this.engine.send({
      wallet: { kind: "relayer" },
      to: await badges.getAddress(),
      data: badges.interface.encodeFunctionData("mint", [address, milestone]),
      kind: "badge.mint",
      intentKey: `badge:${this.#chain.chainId}:${address.toLowerCase()}:${milestone}`,
      requestor: "system",
      meta: { recipient: address, milestone: MILESTONES[milestone] },
    });
    this.#saw(result);
  }

  async #grantNap(address: string): Promise<void> {
    const minter = this.contracts.minter;
    const result = await this.engine.send({
      wallet: { kind: "relayer" },
      to: await minter.getAddress(),
      data: minter.interface.encodeFunctionData("mint", [address, this.#napGrant]),
      kind: "nap.grant",
      intentKey: `nap-grant:${this.#chain.chainId}:${address.toLowerCase()}`,
      requestor: "system",
      meta: { recipient: address, amount: this.#napGrant.toString() },
    });
    this.#saw(result);
  }
}
