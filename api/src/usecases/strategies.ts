import { hexlify } from "ethers";
import type { ChainAccess } from "../chain";
import { callLenient } from "../chain/abiText";
import { encodeStringAddressUint, encodeSubmit } from "../chain/calldata";
import { keccak256Bytes } from "../chain/keccak";
import type { OnchainRiskParams, SystemEvents } from "../chain/events";
import { readChain } from "../chain/rpcErrors";
import { strategyStatus } from "../chain/vocabulary";
import { agentWallet, type ServerWallets } from "../chain/wallets";
import type { StrategyStatus } from "../domain/model";
import { passedScreening } from "../domain/screening";
import { RISK_PARAMS, textBytesProblem, type RiskParamName } from "../domain/strategyRules";
import { ValidationError } from "../errors";
import { intentKeyFor, type TxEngine } from "../tx";
import type { AgentRecord, AgentService, StrategyFact } from "./agents";

/** Strategies: submission to StrategyRegistryV3 from the agent's server wallet, and the agent's list. */

/** The seven risk parameters, in the API's units and names. */
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
  /** 32 bytes hex, 0x optional; derived when absent (deriveDna). */
  dna?: string;
  risk: RiskParams;
}

/** A strategy as the registry holds it. */
export interface Strategy {
  id: string;
  owner: string;
  name: string;
  description: string;
  dna: string;
  status: StrategyStatus;
  createdAt: bigint;
  lastStatusChange: bigint;
  params: OnchainRiskParams;
}

export interface SubmittedStrategy {
  agentAddress: string;
  strategy: Omit<Strategy, "status" | "lastStatusChange" | "createdAt"> & { status: "shadow" };
  txHash: string;
  blockNumber: number;
  gasUsed: bigint;
}

export interface StrategyList {
  agentAddress: string;
  registry: string;
  strategies: Strategy[];
}

/** Strategies are read from the registry this many at a time. */
const PAGE = 100;

/** The registry's checks of a submission, made before anything is signed; throws VALIDATION_FAILED naming the field. */
export function checkSubmission(input: StrategyInput): void {
  for (const field of ["name", "description"] as const) {
    const problem = textBytesProblem(field, input[field]);
    if (problem) throw new ValidationError(`${field}: ${problem}`);
  }
  for (const [name, { min, max }] of Object.entries(RISK_PARAMS) as [RiskParamName, { min: number; max: number }][]) {
    const value = input.risk[name];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new ValidationError(`${name}: must be an integer from ${min} to ${max}`);
    }
  }
}

/**
 * Strategy DNA when the agent gives none: keccak256(abi.encode(string name, address agentWallet, uint256 unixSeconds)),
 * the request's server time in Unix seconds. Deterministic for a given name, wallet and second.
 */
export function deriveDna(name: string, wallet: string, unixSeconds: number): string {
  return hexlify(keccak256Bytes(Buffer.from(encodeStringAddressUint(name, wallet, unixSeconds).slice(2), "hex")));
}

interface OnchainStrategyView {
  id: string;
  owner: string;
  name: string;
  description: string;
  dna: string;
  status: bigint;
  createdAt: bigint;
  lastStatusChange: bigint;
  params: OnchainRiskParams;
}

/**
 * Every strategy of `owner` at `block`, 100 per call, with text decoded leniently (chain/abiText.ts): one strategy
 * whose text onchain is not UTF-8 must not make the whole list unreadable.
 */
export async function readStrategies(chain: ChainAccess, owner: string, block: number): Promise<Strategy[]> {
  const registry = chain.contracts.registry;
  return readChain("the strategy registry", async () => {
    const count = Number(await registry.strategyCountOf(owner, { blockTag: block }));
    const pages: Promise<unknown>[] = [];
    for (let offset = 0; offset < count; offset += PAGE) {
      pages.push(callLenient(registry, "strategiesOf", [owner, offset, PAGE], block));
    }
    return ((await Promise.all(pages)) as OnchainStrategyView[][]).flat().map((view) => ({
      id: view.id,
      owner: view.owner,
      name: view.name,
      description: view.description,
      dna: view.dna,
      status: strategyStatus(view.status),
      createdAt: view.createdAt,
      lastStatusChange: view.lastStatusChange,
      params: view.params,
    }));
  });
}

/**
 * The facts that the chain shows about an agent's strategies, when it shows more than the agent's counters (a
 * submission finished by reconcile after a crash, strategies moved past screening by the screener); null when the
 * counters are up to date. Each fact counts once whoever reports it (AgentStore.recordStrategyFacts).
 */
export function factsBehind(agent: AgentRecord, strategies: readonly Strategy[]): StrategyFact[] | null {
  const passed = strategies.filter((strategy) => passedScreening(strategy.status));
  if (strategies.length <= agent.strategiesSubmitted && passed.length <= agent.strategiesPassedScreening) return null;
  return [
    ...strategies.map((strategy) => ({ kind: "submitted" as const, strategyId: strategy.id })),
    ...passed.map((strategy) => ({ kind: "passed_screening" as const, strategyId: strategy.id })),
  ];
}

