import { strategyStatus } from "../../chain/vocabulary";
import type { StrategyStatus as RegistryStatus } from "../../domain/model";
import type { IndexedEvent } from "../records";

/**
 * Strategies and their transitions, folded from StrategyRegistryV3's events. The spec's four statuses group the
 * registry's seven stages: shadow → SHADOW; guardian_review, paper_trading, pending_oracle_approval → EVOLUTION
 * (under review, not yet trading); live → LIVE; paused → SHADOW (kept, not trading); deprecated → DEPRECATED.
 */

export type SpecStrategyStatus = "EVOLUTION" | "SHADOW" | "LIVE" | "DEPRECATED";

const SPEC_STATUS: Record<RegistryStatus, SpecStrategyStatus> = {
  shadow: "SHADOW",
  guardian_review: "EVOLUTION",
  paper_trading: "EVOLUTION",
  pending_oracle_approval: "EVOLUTION",
  live: "LIVE",
  paused: "SHADOW",
  deprecated: "DEPRECATED",
};

export interface StrategyTransition {
  from: RegistryStatus;
  to: RegistryStatus;
  by: string;
  timestamp: number;
  block: number;
  transactionHash: string;
}

export interface StrategyRecord {
  id: string;
  name: string;
  description: string;
  owner: string;
  stage: RegistryStatus;
  status: SpecStrategyStatus;
  createdAt: number;
  block: number;
  transitions: StrategyTransition[];
}

export function specStatus(stage: RegistryStatus): SpecStrategyStatus {
  return SPEC_STATUS[stage];
}

export function foldStrategies(events: readonly IndexedEvent[]): Map<string, StrategyRecord> {
  const strategies = new Map<string, StrategyRecord>();
  for (const event of events) {
    if (event.contract !== "StrategyRegistryV3") continue;
    const a = event.args;
    if (event.name === "StrategySubmitted") {
      const id = String(a.strategyId).toLowerCase();
      strategies.set(id, {
        id,
        name: String(a.name),
        description: String(a.description),
        owner: String(a.owner).toLowerCase(),
        stage: "shadow",
        status: "SHADOW",
        createdAt: Number(a.createdAt),
        block: event.block,
        transitions: [],
      });
    } else if (event.name === "StrategyStatusChanged") {
      const strategy = strategies.get(String(a.strategyId).toLowerCase());
      if (!strategy) continue;
      const to = strategyStatus(BigInt(String(a.to)));
      strategy.transitions.push({
        from: strategyStatus(BigInt(String(a.from))),
        to,
        by: String(a.by).toLowerCase(),
        timestamp: event.timestamp,
        block: event.block,
        transactionHash: event.transactionHash,
      });
      strategy.stage = to;
      strategy.status = specStatus(to);
    }
  }
  return strategies;
}
