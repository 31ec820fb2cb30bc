import { EventEmitter, on } from "node:events";
import { getAddress, isAddress } from "ethers";
import { GraphQLScalarType, Kind, type ValueNode } from "graphql";
import type { ChainAccess } from "../../chain";
import type { Indexer } from "../../indexer/indexer";
import type { EventFeed } from "../../readmodel/feed";
import {
  DEFAULT_TRANSACTIONS_LIMIT,
  MAX_TRANSACTIONS_LIMIT,
  type DataQueries,
  type StrategyView,
  type TransactionView,
  type VaultStrategyView,
  type VaultView,
} from "../../readmodel/queries";
import type { EventLogEntry } from "../../readmodel/records";
import { makesTransaction, type TransactionType } from "../../readmodel/folds/transactions";
import { indexerStatus } from "../indexerStatus";
import { apiError } from "./errors";

/**
 * The resolvers of the GraphQL door: each checks its arguments and asks the query layer (readmodel/queries), which
 * computes each answer once per indexed block, so nested fields (a transaction's vault, a vault's strategies) are
 * lookups in answers already made, never one store read per item.
 */

export interface GraphQLContext {
  queries: DataQueries;
  chain: ChainAccess;
  indexer: Indexer | null;
  feed: EventFeed;
  /** The seq of the log entry a subscription message was made from (sent as extensions.seq). */
  seq?: number;
}

type Args = Record<string, unknown>;

const DECIMAL = /^-?\d{1,78}$/;

function parseBigInt(value: unknown): bigint {
  if (typeof value === "string" && DECIMAL.test(value)) return BigInt(value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  throw apiError("BAD_USER_INPUT", `BigInt: expected an integer as a decimal string, got ${JSON.stringify(value)}`);
}

export const BigIntScalar = new GraphQLScalarType({
  name: "BigInt",
  serialize: (value) => {
    if (typeof value === "bigint") return value.toString();
    return parseBigInt(value).toString();
  },
  parseValue: parseBigInt,
  parseLiteral: (node: ValueNode) => {
    if (node.kind === Kind.STRING || node.kind === Kind.INT) return parseBigInt(node.value);
    throw apiError("BAD_USER_INPUT", "BigInt: expected an integer as a decimal string");
  },
});

/** Unix seconds inside, ISO 8601 outside. */
export const DateTimeScalar = new GraphQLScalarType({
  name: "DateTime",
  serialize: (value) => {
    if (typeof value === "number") return new Date(value * 1000).toISOString();
    if (value instanceof Date) return value.toISOString();
    throw new TypeError(`DateTime: cannot serialize ${typeof value}`);
  },
  parseValue: (value) => parseDateTime(value),
  parseLiteral: (node: ValueNode) => parseDateTime(node.kind === Kind.STRING ? node.value : undefined),
});

function parseDateTime(value: unknown): number {
  const millis = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(millis)) throw apiError("BAD_USER_INPUT", "DateTime: expected an ISO 8601 string");
  return Math.floor(millis / 1000);
}

function requireAddress(value: unknown, field: string): string {
  if (typeof value !== "string" || !isAddress(value)) {
    throw apiError("INVALID_ADDRESS", `${field}: '${String(value).slice(0, 80)}' is not an Ethereum address`, {
      field,
    });
  }
  return value;
}

async function requireVault(queries: DataQueries, address: string, field: string): Promise<VaultView> {
  const vault = await queries.vault(requireAddress(address, field));
  if (!vault) throw apiError("NOT_FOUND", `vault ${getAddress(address)} not found`, { field });
  return vault;
}

function pageArg(value: unknown, field: "limit" | "offset", fallback: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  const min = field === "limit" ? 1 : 0;
  if (typeof value !== "number" || value < min || value > max) {
    throw apiError(
      field === "limit" ? "INVALID_LIMIT" : "INVALID_OFFSET",
      `${field}: must be an integer from ${min} to ${max}`,
      { field, max },
    );
  }
  return value;
}

