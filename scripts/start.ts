/**
 * `npm start`: the whole system from one command.
 * 1. checks the ports it needs (LOCAL_RPC_PORT, PORT, METRICS_PORT) and the API's settings, before anything starts,
 * 2. starts a local chain (`hardhat node` on 127.0.0.1:8545, or LOCAL_RPC_PORT),
 * 3. deploys everything with the deployment entry (`hardhat run scripts/deploy.ts --network localhost`: the Ignition
 *    modules with ignition/parameters/localhost.json5, or DEPLOY_PARAMETERS); its output is shown only if it fails,
 * 4. serves the agent API (in-memory store unless MONGODB_URI is set) through ts-node, and prints one banner with
 *    every door. `npm run serve` runs the compiled API alone (docs/operations.md).
 * Ctrl-C (or SIGTERM) stops the API gracefully, then the chain. Exit code 2: a bad setting or a busy port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_SERVER_WALLET_MNEMONIC, RELAYER_PATH } from "../deploy/devWallets";
import { ConfigError, loadConfig, type Config } from "../api/src/config";
import { busyPortMessage, findBusyPort, servicePorts } from "../api/src/ports";

const RPC_PORT = Number(process.env.LOCAL_RPC_PORT ?? 8545);
const RPC_URL = `http://127.0.0.1:${RPC_PORT}`;
/** The metrics listener's port under `npm start` unless METRICS_PORT says otherwise (Prometheus exporters' usual). */
const DEFAULT_METRICS_PORT = "9464";
/** Hardhat's CLI run by this Node directly (not through npx), so that stopping the child stops the chain itself. */
const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
const children: ChildProcess[] = [];
let shuttingDown = false;

/** A bad setting or a busy port: named, and nothing started. */
class SetupError extends Error {}

async function rpcReady(): Promise<boolean> {
  try {
    const response = await fetch(RPC_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/** Runs a command to its end; its output is kept and shown only when it fails. */
function runQuietly(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env });
    children.push(child);
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) return resolve();
      process.stderr.write(Buffer.concat(output));
      reject(new Error(`${args.slice(1).join(" ")} exited with ${code}`));
    });
  });
}

function stopChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.pid !== undefined) child.kill("SIGTERM");
  }
}

/** Where scripts/deploy.ts writes the local chain's deployment. */
const deploymentFile = () => join(process.env.DEPLOYMENTS_DIR ?? "deployments", "31337.json");

/**
 * The API signs as the relayer of SERVER_WALLET_MNEMONIC; the deployment gave its roles to the parameters' relayer.
 * A mnemonic of one's own needs parameters naming its relayer (DEPLOY_PARAMETERS), or nothing the relayer does works.
 */
async function checkRelayer(mnemonic: string): Promise<void> {
  const { HDNodeWallet } = await import("ethers");
  const deployed = JSON.parse(readFileSync(deploymentFile(), "utf8")) as {
    roles: { relayer: string };
  };
  const relayer = HDNodeWallet.fromPhrase(mnemonic, undefined, RELAYER_PATH).address;
  if (relayer !== deployed.roles.relayer) {
    throw new Error(
      `SERVER_WALLET_MNEMONIC's relayer ${relayer} is not the deployment's relayer ${deployed.roles.relayer}: ` +
        "set DEPLOY_PARAMETERS to a parameters file whose Roles.relayer is it (docs/deploy.md)",
    );
  }
}

/** The API's environment under `npm start`: the local chain, its deployment, the dev wallets, a metrics port. */
function apiEnvironment(): NodeJS.ProcessEnv {
  return {
    RPC_URL: process.env.RPC_URL ?? RPC_URL,
    // Dev-only public mnemonic for the server wallets on the local chain: its relayer is the one localhost.json5 names.
    SERVER_WALLET_MNEMONIC: process.env.SERVER_WALLET_MNEMONIC ?? DEV_SERVER_WALLET_MNEMONIC,
    // The file the deployment writes (DEPLOYMENTS_DIR moves it), unless another one is named.
    DEPLOYMENT_FILE: process.env.DEPLOYMENT_FILE ?? deploymentFile(),
    METRICS_PORT: process.env.METRICS_PORT ?? DEFAULT_METRICS_PORT,
    // The banner says where everything is; set LOG_LEVEL=info for one line per request.
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  };
}

/** The API's settings, and every port checked free, before the chain starts. */
async function checkSetup(): Promise<Config> {
  let config: Config;
  try {
    config = loadConfig({ ...process.env, ...apiEnvironment() });
  } catch (error) {
    if (error instanceof ConfigError) throw new SetupError(error.message);
    throw error;
  }
  const busy = await findBusyPort([
    { setting: "LOCAL_RPC_PORT", host: "127.0.0.1", port: RPC_PORT },
    ...servicePorts(config),
  ]);
  if (busy) throw new SetupError(busyPortMessage(busy));
  return config;
}

/** The one banner: every door with its URL, then the chain and the store. */
function banner(doors: { door: string; url: string }[], chainId: number, config: Config): string {
  const width = Math.max(...doors.map(({ door }) => door.length), "chain RPC".length) + 2;
  const line = (name: string, value: string) => `  ${name.padEnd(width)}${value}`;
  return [
    "",
    "NAP is running",
    ...doors.map(({ door, url }) => line(door, url)),
    line("chain RPC", `${RPC_URL}  (chain id ${chainId})`),
    line("store", config.mongodbUri ? `MongoDB ${config.mongodbDb}` : "in memory (set MONGODB_URI to keep data)"),
    "Ctrl-C stops everything.",
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  await checkSetup();
  const env: NodeJS.ProcessEnv = { ...process.env, ...apiEnvironment(), LOCAL_RPC_URL: RPC_URL };

  console.log(`starting the local chain on ${RPC_URL} ...`);
  const node = spawn(process.execPath, [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", String(RPC_PORT)], {
    stdio: ["ignore", "ignore", "inherit"],
    env,
  });
  children.push(node);
  node.once("exit", (code) => {
    if (!shuttingDown) {
      console.error(`the local chain stopped (exit ${code}); stopping`);
      stopChildren();
      process.exit(1);
    }
  });
  const deadline = Date.now() + 120_000;
  while (!(await rpcReady())) {
    if (Date.now() > deadline) throw new Error("the local chain did not answer within 120 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  console.log("compiling and deploying the contracts ...");
  await runQuietly(process.execPath, [HARDHAT_CLI, "run", "scripts/deploy.ts", "--network", "localhost"], env);
  await checkRelayer(env.SERVER_WALLET_MNEMONIC!);

  console.log("starting the API ...");
  Object.assign(process.env, apiEnvironment());
  // Imported only now: the API uses TypeChain bindings that compilation (above) generates.
  const { createLogger } = await import("../api/src/logger");
  const { doorUrls, startServer } = await import("../api/src/server");
  const config = loadConfig();
  const api = await startServer(config, createLogger(config.logLevel));
  console.log(banner(doorUrls(api.url, api.metricsUrl), api.chain.chainId, config));

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log(`\n${signal}: stopping the API and the local chain ...`);
    const force = setTimeout(() => {
      stopChildren();
      process.exit(1);
    }, config.shutdownTimeoutMs + 5_000);
    force.unref();
    api
      .close()
      .catch((error: unknown) => console.error("API shutdown failed:", error))
      .finally(() => {
        stopChildren();
        process.exit(0);
      });
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  stopChildren();
  process.exit(error instanceof SetupError ? 2 : 1);
});
