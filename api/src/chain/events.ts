import type { EventFragment, Interface, ParamType } from "ethers";
import { decodeLenient } from "./abiText";
import type { SystemContracts } from "./contracts";
import type { ChainLog } from "./rpc/actions";
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

/** What the decoder reads of a log (rpc/actions.ts): its block hash is not needed. */
export type DecodableLog = Omit<ChainLog, "blockHash">;

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

/** Where each argument of an event is: the data (by position), a topic holding its value, or a topic holding a hash. */
interface Layout {
  /** The inputs decoded from the data, in order. */
  plain: ParamType[];
  /** The indexed inputs that are a value (not a hash), each as a one-parameter list for decodeLenient. */
  wordTypes: ParamType[][];
  args: { key: string; from: "data" | "word" | "hash"; position: number; topic: number }[];
}

const layouts = new WeakMap<EventFragment, Layout>();

function layoutOf(fragment: EventFragment): Layout {
  let layout = layouts.get(fragment);
  if (!layout) {
    layout = { plain: [], wordTypes: [], args: [] };
    let topic = fragment.anonymous ? 0 : 1;
    for (const [i, input] of fragment.inputs.entries()) {
      const key = input.name || String(i);
      if (!input.indexed) {
        layout.args.push({ key, from: "data", position: layout.plain.length, topic: -1 });
        layout.plain.push(input);
      } else if (hashedWhenIndexed(input)) {
        layout.args.push({ key, from: "hash", position: -1, topic: topic++ });
      } else {
        layout.args.push({ key, from: "word", position: layout.wordTypes.length, topic: topic++ });
        layout.wordTypes.push([input]);
      }
    }
    layouts.set(fragment, layout);
  }
  return layout;
}

/** The values of the indexed inputs that are not hashes, each a 32-byte word of its topic. */
function wordValues(layout: Layout, topics: readonly string[]): unknown[] {
  const words = layout.args.filter((arg) => arg.from === "word").map((arg) => topics[arg.topic]);
  if (words.every((word) => typeof word === "string" && word.length === 66)) {
    return words.map((word, i) => decodeLenient(layout.wordTypes[i], word)[0]);
  }
  // Topics of another length: decoded together, which refuses them as the data of those types.
  return decodeLenient(layout.wordTypes.flat(), `0x${words.map((word) => word.slice(2)).join("")}`);
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
  decode(log: DecodableLog): DecodedEvent | null {
    const { source, fragment } = this.#find(log);
    if (!source || !fragment) return null;
    const layout = layoutOf(fragment);
    const dataValues = layout.plain.length > 0 ? decodeLenient(layout.plain, log.data) : [];
    const words = layout.wordTypes.length > 0 ? wordValues(layout, log.topics) : [];
    const args: Record<string, unknown> = {};
    for (const arg of layout.args) {
      args[arg.key] =
        arg.from === "data"
          ? dataValues[arg.position]
          : arg.from === "word"
            ? words[arg.position]
            : log.topics[arg.topic];
    }
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
  identify(log: DecodableLog): Pick<DecodedEvent, "contract" | "name"> | null {
    const { source, fragment } = this.#find(log);
    return source && fragment ? { contract: source.contract, name: fragment.name } : null;
  }

  #find(log: DecodableLog): { source?: Source; fragment?: EventFragment } {
    // Nodes give addresses in lowercase, the keys' case: lowercased only when not found as given.
    const source = this.#sources.get(log.address) ?? this.#sources.get(log.address.toLowerCase());
    return { source, fragment: source && log.topics.length > 0 ? source.events.get(log.topics[0]) : undefined };
  }

  /** Every decodable event of `logs`, in order. */
  decodeAll(logs: readonly DecodableLog[]): DecodedEvent[] {
    const events: DecodedEvent[] = [];
    for (const log of logs) {
      const event = this.decode(log);
      if (event) events.push(event);
    }
    return events;
  }

  /** The first log among `logs` that is a system contract's `name` event, undecoded (its topics are at hand). */
  findLog(logs: readonly DecodableLog[], name: keyof SystemEvents): DecodableLog | null {
    for (const log of logs) {
      const fragment = this.#find(log).fragment;
      if (fragment?.name === name) return log;
    }
    return null;
  }

  /** The arguments of the first `name` event among `logs` (a receipt's), or null when there is none. */
  first<N extends keyof SystemEvents>(logs: readonly DecodableLog[], name: N): SystemEvents[N] | null {
    for (const log of logs) {
      const event = this.decode(log);
      if (event?.name === name) return event.args as unknown as SystemEvents[N];
    }
    return null;
  }
}