const ORDERS: Record<string, (a: VaultView, b: VaultView) => number> = {
  TVL_DESC: (a, b) => compareBig(b.tvl, a.tvl),
  TVL_ASC: (a, b) => compareBig(a.tvl, b.tvl),
  APY_DESC: (a, b) => b.apy.current - a.apy.current,
  APY_ASC: (a, b) => a.apy.current - b.apy.current,
  CREATED_DESC: (a, b) => b.createdAt - a.createdAt,
  CREATED_ASC: (a, b) => a.createdAt - b.createdAt,
  NAME_ASC: (a, b) => a.name.localeCompare(b.name),
};

const compareBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const tieBreak = (a: VaultView, b: VaultView) => a.createdAt - b.createdAt || a.address.localeCompare(b.address);

/**
 * A subscription's source: the feed's entries that `accept` keeps, as an async iterator whose `return()` stops
 * listening at once (graphql-ws calls it when the client completes or leaves).
 */
async function feedSource(
  context: GraphQLContext,
  accept: (entry: EventLogEntry) => boolean,
  afterSeq: unknown,
): Promise<AsyncIterableIterator<[EventLogEntry]>> {
  if (afterSeq !== undefined && afterSeq !== null && (typeof afterSeq !== "number" || afterSeq < 0)) {
    throw apiError("BAD_USER_INPUT", "afterSeq: must be an integer >= 0", { field: "afterSeq" });
  }
  const emitter = new EventEmitter();
  // Listening on the emitter first: the feed may deliver replayed entries before listen() returns.
  const entries = on(emitter, "entry") as AsyncIterableIterator<[EventLogEntry]>;
  const stop = await context.feed.listen(
    (entry) => {
      if (accept(entry)) emitter.emit("entry", entry);
    },
    (afterSeq as number | null | undefined) ?? undefined,
  );
  const source: AsyncIterableIterator<[EventLogEntry]> = {
    [Symbol.asyncIterator]: () => source,
    next: () => entries.next(),
    return: (value?: unknown) => {
      stop();
      return entries.return ? entries.return(value) : Promise.resolve({ done: true, value: undefined });
    },
    throw: (error?: unknown) => {
      stop();
      return entries.throw ? entries.throw(error) : Promise.reject(error);
    },
  };
  return source;
}

/** The transaction a log entry made, as the query layer folds it (status included), once its block is indexed. */
async function transactionOf(queries: DataQueries, entry: EventLogEntry): Promise<TransactionView> {
  await queries.waitForBlock(entry.event.block);
  const found = await queries.transactionOfEvent(entry.event);
  if (!found) throw apiError("NOT_FOUND", `no transaction for event ${entry.event.id}`);
  return found;
}

