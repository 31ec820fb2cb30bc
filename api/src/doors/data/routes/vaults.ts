import type { Context } from "koa";
import type { z } from "zod";
import {
  MAX_HISTORY_POINTS,
  type Interval,
  type Period,
  type VaultList,
  type VaultView,
} from "../../../readmodel/queries";
import * as schemas from "../../../../../packages/wire/src/data";
import { defineRoute, type RouteDefinition, type RouteInput } from "../../route";
import { invalid, notFound } from "../errors";
import { iso, vaultDetail, vaultListItem } from "../serializers";
import {
  DATA_TAG,
  addressParams,
  queryParameter,
  readQuery,
  readYourWrites,
  requireAddress,
  type DataRouteDeps,
} from "./shared";

/** The data API's vault routes (data-api.md, Endpoints): the list, one vault, several, a vault's history. */

export function vaultRoutes(deps: DataRouteDeps): RouteDefinition[] {
  const { queries } = deps;
  const consistent = readYourWrites(deps);

  /**
   * A request without a query string or X-Min-Block asks for what is indexed now: the list kept for the kept cursor
   * answers it, with `X-Indexed-Block` as `consistent` sets it.
   */
  const keptList = (ctx: Context): VaultList | undefined => {
    if (ctx.querystring !== "" || ctx.req.headers["x-min-block"] !== undefined) return undefined;
    const list = queries.keptVaults();
    if (list?.indexedBlock !== null && list?.indexedBlock !== undefined) {
      ctx.set("X-Indexed-Block", String(list.indexedBlock));
    }
    return list;
  };

  const vaultOr404 = async (key: string) => {
    const vault = await queries.vault(key);
    if (!vault) throw notFound("VAULT_NOT_FOUND", `no vault at ${key}`, { address: key });
    return vault;
  };

  return [
    defineRoute({
      method: "get",
      path: "/v1/vaults",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "Every vault with its TVL and current APY",
      query: readQuery({}),
      responses: { 200: { description: "OK", schema: schemas.vaultList } },
      errors: ["INVALID_MIN_BLOCK", "UNKNOWN_PARAMETER", "NOT_YET_INDEXED"],
      // Built once per indexed block (the query layer hands out one object), so serialized once per block.
      cache: {
        kept: ({ ctx }) => keptList(ctx),
        body: (list: VaultList) => ({
          vaults: list.vaults.map(vaultListItem),
          totalTvl: list.totalTvl.toString(),
          totalTvlUsd: list.totalTvlUsd,
          indexedBlock: list.indexedBlock,
        }),
      },
      handler: async ({ ctx }) => {
        await consistent(ctx);
        return queries.vaults();
      },
    }),
    defineRoute({
      method: "post",
      path: "/v1/vaults/batch",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "Several vaults' details in one request",
      query: readQuery({}),
      body: schemas.batchBody,
      inputCodes: { vaultIds: "INVALID_BODY", body: "INVALID_BODY" },
      responses: { 200: { description: "OK", schema: schemas.batchAnswer } },
      errors: ["INVALID_BODY", "INVALID_ADDRESS", "INVALID_MIN_BLOCK", "NOT_YET_INDEXED"],
      handler: async ({ body, ctx }) => {
        await consistent(ctx);
        body.vaultIds.forEach((id, i) => {
          if (id.startsWith("0x")) requireAddress(id, `vaultIds.${i}`);
        });
        const vaults: z.input<typeof schemas.vaultDetail>[] = [];
        const notFoundIds: string[] = [];
        for (const id of body.vaultIds) {
          const vault = await queries.vault(id);
          if (vault) vaults.push(vaultDetail(vault));
          else notFoundIds.push(id);
        }
        return { vaults, notFound: notFoundIds };
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/vaults/:address",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "One vault: TVL, shares, price, APY windows, fees, strategies",
      params: addressParams,
      query: readQuery({}),
      responses: { 200: { description: "OK", schema: schemas.vaultDetail } },
      errors: ["INVALID_ADDRESS", "VAULT_NOT_FOUND", "INVALID_MIN_BLOCK", "UNKNOWN_PARAMETER", "NOT_YET_INDEXED"],
      // A known vault named by its checksummed or lowercase address needs no checksum computation (the hot path).
      cache: {
        kept: ({ params, ctx }: RouteInput<{ address: string }, unknown, unknown, unknown>) => {
          // A vault not kept takes the ordinary path, whose `consistent` sets X-Indexed-Block again.
          const vault = keptList(ctx)?.byKey.get(params.address.toLowerCase());
          return vault && isNamedBy(vault, params.address) ? vault : undefined;
        },
        body: vaultDetail,
      },
      handler: async ({ params, ctx }) => {
        await consistent(ctx);
        const known = await queries.vault(params.address);
        if (known && isNamedBy(known, params.address)) return known;
        return vaultOr404(requireAddress(params.address));
      },
    }),
    defineRoute({
      method: "get",
      path: "/v1/vaults/:address/history",
      tag: DATA_TAG,
      scope: "vaults:read",
      summary: "TVL, share price and APY over a period, one point per interval",
      params: addressParams,
      query: readQuery({
        period: queryParameter("7d, 30d (default), 90d, 1y or all", { enum: [...schemas.PERIODS] }),
        interval: queryParameter("1h, 4h, 1d (default) or 1w", { enum: [...schemas.INTERVALS] }),
      }),
      responses: { 200: { description: "OK", schema: schemas.vaultHistory } },
      errors: [
        "INVALID_ADDRESS",
        "VAULT_NOT_FOUND",
        "INVALID_PERIOD",
        "INVALID_INTERVAL",
        "TOO_MANY_POINTS",
        "INVALID_MIN_BLOCK",
        "NOT_YET_INDEXED",
      ],
      handler: async ({ params, query, ctx }) => {
        const address = requireAddress(params.address);
        const parsed = schemas.historyQuery.safeParse({ period: query.period, interval: query.interval });
        if (!parsed.success) {
          const field = String(parsed.error.issues[0].path[0]);
          const code = field === "period" ? "INVALID_PERIOD" : "INVALID_INTERVAL";
          const allowed = (field === "period" ? schemas.PERIODS : schemas.INTERVALS).join(", ");
          throw invalid(code, `${field}: must be one of ${allowed}`, { field });
        }
        await consistent(ctx);
        const { period, interval } = parsed.data as { period: Period; interval: Interval };
        const answer = await queries.history(address, period, interval);
        if (!answer) throw notFound("VAULT_NOT_FOUND", `no vault at ${address}`, { address });
        if ("tooMany" in answer) {
          throw invalid(
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
    }),
  ];
}

/** Whether `given` names the vault by its checksummed or lowercase address (no checksum computed). */
function isNamedBy(vault: VaultView, given: string): boolean {
  return given === vault.address || given === vault.address.toLowerCase();
}
