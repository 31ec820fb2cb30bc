import { DEFAULT_TRANSACTIONS_LIMIT, MAX_TRANSACTIONS_LIMIT, type TransactionView } from "../../../readmodel/queries";
import { SERVICE_VERSION } from "../../../version";
import * as schemas from "../../../../../packages/wire/src/data";
import type { IndexerStatus } from "../../../indexer/indexer";
import { defineRoute, type RouteDefinition } from "../../route";
import { invalid, notFound } from "../errors";
import { iso, positionItem, strategyItem, transactionItem } from "../serializers";
import {
  DATA_TAG,
  addressParams,
  queryParameter,
  readQuery,
  readYourWrites,
  requireAddress,
  type DataRouteDeps,
} from "./shared";
import { z } from "zod";

/** The data API's other reads (data-api.md, Endpoints): strategies, a wallet's positions and transactions, totals. */

/** A non-negative integer query parameter, or the default; `code` names what is wrong. */
function integerParam(
  raw: string | undefined,
  name: string,
  code: "INVALID_LIMIT" | "INVALID_OFFSET",
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) > max) {
    throw invalid(code, `${name}: must be an integer from 0 to ${max}`, { field: name, max });
  }
  return Number(raw);
}

export function readRoutes(deps: DataRouteDeps & { status: () => Promise<IndexerStatus> }): RouteDefinition[] {
  const { queries, chain } = deps;
  const consistent = readYourWrites(deps);
  return [
    defineRoute({
      method: "get",
      path: "/v1/strategies",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "Every strategy that is not deprecated",
      query: readQuery({}),
      responses: { 200: { description: "OK", schema: schemas.strategyList } },
      errors: ["INVALID_MIN_BLOCK", "UNKNOWN_PARAMETER", "NOT_YET_INDEXED"],
      handler: async ({ ctx }) => {
        await consistent(ctx);
        return { strategies: (await queries.strategies()).map(strategyItem) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/strategies/:id/performance",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "A strategy's figures, the vaults allocating to it and its transitions",
      params: z.strictObject({ id: z.string() }),
      query: readQuery({}),
      responses: { 200: { description: "OK", schema: schemas.strategyPerformance } },
      errors: ["INVALID_STRATEGY_ID", "STRATEGY_NOT_FOUND", "INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      handler: async ({ params, ctx }) => {
        const id = params.id;
        if (!/^0x[0-9a-fA-F]{64}$/.test(id)) {
          throw invalid("INVALID_STRATEGY_ID", "id: must be a 0x-prefixed 32-byte hex strategy id", { field: "id" });
        }
        await consistent(ctx);
        const strategy = await queries.strategy(id);
        if (!strategy) throw notFound("STRATEGY_NOT_FOUND", `no strategy ${id}`, { id });
        return {
          ...strategyItem(strategy),
          description: strategy.description,
          vaults: strategy.vaults.map((v) => ({ ...v, allocatedTvl: v.allocatedTvl.toString() })),
          transitions: strategy.transitions.map((t) => ({ ...t, by: t.by, timestamp: iso(t.timestamp) })),
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/users/:address/positions",
      tag: DATA_TAG,
      scope: "users:read",
      summary: "A wallet's open positions with value, cost basis and profit",
      params: addressParams,
      query: readQuery({}),
      responses: { 200: { description: "OK", schema: schemas.userPositions } },
      errors: ["INVALID_ADDRESS", "INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      handler: async ({ params, ctx }) => {
        const address = requireAddress(params.address);
        await consistent(ctx);
        const positions = await queries.positions(address);
        return {
          address,
          positions: positions.map(positionItem),
          indexedBlock: (await queries.cursor())?.height ?? null,
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/users/:address/transactions",
      tag: DATA_TAG,
      scope: "users:read",
      summary: "A wallet's vault transactions, newest first",
      params: addressParams,
      query: readQuery({
        limit: queryParameter(`page size, default ${DEFAULT_TRANSACTIONS_LIMIT}, at most ${MAX_TRANSACTIONS_LIMIT}`, {
          type: "integer",
          minimum: 1,
          maximum: MAX_TRANSACTIONS_LIMIT,
        }),
        offset: queryParameter("transactions skipped, default 0", { type: "integer", minimum: 0 }),
        type: queryParameter("only this type", { enum: [...schemas.TRANSACTION_TYPES] }),
      }),
      responses: { 200: { description: "OK", schema: schemas.userTransactions } },
      errors: [
        "INVALID_ADDRESS",
        "INVALID_LIMIT",
        "INVALID_OFFSET",
        "INVALID_TRANSACTION_TYPE",
        "INVALID_MIN_BLOCK",
        "NOT_YET_INDEXED",
      ],
      handler: async ({ params, query, ctx }) => {
        const address = requireAddress(params.address);
        const limit = integerParam(
          query.limit,
          "limit",
          "INVALID_LIMIT",
          DEFAULT_TRANSACTIONS_LIMIT,
          MAX_TRANSACTIONS_LIMIT,
        );
        if (limit === 0) {
          throw invalid("INVALID_LIMIT", `limit: must be an integer from 1 to ${MAX_TRANSACTIONS_LIMIT}`, {
            field: "limit",
            max: MAX_TRANSACTIONS_LIMIT,
          });
        }
        const offset = integerParam(query.offset, "offset", "INVALID_OFFSET", 0);
        const type = query.type;
        if (type !== undefined && !(schemas.TRANSACTION_TYPES as readonly string[]).includes(type)) {
          throw invalid("INVALID_TRANSACTION_TYPE", `type: must be one of ${schemas.TRANSACTION_TYPES.join(", ")}`, {
            field: "type",
          });
        }
        await consistent(ctx);
        const page = await queries.transactions(address, {
          limit,
          offset,
          type: type as TransactionView["type"] | undefined,
        });
        return {
          address,
          transactions: page.items.map(transactionItem),
          total: page.total,
          limit,
          offset,
          indexedBlock: (await queries.cursor())?.height ?? null,
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/protocol/stats",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "Protocol totals: TVL, users, volumes, fees, strategies, governance",
      query: readQuery({}),
      responses: { 200: { description: "OK", schema: schemas.protocolStats } },
      errors: ["INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      handler: async ({ ctx }) => {
        await consistent(ctx);
        const s = await queries.protocolStats();
        return {
          ...s,
          totalTvl: s.totalTvl.toString(),
          depositVolume: s.depositVolume.toString(),
          withdrawVolume: s.withdrawVolume.toString(),
          feesAccrued: s.feesAccrued.toString(),
          indexedAt: s.indexedAt === null ? null : iso(s.indexedAt),
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/status",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "Indexer and chain status: indexed block, head, lag, writer, halt",
      responses: { 200: { description: "OK", schema: schemas.serviceStatus } },
      errors: [],
      handler: async () => {
        const status = await deps.status();
        return {
          status: status.halt ? "halted" : status.indexedBlock === null || status.lastError ? "degraded" : "ok",
          version: SERVICE_VERSION,
          chainId: chain.chainId,
          chainName: chain.chainName,
          indexer: { ...status, halt: status.halt && { reason: status.halt.reason, at: status.halt.at.toISOString() } },
        };
      },
    }),
  ];
}
