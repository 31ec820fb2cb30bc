import type { EventFragment, Interface, ParamType } from "ethers";
import { decodeLenient } from "./abiText";
import type { SystemContracts } from "./contracts";
import {
  AgentBadges__factory,
  NapFaucet__factory,
  NapGovernor__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
} from "../../../typechain-types";

/**
 * The typed event decoder of the system's contracts, shared by the transaction path (events of a receipt) and the
 * indexer (logs of a block range). A log is decoded by the contract at its address (so an event of the same
 * signature emitted by another contract is never taken for ours), and text is decoded leniently (chain/abiText.ts):
 * a string that is not UTF-8 reads with U+FFFD instead of failing.
 */

/** What the decoder reads of a log: a receipt's (tx/rpc.ts) or one of ethers' Logs (the indexer's). */
export interface ChainLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: number;
  readonly transactionHash: string;
  readonly index: number;
}

/** Risk parameters as StrategyRegistryV3 stores them. */
export interface OnchainRiskParams {
  maxPositionSizePercent: bigint;
  maxLeverage: bigint;
  stopLossPercent: bigint;
  slippageToleranceBps: bigint;
  correlationThreshold: bigint;
  velocityLimit: bigint;
  flashLoansEnabled: boolean;
}

/** The events the service reads, by name, with their arguments as decoded. */
export interface SystemEvents {
  StrategySubmitted: {
    strategyId: string;
    owner: string;
    dna: string;
    name: string;
    description: string;
    params: OnchainRiskParams;
    createdAt: bigint;
  };
  Dripped: { recipient: string; dripper: string; ethAmount: bigint; usdcAmount: bigint; nextEligibleAt: bigint };
  VoteCast: { voter: string; proposalId: bigint; support: bigint; weight: bigint; reason: string };
  Deposit: { sender: string; owner: string; assets: bigint; shares: bigint };
}

export interface DecodedEvent {
  /** Contract name of the deployment ("StrategyRegistryV3", "NapVault:moderate", ...). */
  readonly contract: string;
  readonly address: string;
  readonly name: string;
  /** Arguments by name (by position when unnamed); indexed dynamic values are their topic hashes. */
  readonly args: Record<string, unknown>;
  readonly blockNumber: number;
  readonly transactionHash: string;
  readonly index: number;
}

interface Source {
  contract: string;
  events: Map<string, EventFragment>;
}

function eventsOf(iface: Interface): Map<string, EventFragment> {
  const events = new Map<string, EventFragment>();
  iface.forEachEvent((fragment) => events.set(fragment.topicHash, fragment));
  return events;
}

/** True when an indexed value of this type is stored as the hash of its value. */
function hashedWhenIndexed(type: ParamType): boolean {
  return type.isArray() || type.isTuple() || type.baseType === "string" || type.baseType === "bytes";
}

/** An event's inputs by where their values are: the data, the topics, and the topics that are values (not hashes). */
interface Layout {
  plain: ParamType[];
  indexed: ParamType[];
  wordTypes: ParamType[];
}

const layouts = new WeakMap<EventFragment, Layout>();

function layoutOf(fragment: EventFragment): Layout {
  let layout = layouts.get(fragment);
  if (!layout) {
    const indexed = fragment.inputs.filter((input) => input.indexed);
    layout = {
      plain: fragment.inputs.filter((input) => !input.indexed),
      indexed,
      wordTypes: indexed.filter((input) => !hashedWhenIndexed(input)),
    };
    layouts.set(fragment, layout);
  }
  return layout;
}

export class EventDecoder {
  readonly #sources = new Map<string, Source>();

  /** Decodes the events of every contract the deployment lists (a missing one is simply not decoded). */
  constructor(contracts: SystemContracts) {
    const add = (contract: string, address: string, iface: Interface) =>
      this.#sources.set(address.toLowerCase(), { contract, events: eventsOf(iface) });
    const listed: [Parameters<SystemContracts["has"]>[0], Interface][] = [
      ["StrategyRegistryV3", StrategyRegistryV3__factory.createInterface()],
      ["NapFaucet", NapFaucet__factory.createInterface()],
      ["AgentBadges", AgentBadges__factory.createInterface()],
      ["NapToken", NapToken__factory.createInterface()],
      ["NapGovernor", NapGovernor__factory.createInterface()],
    ];
    for (const [name, iface] of listed) if (contracts.has(name)) add(name, contracts.address(name), iface);
    if (contracts.deployment) add("USDC", contracts.address("USDC"), TestUSDC__factory.createInterface());
    const vault = NapVault__factory.createInterface();
    for (const { id, address } of contracts.vaultList()) add(`NapVault:${id}`, address, vault);
  }

  /** The event of one log, or null when the log is not of a system contract or not an event it declares. */
  decode(log: ChainLog): DecodedEvent | null {
    const { source, fragment } = this.#find(log);
    if (!source || !fragment) return null;
    const layout = layoutOf(fragment);
    const dataValues = layout.plain.length > 0 ? decodeLenient(layout.plain, log.data) : [];
    // The indexed values that are not hashes are one 32-byte word each: decoded together, in one call.
    const firstTopic = fragment.anonymous ? 0 : 1;
    const words = layout.indexed.flatMap((input, i) => (hashedWhenIndexed(input) ? [] : [log.topics[firstTopic + i]]));
    const wordValues =
      words.length > 0 ? decodeLenient(layout.wordTypes, `0x${words.map((w) => w.slice(2)).join("")}`) : [];
    const args: Record<string, unknown> = {};
    let topic = firstTopic;
    let position = 0;
    let word = 0;
    fragment.inputs.forEach((input, i) => {
      const key = input.name || String(i);
      if (input.indexed) {
        const value = log.topics[topic++];
        args[key] = hashedWhenIndexed(input) ? value : wordValues[word++];
      } else {
        args[key] = dataValues[position++];
      }
    });
    return {
      contract: source.contract,
      address: log.address,
      name: fragment.name,
      args,
      blockNumber: log.blockNumber,
      transactionHash: log.transactionHash,
      index: log.index,
    };
  }

  /** The contract and event name of `log` (those `decode` gives), without decoding its arguments; null when it is none of ours. */
  identify(log: ChainLog): Pick<DecodedEvent, "contract" | "name"> | null {
    const { source, fragment } = this.#find(log);
    return source && fragment ? { contract: source.contract, name: fragment.name } : null;
  }

  #find(log: ChainLog): { source?: Source; fragment?: EventFragment } {
    const source = this.#sources.get(log.address.toLowerCase());
    return { source, fragment: source && log.topics.length > 0 ? source.events.get(log.topics[0]) : undefined };
  }

  /** Every decodable event of `logs`, in order. */
  decodeAll(logs: readonly ChainLog[]): DecodedEvent[] {
    return logs.flatMap((log) => {
      const event = this.decode(log);
      return event ? [event] : [];
    });
  }

  /** The first log among `logs` that is a system contract's `name` event, undecoded (its topics are at hand). */
  findLog(logs: readonly ChainLog[], name: keyof SystemEvents): ChainLog | null {
    for (const log of logs) {
      const fragment = this.#sources.get(log.address.toLowerCase())?.events.get(log.topics[0]);
      if (fragment?.name === name) return log;
    }
    return null;
  }

  /** The arguments of the first `name` event among `logs` (a receipt's), or null when there is none. */
  first<N extends keyof SystemEvents>(logs: readonly ChainLog[], name: N): SystemEvents[N] | null {
    for (const log of logs) {
      const event = this.decode(log);
      if (event?.name === name) return event.args as unknown as SystemEvents[N];
    }
    return null;
  }
}
