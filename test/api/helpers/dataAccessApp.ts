import Router from "@koa/router";
import { verifyMessage } from "ethers";
import type Redis from "ioredis";
import Koa from "koa";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hashApiKey } from "../../../api/src/domain/apiKeys";
import { createDataAccess, type DataAccess, type DataTier, type TierLimit } from "../../../api/src/doors/data/access";
import { createLogger } from "../../../api/src/logger";
import { createMemoryStore } from "../../../api/src/store/memory";
import type { Stores } from "../../../api/src/store";

/**
 * A small Koa app with the data API's access layer mounted in front of a few stand-in /v1 routes, on a loopback port,
 * with an injected clock. Client IPs are taken from X-Forwarded-For (one trusted hop) so that tests can speak from
 * several addresses.
 */

export const OPERATOR_KEY = "operator-key-for-tests-0001";
export const PUBLIC_URL = "http://api.nap.test";
export const CHAIN_ID = 31337;

export interface AccessTestApp {
  url: string;
  store: Stores;
  access: DataAccess;
  close(): Promise<void>;
}

export interface AccessTestOptions {
  store?: Stores;
  clock: () => Date;
  redis?: Redis;
  redisPrefix?: string;
  limits?: Readonly<Record<DataTier, TierLimit>>;
  rateLimitsDisabled?: boolean;
}

export async function startAccessApp(options: AccessTestOptions): Promise<AccessTestApp> {
  const store = options.store ?? createMemoryStore();
  const access = createDataAccess({
    stores: store,
    config: {
      operatorApiKeys: [OPERATOR_KEY],
      serviceDomain: new URL(PUBLIC_URL).host,
      publicUrl: PUBLIC_URL,
      rateLimitsDisabled: options.rateLimitsDisabled ?? false,
      bodyLimitBytes: 65_536,
    },
    chainId: CHAIN_ID,
    logger: createLogger("silent"),
    agents: { byApiKey: (apiKey) => store.agents.findByKeyHash(hashApiKey(apiKey)) },
    verifySignature: async (wallet, message, signature) => {
      try {
        return verifyMessage(message, signature).toLowerCase() === wallet.toLowerCase();
      } catch {
        return false;
      }
    },
    redis: options.redis,
    redisPrefix: options.redisPrefix,
    clock: options.clock,
    limits: options.limits,
  });

  // Stand-ins for the data routes built elsewhere: a public read, a user read, and a route that fails, declared with
  // their scopes as the data door declares its own.
  const reads = new Router({ sensitive: true });
  access.scopes.route(reads, "GET", "/v1/vaults", "vaults:read", (ctx) => {
    ctx.body = { vaults: [], tier: ctx.state.dataCaller.tier };
  });
  access.scopes.route(reads, "GET", "/v1/users/:address/positions", "users:read", (ctx) => {
    ctx.body = { positions: [] };
  });
  access.scopes.route(reads, "GET", "/v1/status", "vaults:read", () => {
    throw Object.assign(new Error("teapot"), { status: 418, expose: true });
  });
  access.scopes.answeredBy(reads);

  const app = new Koa();
  app.proxy = true;
  app.maxIpsCount = 1;
  app.silent = true;
  app.use(access.middleware);
  app.use(access.routes.routes());
  app.use(access.routes.allowedMethods());
  app.use(reads.routes());
  app.use((ctx) => {
    ctx.body = { outside: true };
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    access,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Reply {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; message: string; details: Record<string, unknown> } };
  headers: Headers;
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; ip?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.ip) headers["X-Forwarded-For"] = options.ip;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let parsed: Reply["body"];
  try {
    parsed = text === "" ? {} : JSON.parse(text);
  } catch {
    parsed = { text };
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

/** A clock the test moves by hand. */
export function manualClock(startMs: number): {
  now: () => Date;
  set(ms: number): void;
  advance(ms: number): void;
  ms(): number;
} {
  let current = startMs;
  return {
    now: () => new Date(current),
    set: (ms) => void (current = ms),
    advance: (ms) => void (current += ms),
    ms: () => current,
  };
}
