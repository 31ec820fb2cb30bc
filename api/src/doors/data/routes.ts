import type { Context } from "koa";
import { isAddress } from "ethers";
import type { z } from "zod";
import type { ChainAccess } from "../../chain";
import type { Indexer } from "../../indexer/indexer";
import {
  DEFAULT_TRANSACTIONS_LIMIT,
  MAX_HISTORY_POINTS,
  MAX_TRANSACTIONS_LIMIT,
  type DataQueries,
  type Interval,
  type Period,
  type TransactionView,
  type VaultList,
  type VaultView,
} from "../../readmodel/queries";
import {
  atLeastBlock,
  chooseMinBlock,
  notYetIndexedMessage,
  NOT_YET_INDEXED_RETRY_SECONDS,
  type MinBlockDeps,
} from "../../readmodel/freshness";
import { SERVICE_VERSION } from "../../version";
import { PayloadTooLargeError } from "../../errors";
import { readJsonBody } from "../live/validation";
import { SerializedJson } from "../live/serializedJson";
import type { Scope } from "./access/scopes";
import { DataApiError } from "./errors";
import { iso, positionItem, strategyItem, transactionItem, vaultDetail, vaultListItem } from "./serializers";
import * as schemas from "../../../../packages/wire/src/data";

/**
 * The data API's REST routes (data-api.md, Endpoints), each: validate, ask the query layer, shape the answer.
 * Integers in smallest units are decimal strings, times ISO 8601, percentages numbers.
 */

export interface DataRoute {
  method: "get" | "post";
  /** Koa-router path under /v1. */
  path: string;
  /** What a key must hold to call it (routeScopes.ts decides every request's scope from the route that answers). */
  scope: Scope;
  summary: string;
  /** Query parameters (documented in OpenAPI). */
  query?: { name: string; description: string; schema: Record<string, unknown> }[];
  body?: z.ZodType;
  response: z.ZodType;
  /** Error codes the route may answer besides INTERNAL_ERROR. */
  errors: string[];
  /** The body of a 200, or a promise of it (a route answering from memory returns it at once). */
  handler(ctx: Context): Promise<unknown> | unknown;
}

export interface DataRouteDeps {
  queries: DataQueries;
  chain: ChainAccess;
  /** The indexer of this instance (null: this instance runs none and reads the store's cursor only). */
  indexer: Indexer | null;
  bodyLimitBytes: number;
}

function requireAddress(value: string, field = "address"): string {
  if (!isAddress(value)) {
    throw new DataApiError("INVALID_ADDRESS", `${field}: '${String(value).slice(0, 80)}' is not an Ethereum address`, {
      field,
    });
  }
  return value;
}

/** A non-negative integer query parameter, or the default; `code` names what is wrong. */
function integerParam(
  ctx: Context,
  name: string,
  code: "INVALID_LIMIT" | "INVALID_OFFSET" | "INVALID_MIN_BLOCK",
  fallback: number | undefined,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== "string" || !/^\d{1,16}$/.test(raw) || Number(raw) > max) {
    throw new DataApiError(code, `${name}: must be an integer from 0 to ${max}`, { field: name, max });
  }
  return Number(raw);
}

function rejectUnknown(ctx: Context, allowed: readonly string[]): void {
  for (const [name, value] of Object.entries(ctx.query)) {
    if (!allowed.includes(name)) {
      throw new DataApiError(
        "UNKNOWN_PARAMETER",
        `${name}: unknown query parameter; allowed: ${allowed.join(", ") || "none"}`,
        {
          field: name,
        },
      );
    }
    if (Array.isArray(value)) {
      throw new DataApiError("UNKNOWN_PARAMETER", `${name}: must be given once`, { field: name });
    }
  }
}