export class Strategies {
  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
    private readonly agents: AgentService,
    private readonly clock: () => Date,
    /** Called after a submission is mined and counted (the relayer screens the strategy in the background). */
    private readonly afterSubmit: (agentId: string, strategyId: string) => void,
  ) {}

  /**
   * Submits a strategy from the agent's server wallet. Everything the registry checks is checked here first (a clear
   * 400 naming the field, nothing signed), so the transaction cannot revert: submissions of one shape (text byte
   * lengths, zero DNA or not, the wallet's first strategy or not) then share a gas key, and the engine estimates gas
   * once per shape instead of once per submission.
   */
  async submit(
    agent: AgentRecord,
    input: StrategyInput,
    idempotencyKey: string | undefined,
  ): Promise<SubmittedStrategy> {
    checkSubmission(input);
    const address = this.wallets.agentAddress(agent.agentIndex);
    const registry = this.chain.contracts.registry;
    const dna = input.dna
      ? `0x${input.dna.replace(/^0x/i, "").toLowerCase()}`
      : deriveDna(input.name, address, Math.floor(this.clock().getTime() / 1000));
    const r = input.risk;
    const result = await this.engine.send({
      wallet: agentWallet(agent.agentIndex),
      to: registry.target as string,
      data: encodeSubmit(input.name, input.description, dna, {
        maxPositionSizePercent: r.max_position_size_percent,
        maxLeverage: r.max_leverage,
        stopLossPercent: r.stop_loss_percent,
        slippageToleranceBps: r.slippage_tolerance_bps,
        correlationThreshold: r.correlation_threshold,
        velocityLimit: r.velocity_limit,
        flashLoansEnabled: r.flash_loans_enabled,
      }),
      kind: "strategy.submit",
      intentKey: intentKeyFor(agent.agentId, "strategy.submit", idempotencyKey),
      requestor: agent.agentId,
      meta: { name: input.name },
      gasKey: [
        "submit",
        Buffer.byteLength(input.name),
        Buffer.byteLength(input.description),
        BigInt(dna) === 0n ? "zero-dna" : "dna",
        agent.strategiesSubmitted === 0 ? "first" : "next",
      ].join(":"),
    });
    const log = this.chain.events.findLog(result.receipt.logs, "StrategySubmitted");
    if (!log) throw new Error(`strategy submission ${result.hash} mined without a StrategySubmitted event`);
    // A retry that joined an earlier intent (whose DNA may have been derived at another second, or whose body may
    // differ) answers with what the mined event holds; this call's own transaction carries exactly its input, so
    // only the strategy id (the event's first topic) is read from it.
    const strategy = result.replayed
      ? this.#fromEvent(this.chain.events.first(result.receipt.logs, "StrategySubmitted")!)
      : {
          id: log.topics[1],
          owner: address,
          name: input.name,
          description: input.description,
          dna,
          status: "shadow" as const,
          params: {
            maxPositionSizePercent: BigInt(r.max_position_size_percent),
            maxLeverage: BigInt(r.max_leverage),
            stopLossPercent: BigInt(r.stop_loss_percent),
            slippageToleranceBps: BigInt(r.slippage_tolerance_bps),
            correlationThreshold: BigInt(r.correlation_threshold),
            velocityLimit: BigInt(r.velocity_limit),
            flashLoansEnabled: r.flash_loans_enabled,
          },
        };
    // Counted once per strategy, so a retry or a replay through the journal may report it again.
    await this.agents.recordStrategyFacts(agent.agentId, [{ kind: "submitted", strategyId: strategy.id }]);
    this.afterSubmit(agent.agentId, strategy.id);
    return {
      agentAddress: address,
      strategy,
      txHash: result.hash,
      blockNumber: result.receipt.blockNumber,
      gasUsed: result.receipt.gasUsed,
    };
  }

  #fromEvent(event: SystemEvents["StrategySubmitted"]): SubmittedStrategy["strategy"] {
    return {
      id: event.strategyId,
      owner: event.owner,
      name: event.name,
      description: event.description,
      dna: event.dna,
      status: "shadow",
      params: event.params,
    };
  }

  /** Every strategy of the agent's server wallet at the read block; catches the agent's counters up with them. */
  async list(agent: AgentRecord): Promise<StrategyList> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const registry = this.chain.contracts.address("StrategyRegistryV3");
    const strategies = await readStrategies(this.chain, address, await this.chain.head.readBlock());
    const facts = factsBehind(agent, strategies);
    if (facts) await this.agents.recordStrategyFacts(agent.agentId, facts, { recount: true });
    return { agentAddress: address, registry, strategies };
  }
}