export const resolvers = {
  BigInt: BigIntScalar,
  DateTime: DateTimeScalar,
  Period: { WEEK: "7d", MONTH: "30d", QUARTER: "90d", YEAR: "1y", ALL: "all" },
  Interval: { HOUR: "1h", FOUR_HOURS: "4h", DAY: "1d", WEEK: "1w" },
  NodeRole: { WRITER: "writer", READER: "reader", HALTED: "halted" },

  Query: {
    async vaults(_: unknown, args: Args, { queries }: GraphQLContext): Promise<VaultView[]> {
      const { vaults } = await queries.vaults();
      const minTvl = args.minTvl as bigint | null | undefined;
      const selected = vaults.filter(
        (v) => (!args.riskLevel || v.riskLevel === args.riskLevel) && (minTvl == null || v.tvl >= minTvl),
      );
      const order = ORDERS[(args.orderBy as string | undefined) ?? "CREATED_ASC"] ?? ORDERS.CREATED_ASC;
      return selected.sort((a, b) => order(a, b) || tieBreak(a, b));
    },
    async vault(_: unknown, args: Args, { queries }: GraphQLContext): Promise<VaultView> {
      return requireVault(queries, args.address as string, "address");
    },
    async vaultHistory(_: unknown, args: Args, { queries }: GraphQLContext) {
      const vault = await requireVault(queries, args.address as string, "address");
      const answer = await queries.history(vault.address, args.period as never, args.interval as never);
      if (!answer) throw apiError("NOT_FOUND", `vault ${vault.address} not found`, { field: "address" });
      if ("tooMany" in answer) {
        throw apiError("TOO_MANY_POINTS", `period and interval would give ${answer.tooMany} points; ask for fewer`, {
          field: "interval",
          points: answer.tooMany,
        });
      }
      return answer.points;
    },
    async strategies(_: unknown, args: Args, { queries }: GraphQLContext): Promise<StrategyView[]> {
      const all = await queries.strategies({ includeDeprecated: args.status === "DEPRECATED" });
      const minSharpe = args.minSharpe as number | null | undefined;
      return all.filter(
        (s) => (!args.status || s.status === args.status) && (minSharpe == null || s.sharpeRatio >= minSharpe),
      );
    },
    async strategy(_: unknown, args: Args, { queries }: GraphQLContext): Promise<StrategyView | null> {
      return queries.strategy(String(args.id));
    },
    async userPositions(_: unknown, args: Args, { queries }: GraphQLContext) {
      return queries.positions(requireAddress(args.address, "address"));
    },
    async userTransactions(_: unknown, args: Args, { queries }: GraphQLContext): Promise<TransactionView[]> {
      const address = requireAddress(args.address, "address");
      const limit = pageArg(args.limit, "limit", DEFAULT_TRANSACTIONS_LIMIT, MAX_TRANSACTIONS_LIMIT);
      const offset = pageArg(args.offset, "offset", 0, Number.MAX_SAFE_INTEGER);
      const type = (args.type as TransactionType | null | undefined) ?? undefined;
      return (await queries.transactions(address, { limit, offset, type })).items;
    },
    protocolStats(_: unknown, __: Args, { queries }: GraphQLContext) {
      return queries.protocolStats();
    },
    async nodeStats(_: unknown, __: Args, { queries, chain, indexer }: GraphQLContext) {
      const status = await indexerStatus(queries, chain, indexer);
      return { ...status, haltReason: status.halt?.reason ?? null };
    },
  },

  Vault: {
    /** The vault's allocations with each strategy's own figures (one lookup in the block's strategy list). */
    async strategies(vault: VaultView, _: Args, { queries }: GraphQLContext) {
      const all = await queries.strategies({ includeDeprecated: true });
      const byId = new Map(all.map((s) => [s.id, s]));
      return vault.strategies.flatMap((allocation: VaultStrategyView) => {
        const strategy = byId.get(allocation.id);
        return strategy ? [{ ...strategy, allocation: allocation.allocation, apy: allocation.apy }] : [];
      });
    },
  },

  Transaction: {
    user: (tx: TransactionView) => getAddress(tx.user),
  },

  Subscription: {
    vaultUpdated: {
      async subscribe(_: unknown, args: Args, context: GraphQLContext) {
        const vault = await requireVault(context.queries, args.address as string, "address");
        const address = vault.address.toLowerCase();
        return feedSource(context, (entry) => entry.event.address === address, args.afterSeq);
      },
      async resolve([entry]: [EventLogEntry], args: Args, context: GraphQLContext): Promise<VaultView> {
        context.seq = entry.seq;
        await context.queries.waitForBlock(entry.event.block);
        return requireVault(context.queries, args.address as string, "address");
      },
    },
    transactionCreated: {
      async subscribe(_: unknown, args: Args, context: GraphQLContext) {
        let address: string | undefined;
        if (args.vaultAddress != null) {
          address = (await requireVault(context.queries, args.vaultAddress as string, "vaultAddress")).address;
        }
        const wanted = address?.toLowerCase();
        return feedSource(
          context,
          (entry) =>
            entry.action === "added" &&
            makesTransaction(entry.event) &&
            (wanted === undefined || entry.event.address === wanted),
          args.afterSeq,
        );
      },
      async resolve([entry]: [EventLogEntry], _: Args, context: GraphQLContext): Promise<TransactionView> {
        context.seq = entry.seq;
        return transactionOf(context.queries, entry);
      },
    },
  },
};
