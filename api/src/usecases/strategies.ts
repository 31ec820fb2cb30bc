import { AbiCoder, keccak256 } from "ethers";
import type { ChainAccess } from "../chain";
import { callLenient } from "../chain/abiText";
import type { OnchainRiskParams } from "../chain/events";
import { readChain } from "../chain/rpcErrors";
import { strategyStatus } from "../chain/vocabulary";
import { agentWallet, type ServerWallets } from "../chain/wallets";
import type { StrategyStatus } from "../domain/model";
import { passedScreening } from "../domain/screening";
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
  strategy: Omit<Strategy, "status" | "lastStatusChange"> & { status: "shadow" };
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

/**
 * Strategy DNA when the agent gives none: keccak256(abi.encode(string name, address agentWallet, uint256 unixSeconds)),
 * the request's server time in Unix seconds. Deterministic for a given name, wallet and second.
 */
export function deriveDna(name: string, wallet: string, unixSeconds: number): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(["string", "address", "uint256"], [name, wallet, unixSeconds]));
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

  async submit(
    agent: AgentRecord,
    input: StrategyInput,
    idempotencyKey: string | undefined,
  ): Promise<SubmittedStrategy> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const registry = this.chain.contracts.registry;
    const dna = input.dna
      ? `0x${input.dna.replace(/^0x/i, "").toLowerCase()}`
      : deriveDna(input.name, address, Math.floor(this.clock().getTime() / 1000));
    const r = input.risk;
    const result = await this.engine.send({
      wallet: agentWallet(agent.agentIndex),
      to: registry.target as string,
      data: registry.interface.encodeFunctionData("submit", [
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
      ]),
      kind: "strategy.submit",
      intentKey: intentKeyFor(agent.agentId, "strategy.submit", idempotencyKey),
      requestor: agent.agentId,
      meta: { name: input.name },
    });
    // Everything in the answer comes from the mined event, so a retry that joined an earlier intent (whose DNA was
    // derived at another second) answers with what is onchain.
    const event = this.chain.events.first(result.receipt.logs, "StrategySubmitted");
    if (!event) throw new Error(`strategy submission ${result.hash} mined without a StrategySubmitted event`);
    // Counted once per strategy, so a retry or a replay through the journal may report it again.
    await this.agents.recordStrategyFacts(agent.agentId, [{ kind: "submitted", strategyId: event.strategyId }]);
    this.afterSubmit(agent.agentId, event.strategyId);
    return {
      agentAddress: address,
      strategy: {
        id: event.strategyId,
        owner: event.owner,
        name: event.name,
        description: event.description,
        dna: event.dna,
        status: "shadow",
        createdAt: event.createdAt,
        params: event.params,
      },
      txHash: result.hash,
      blockNumber: result.receipt.blockNumber,
      gasUsed: result.receipt.gasUsed,
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
