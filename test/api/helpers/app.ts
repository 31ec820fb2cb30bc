import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ethers } from "hardhat";
import { Wallet } from "ethers";
import { createApp, type AppDeps, type NapApp } from "../../../api/src/app";
import { createChainAccess, type ChainAccess, type RpcProvider } from "../../../api/src/chain";
import type { Deployment } from "../../../api/src/chain/deployment";
import { loadConfig, type Config } from "../../../api/src/config";
import { createLogger } from "../../../api/src/logger";
import type { RateLimitBackend } from "../../../api/src/doors/live/rateLimit";
import { createMemoryStore } from "../../../api/src/store/memory";
import type { Stores } from "../../../api/src/store";

/** A real app on an ephemeral loopback port, on the in-process Hardhat chain unless another chain is given. */
export interface TestApp {
  url: string;
  app: NapApp;
  store: Stores;
  config: Config;
  server: Server;
  close(): Promise<void>;
}

export interface TestAppOptions {
  store?: Stores;
  env?: Record<string, string>;
  chain?: ChainAccess;
  deployment?: Deployment | null;
  rateLimitBackend?: RateLimitBackend;
  clock?: () => Date;
  extra?: Partial<AppDeps>;
}

export async function hardhatChain(deployment: Deployment | null = null): Promise<ChainAccess> {
  const provider = ethers.provider as unknown as RpcProvider;
  const chainId = Number((await ethers.provider.getNetwork()).chainId);
  // The tests mine blocks themselves and read right after: the head asks for the latest block every time.
  return createChainAccess(provider, chainId, deployment, { head: { latestTtlMs: 0 } });
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    RATE_LIMITS_DISABLED: "true",
    LOG_LEVEL: "silent",
    PUBLIC_URL: "http://api.nap.test",
    ...options.env,
  });
  const store = options.store ?? createMemoryStore();
  const chain = options.chain ?? (await hardhatChain(options.deployment ?? null));
  const app = createApp({
    config,
    logger: createLogger(config.logLevel),
    stores: store,
    chain,
    rateLimitBackend: options.rateLimitBackend,
    clock: options.clock,
    ...options.extra,
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const detach = app.attachSockets(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    store,
    config,
    server,
    async close() {
      await detach();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.closeResources();
    },
  };
}

export interface JsonResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export async function request<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // non-JSON body (e.g. the docs page) stays text
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

/** Full registration through HTTP with an ethers wallet; returns the API key and the response body. */
export async function registerAgent(
  base: string,
  wallet: Wallet = Wallet.createRandom() as unknown as Wallet,
  fields: Record<string, unknown> = {},
): Promise<{ wallet: Wallet; apiKey: string; agentId: string; body: Record<string, unknown> }> {
  const nonce = await request<{ nonce: string; message: string }>(
    base,
    "GET",
    `/api/v1/agent/auth/nonce?wallet=${wallet.address}`,
  );
  if (nonce.status !== 200) throw new Error(`nonce: ${nonce.status} ${JSON.stringify(nonce.body)}`);
  const signature = await wallet.signMessage(nonce.body.message);
  const response = await request(base, "POST", "/api/v1/agent/auth/register", {
    body: {
      wallet_address: wallet.address,
      signature,
      nonce: nonce.body.nonce,
      agent_name: "test agent",
      operator_address: wallet.address,
      ...fields,
    },
  });
  if (response.status !== 200) throw new Error(`register: ${response.status} ${JSON.stringify(response.body)}`);
  return {
    wallet,
    apiKey: response.body.api_key as string,
    agentId: response.body.agent_id as string,
    body: response.body,
  };
}
