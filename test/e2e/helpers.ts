import { Wallet } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import type { MongoStore } from "../../api/src/store/mongo";
import { startTestApp, request, type JsonResponse, type TestApp } from "../api/helpers/app";
import { freshMongoStore, dropMongoStore } from "../api/helpers/mongo";
import { signerSetup, type SignerMode, type SignerSetup } from "../helpers/signerModes";
// With NAP_TRANSCRIPT=<file>, every e2e test's HTTP exchanges are written there (test/helpers/transcript.ts).
import "../helpers/transcript";

/** The public development mnemonic of the project (never for a real chain); the deployment's relayer comes from it. */
export const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";
export const OPERATOR_KEY = "operator-key-e2e-0123456789";

export interface E2eSystem {
  app: TestApp;
  store: MongoStore;
  /** How the service holds the dev server wallets' keys (the mnemonic unless asked otherwise). */
  signer: SignerSetup;
  /** The settings the service was given; with the test app's rate, log and URL settings, all that loadConfig reads. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The API on the in-process Hardhat chain with the deployed system, a MongoDB store and the dev server wallets, held
 * as `signer` says: the mnemonic in the environment, a keystore, or a remote signer (same addresses in every mode).
 */
export async function startE2eApp(
  label: string,
  deployment: Deployment,
  env: Record<string, string> = {},
  signer: SignerMode = "mnemonic",
): Promise<E2eSystem> {
  const store = await freshMongoStore(label);
  const keys = await signerSetup(signer, DEV_MNEMONIC, 16);
  const settings = { ...keys.env, AGENT_API_KEYS: OPERATOR_KEY, ...env };
  const app = await startTestApp({
    store,
    deployment,
    env: settings,
    extra: { engineOptions: { pollIntervalMs: 20 } },
  });
  await app.app.useCases.start();
  return {
    app,
    store,
    signer: keys,
    env: settings,
    async close() {
      await app.app.useCases.settled();
      await app.close();
      await dropMongoStore(store);
      await keys.close();
    },
  };
}

/** An HTTP client bound to one API key. */
export function client(base: string, apiKey: string) {
  return <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse<T>> => request<T>(base, method, path, { body, headers: { "X-API-Key": apiKey, ...headers } });
}

export function randomWallet(): Wallet {
  return Wallet.createRandom() as unknown as Wallet;
}

/**
 * The deployed system served over HTTP JSON-RPC (the in-process Hardhat chain behind Hardhat's own server), so that
 * the API talks to it through the provider it builds in production, with that provider's behaviour (request
 * batching, no hidden answers from a cache), instead of the test process's in-process provider.
 */
export async function serveDeployment(deployment: Deployment): Promise<{
  rpcUrl: string;
  deploymentFile: string;
  close(): Promise<void>;
}> {
  const { serveChain } = await import("../api/tx/chainServer");
  const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const served = await serveChain();
  const dir = mkdtempSync(join(tmpdir(), "nap-e2e-rpc-"));
  const deploymentFile = join(dir, `${deployment.chainId}.json`);
  writeFileSync(deploymentFile, JSON.stringify(deployment));
  return {
    rpcUrl: served.url,
    deploymentFile,
    async close() {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
