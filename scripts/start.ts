/**
 * `npm start`: the whole system from one command.
 * 1. starts a local chain (`hardhat node` on 127.0.0.1:8545, or LOCAL_RPC_PORT),
 * 2. deploys everything with the deployment entry (`hardhat run scripts/deploy.ts --network localhost`: the Ignition
 *    modules with ignition/parameters/localhost.json5, or DEPLOY_PARAMETERS),
 * 3. serves the agent API (in-memory store unless MONGODB_URI is set) and prints where everything is.
 * Ctrl-C (or SIGTERM) stops the API and the chain.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_SERVER_WALLET_MNEMONIC, RELAYER_PATH } from "../deploy/devWallets";

const RPC_PORT = Number(process.env.LOCAL_RPC_PORT ?? 8545);
const RPC_URL = `http://127.0.0.1:${RPC_PORT}`;
/** Hardhat's CLI run by this Node directly (not through npx), so that stopping the child stops the chain itself. */
const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
const children: ChildProcess[] = [];

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

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

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env });
    children.push(child);
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`)),
    );
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

async function main(): Promise<void> {
  if (await portOpen(RPC_PORT)) {
    throw new Error(`something already listens on 127.0.0.1:${RPC_PORT}; stop it or set LOCAL_RPC_PORT`);
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOCAL_RPC_URL: RPC_URL,
    // Dev-only public mnemonic for the server wallets on the local chain: its relayer is the one localhost.json5 names.
    SERVER_WALLET_MNEMONIC: process.env.SERVER_WALLET_MNEMONIC ?? DEV_SERVER_WALLET_MNEMONIC,
  };

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

  console.log("deploying the system ...");
  await run(process.execPath, [HARDHAT_CLI, "run", "scripts/deploy.ts", "--network", "localhost"], env);
  await checkRelayer(env.SERVER_WALLET_MNEMONIC!);

  // Imported only now: the API uses TypeChain bindings that compilation (above) generates.
  Object.assign(process.env, {
    RPC_URL: process.env.RPC_URL ?? RPC_URL,
    SERVER_WALLET_MNEMONIC: env.SERVER_WALLET_MNEMONIC,
    // The file the deployment above wrote (DEPLOYMENTS_DIR moves it), unless another one is named.
    DEPLOYMENT_FILE: process.env.DEPLOYMENT_FILE ?? deploymentFile(),
  });
  const { loadConfig } = await import("../api/src/config");
  const { createLogger } = await import("../api/src/logger");
  const { startServer } = await import("../api/src/server");
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const api = await startServer(config, logger);

  console.log("");
  console.log(`NAP agent API  ${api.url}`);
  console.log(`API docs       ${api.url}/docs   (OpenAPI: ${api.url}/openapi.json)`);
  console.log(`chain RPC      ${RPC_URL}   (chain id ${api.chain.chainId})`);
  console.log(
    `store          ${config.mongodbUri ? `MongoDB ${config.mongodbDb}` : "in memory (set MONGODB_URI to keep data)"}`,
  );
  console.log("Ctrl-C stops everything.");

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log(`\n${signal}: stopping the API and the local chain ...`);
    const force = setTimeout(() => {
      stopChildren();
      process.exit(1);
    }, 10_000);
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

let shuttingDown = false;

main().catch((error: unknown) => {
  console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
  stopChildren();
  process.exit(1);
});