export function dataRoutes({ queries, chain, indexer, bodyLimitBytes }: DataRouteDeps): DataRoute[] {
  // The two hottest reads: their bodies are built once per indexed block (the query layer hands out one object).
  const listBody = new SerializedJson((list: VaultList) => ({
    vaults: list.vaults.map(vaultListItem),
    totalTvl: list.totalTvl.toString(),
    totalTvlUsd: list.totalTvlUsd,
    indexedBlock: list.indexedBlock,
  }));
  const detailBody = new SerializedJson(vaultDetail);

  /**
   * Read-your-writes: `minBlock` (query) or `X-Min-Block` (header) makes the read wait for that indexed block
   * (readmodel/freshness.ts); not reached in time: 503 NOT_YET_INDEXED with Retry-After.
   */
  const consistent = async (ctx: Context) => {
    const chosen = chooseMinBlock([
      [ctx.query.minBlock, "minBlock"],
      [ctx.req.headers["x-min-block"], "X-Min-Block"],
    ]);
    const outcome =
      "message" in chosen
        ? ({ status: "invalid", ...chosen } as const)
        : await atLeastBlock(minBlockDeps, chosen.raw, chosen.field);
    if (outcome.status === "invalid") {
      throw new DataApiError("INVALID_MIN_BLOCK", outcome.message, { field: outcome.field });
    }
    if (outcome.status === "behind") {
      const { minBlock, indexedBlock } = outcome;
      throw new DataApiError(
        "NOT_YET_INDEXED",
        notYetIndexedMessage(minBlock, indexedBlock),
        { minBlock, indexedBlock },
        NOT_YET_INDEXED_RETRY_SECONDS,
      );
    }
    const height = outcome.status === "reached" ? outcome.indexedBlock : (await queries.cursor())?.height;
    if (height !== null && height !== undefined) ctx.set("X-Indexed-Block", String(height));
  };
  const minBlockDeps: MinBlockDeps = {
    waitForBlock: (block) => queries.waitForBlock(block),
    head: (fresh) => (fresh ? chain.head.checkBlock() : chain.head.latest()).catch(() => null),
  };

  /**
   * A request without a query string or X-Min-Block asks for what is indexed now: the vault list kept for the kept
   * cursor answers it without a promise (`X-Indexed-Block` as `consistent` sets it). Anything else takes the path
   * that validates the query and waits for the block asked for.
   */
  const inMemory = (ctx: Context) => ctx.querystring === "" && ctx.req.headers["x-min-block"] === undefined;
  const markIndexed = (ctx: Context, list: VaultList) => {
    if (list.indexedBlock !== null) ctx.set("X-Indexed-Block", String(list.indexedBlock));
  };

  const vaultOr404 = async (key: string) => {
    const vault = await queries.vault(key);
    if (!vault) throw new DataApiError("VAULT_NOT_FOUND", `no vault at ${key}`, { address: key });
    return vault;
  };

  const addressParam = {
    name: "minBlock",
    description:
      "the block your write was mined in: the answer waits (up to 2 s) until it is indexed, else 503 " +
      "NOT_YET_INDEXED with Retry-After; beyond the chain's head: 400 INVALID_MIN_BLOCK",
    schema: { type: "integer", minimum: 0 },
  };

  return [
    {
      method: "get",
      path: "/vaults",
      scope: "vaults:read",
      summary: "Every vault with its TVL and current APY",
      query: [addressParam],
      response: schemas.vaultList,
      errors: ["INVALID_MIN_BLOCK", "UNKNOWN_PARAMETER", "NOT_YET_INDEXED"],
      handler(ctx) {
        const kept = inMemory(ctx) ? queries.keptVaults() : undefined;
        if (kept) {
          markIndexed(ctx, kept);
          return listBody.respond(ctx, kept);
        }
        return (async () => {
          if (ctx.querystring !== "") rejectUnknown(ctx, ["minBlock"]);
          await consistent(ctx);
          return listBody.respond(ctx, await queries.vaults());
        })();
      },
    },
    {
      method: "post",
      path: "/vaults/batch",
      scope: "vaults:read",
      summary: "Several vaults' details in one request",
      body: schemas.batchBody,
      response: schemas.batchAnswer,
      errors: ["INVALID_BODY", "INVALID_ADDRESS", "INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      async handler(ctx) {
        rejectUnknown(ctx, ["minBlock"]);
        let raw: unknown;
        try {
          raw = await readJsonBody(ctx, bodyLimitBytes);
        } catch (error) {
          if (error instanceof PayloadTooLargeError) throw error;
          throw new DataApiError("INVALID_BODY", (error as Error).message);
        }
        const parsed = schemas.batchBody.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new DataApiError("INVALID_BODY", `${issue.path.join(".") || "body"}: ${issue.message}`, {
            field: issue.path.join("."),
          });
        }
        await consistent(ctx);
        const vaults: z.input<typeof schemas.vaultDetail>[] = [];
        const notFound: string[] = [];
        parsed.data.vaultIds.forEach((id, i) => {
          if (id.startsWith("0x")) requireAddress(id, `vaultIds.${i}`);
        });
        for (const id of parsed.data.vaultIds) {
          const vault = await queries.vault(id);
          if (vault) vaults.push(vaultDetail(vault));
          else notFound.push(id);
        }
        return { vaults, notFound };
      },
    },
    {
      method: "get",
      path: "/vaults/:address",
      scope: "vaults:read",
      summary: "One vault: TVL, shares, price, APY windows, fees, strategies",
      query: [addressParam],
      response: schemas.vaultDetail,
      errors: ["INVALID_ADDRESS", "VAULT_NOT_FOUND", "INVALID_MIN_BLOCK", "UNKNOWN_PARAMETER", "NOT_YET_INDEXED"],
      handler(ctx) {
        const given: string = ctx.params.address;
        // A known vault named by its checksummed or lowercase address needs no checksum computation (the hot path).
        const isNamedBy = (vault: VaultView | null): vault is VaultView =>
          vault !== null && (given === vault.address || given === vault.address.toLowerCase());
        const kept = inMemory(ctx) ? queries.keptVaults() : undefined;
        const keptVault = kept?.byKey.get(given.toLowerCase()) ?? null;
        if (kept && isNamedBy(keptVault)) {
          markIndexed(ctx, kept);
          return detailBody.respond(ctx, keptVault);
        }
        return (async () => {
          if (ctx.querystring !== "") rejectUnknown(ctx, ["minBlock"]);
          await consistent(ctx);
          const known = await queries.vault(given);
          if (isNamedBy(known)) return detailBody.respond(ctx, known);
          return detailBody.respond(ctx, await vaultOr404(requireAddress(given)));
        })();
      },
    },
    {
      method: "get",
      path: "/vaults/:address/history",
      scope: "vaults:read",
      summary: "TVL, share price and APY over a period, one point per interval",
      query: [
        {
          name: "period",
          description: "7d, 30d (default), 90d, 1y or all",
          schema: { type: "string", enum: ["7d", "30d", "90d", "1y", "all"] },
        },
        {
          name: "interval",
          description: "1h, 4h, 1d (default) or 1w",
          schema: { type: "string", enum: ["1h", "4h", "1d", "1w"] },
        },
        addressParam,
      ],
      response: schemas.vaultHistory,
      errors: [
        "INVALID_ADDRESS",
        "VAULT_NOT_FOUND",
        "INVALID_PERIOD",
        "INVALID_INTERVAL",
        "TOO_MANY_POINTS",
        "INVALID_MIN_BLOCK",
        "NOT_YET_INDEXED",
      ],
      async handler(ctx) {
        const address = requireAddress(ctx.params.address);
        rejectUnknown(ctx, ["period", "interval", "minBlock"]);
        const parsed = schemas.historyQuery.safeParse({ period: ctx.query.period, interval: ctx.query.interval });
        if (!parsed.success) {
          const field = String(parsed.error.issues[0].path[0]);
          const code = field === "period" ? "INVALID_PERIOD" : "INVALID_INTERVAL";
          const allowed = field === "period" ? "7d, 30d, 90d, 1y, all" : "1h, 4h, 1d, 1w";
          throw new DataApiError(code, `${field}: must be one of ${allowed}`, { field });
        }
        await consistent(ctx);
        const { period, interval } = parsed.data as { period: Period; interval: Interval };
        const answer = await queries.history(address, period, interval);
        if (!answer) throw new DataApiError("VAULT_NOT_FOUND", `no vault at ${address}`, { address });
        if ("tooMany" in answer) {
          throw new DataApiError(
            "TOO_MANY_POINTS",
            `period ${period} at interval ${interval} gives ${answer.tooMany} points; at most ${MAX_HISTORY_POINTS}: choose a longer interval`,
            { points: answer.tooMany, maxPoints: MAX_HISTORY_POINTS },
          );
        }
        return {
          address: answer.vault.address,
          period,
          interval,
          points: answer.points.map((p) => ({
            timestamp: iso(p.timestamp),
            block: p.block,
            tvl: p.tvl.toString(),
            tvlUsd: p.tvlUsd,
            totalShares: p.totalShares.toString(),
            pricePerShare: p.pricePerShare.toString(),
            apy: p.apy,
          })),
        };
      },
    },
    {
      method: "get",
      path: "/strategies",
      scope: "vaults:read",
      summary: "Every strategy that is not deprecated",
      query: [addressParam],
      response: schemas.strategyList,
      errors: ["INVALID_MIN_BLOCK", "UNKNOWN_PARAMETER", "NOT_YET_INDEXED"],
      async handler(ctx) {
        rejectUnknown(ctx, ["minBlock"]);
        await consistent(ctx);
        return { strategies: (await queries.strategies()).map(strategyItem) };
      },
    },
    {
      method: "get",
      path: "/strategies/:id/performance",
      scope: "vaults:read",
      summary: "A strategy's figures, the vaults allocating to it and its transitions",
      query: [addressParam],
      response: schemas.strategyPerformance,
      errors: ["INVALID_STRATEGY_ID", "STRATEGY_NOT_FOUND", "INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      async handler(ctx) {
        const id = ctx.params.id;
        if (!/^0x[0-9a-fA-F]{64}$/.test(id)) {
          throw new DataApiError("INVALID_STRATEGY_ID", "id: must be a 0x-prefixed 32-byte hex strategy id", {
            field: "id",
          });
        }
        rejectUnknown(ctx, ["minBlock"]);
        await consistent(ctx);
        const strategy = await queries.strategy(id);
        if (!strategy) throw new DataApiError("STRATEGY_NOT_FOUND", `no strategy ${id}`, { id });
        return {
          ...strategyItem(strategy),
          description: strategy.description,
          vaults: strategy.vaults.map((v) => ({ ...v, allocatedTvl: v.allocatedTvl.toString() })),
          transitions: strategy.transitions.map((t) => ({
            ...t,
            by: t.by,
            timestamp: iso(t.timestamp),
          })),
        };
      },
    },
    {
      method: "get",
      path: "/users/:address/positions",
      scope: "users:read",
      summary: "A wallet's open positions with value, cost basis and profit",
      query: [addressParam],
      response: schemas.userPositions,
      errors: ["INVALID_ADDRESS", "INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      async handler(ctx) {
        const address = requireAddress(ctx.params.address);
        rejectUnknown(ctx, ["minBlock"]);
        await consistent(ctx);
        const positions = await queries.positions(address);
        return {
          address,
          positions: positions.map(positionItem),
          indexedBlock: (await queries.cursor())?.height ?? null,
        };
      },
    },
    {
      method: "get",
      path: "/users/:address/transactions",
      scope: "users:read",
      summary: "A wallet's vault transactions, newest first",
      query: [
        {
          name: "limit",
          description: `page size, default ${DEFAULT_TRANSACTIONS_LIMIT}, at most ${MAX_TRANSACTIONS_LIMIT}`,
          schema: { type: "integer", minimum: 1, maximum: MAX_TRANSACTIONS_LIMIT },
        },
        { name: "offset", description: "transactions skipped, default 0", schema: { type: "integer", minimum: 0 } },
        {
          name: "type",
          description: "only this type",
          schema: { type: "string", enum: [...schemas.TRANSACTION_TYPES] },
        },
        addressParam,
      ],
      response: schemas.userTransactions,
      errors: [
        "INVALID_ADDRESS",
        "INVALID_LIMIT",
        "INVALID_OFFSET",
        "INVALID_TRANSACTION_TYPE",
        "INVALID_MIN_BLOCK",
        "NOT_YET_INDEXED",
      ],
      async handler(ctx) {
        const address = requireAddress(ctx.params.address);
        rejectUnknown(ctx, ["limit", "offset", "type", "minBlock"]);
        const limit = integerParam(
          ctx,
          "limit",
          "INVALID_LIMIT",
          DEFAULT_TRANSACTIONS_LIMIT,
          MAX_TRANSACTIONS_LIMIT,
        ) as number;
        if (limit === 0) {
          throw new DataApiError("INVALID_LIMIT", `limit: must be an integer from 1 to ${MAX_TRANSACTIONS_LIMIT}`, {
            field: "limit",
            max: MAX_TRANSACTIONS_LIMIT,
          });
        }
        const offset = integerParam(ctx, "offset", "INVALID_OFFSET", 0) as number;
        const type = ctx.query.type;
        if (type !== undefined && !(schemas.TRANSACTION_TYPES as readonly unknown[]).includes(type)) {
          throw new DataApiError(
            "INVALID_TRANSACTION_TYPE",
            `type: must be one of ${schemas.TRANSACTION_TYPES.join(", ")}`,
            { field: "type" },
          );
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
    },
    {
      method: "get",
      path: "/protocol/stats",
      scope: "vaults:read",
      summary: "Protocol totals: TVL, users, volumes, fees, strategies, governance",
      query: [addressParam],
      response: schemas.protocolStats,
      errors: ["INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      async handler(ctx) {
        rejectUnknown(ctx, ["minBlock"]);
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
    },
    {
      method: "get",
      path: "/status",
      scope: "vaults:read",
      summary: "Indexer and chain status: indexed block, head, lag, writer, halt",
      response: schemas.serviceStatus,
      errors: [],
      async handler(ctx) {
        rejectUnknown(ctx, []);
        const status = await indexerStatus(queries, chain, indexer);
        return {
          status: status.halt ? "halted" : status.indexedBlock === null || status.lastError ? "degraded" : "ok",
          version: SERVICE_VERSION,
          chainId: chain.chainId,
          chainName: chain.chainName,
          indexer: { ...status, halt: status.halt && { reason: status.halt.reason, at: status.halt.at.toISOString() } },
        };
      },
    },
  ];
}

/** The indexer's status from this instance's indexer, or (without one) from the store and the chain. */
export async function indexerStatus(
  queries: DataQueries,
  chain: ChainAccess,
  indexer: Indexer | null,
): ReturnType<Indexer["status"]> {
  if (indexer) return indexer.status();
  const [cursor, halt, head] = await Promise.all([
    queries.cursor(),
    queries.halt(),
    chain.head.latest().catch(() => null),
  ]);
  return {
    role: "reader",
    indexedBlock: cursor?.height ?? null,
    indexedHash: cursor?.hash ?? null,
    headBlock: head,
    lagBlocks: cursor && head !== null ? Math.max(0, head - cursor.height) : null,
    finalityDepth: 0,
    halt,
    lastError: null,
  };
}
