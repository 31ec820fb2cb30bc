/**
 * The Base Sepolia rehearsal, with no internet: the runbook of docs/deploy.md played against a local Hardhat node
 * started as chain 84532, with the Base Sepolia parameters and mock USDC code placed at Circle's USDC address. Each
 * step runs the operator's own command as its own process:
 * 1. `npm run deploy`, stopped halfway (the chain stalls, the operator kills the run), then run again: it resumes
 *    from Ignition's journal and deploys no contract twice;
 * 2. `npm run deploy` with three parameters changed: refused, naming them;
 * 3. `npm run deploy:check`: every role, admin, delay and threshold as the table intends;
 * 4. `npm run deploy:verify` in plan mode: what Etherscan (API v2) and Sourcify would be sent;
 * 5. the operator funds the relayer and the faucet, starts the API against the chain, and an agent registers, takes
 *    the faucet's gas, receives USDC (on Base Sepolia: Circle's faucet), deposits, submits a strategy and lists it.
 * Only the key holders differ from ignition/parameters/baseSepolia.json5: fresh keys of the rehearsal's own (the
 * parameter check refuses public development keys off local chains, and the node runs as chain 84532).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readDeploymentParameters } from "@nomicfoundation/hardhat-ignition/helpers";
import { HDNodeWallet, Interface, JsonRpcProvider, Wallet, getAddress, parseEther, parseUnits } from "ethers";
import { deploymentPath, readDeployment, type DeploymentFile } from "./deploymentFile";
import { RELAYER_PATH } from "./devWallets";
import { recordedAddresses } from "./journal";
import {
  BASE_SEPOLIA_CHAIN_ID,
  BASE_SEPOLIA_USDC,
  parametersToJson,
  parseParameters,
  type DeployParameters,
} from "./parameters";

const ROOT = join(__dirname, "..");
const HARDHAT_CLI = require.resolve("hardhat/internal/cli/cli.js");
/** Contracts deployed before the rehearsal stalls the chain and kills the first run. */
const CONTRACTS_BEFORE_THE_STOP = 5;

export interface ProcessResult {
  exitCode: number | null;
  output: string;
}

export interface JourneyStep {
  request: string;
  status: number;
  body: Record<string, unknown>;
}

export interface RehearsalReport {
  parameters: DeployParameters;
  deployer: string;
  /** Ignition's recorded contracts when the first run was killed, and the transactions then still pending. */
  stopped: { recorded: Record<string, string>; pendingTransactions: number };
  /** The completed deployment. */
  file: DeploymentFile;
  resumeOutput: string;
  /** Transactions the deployer sent in all, contracts it created, and their gas. */
  transactions: number;
  contractCreations: number;
  gasUsed: bigint;
  drift: ProcessResult;
  roleCheck: ProcessResult;
  verifyPlan: ProcessResult;
  journey: JourneyStep[];
  /** Transactions and gas of the journey, by who paid for them (the relayer, the agent's wallet, the operator). */
  journeyGas: Record<string, { transactions: number; gas: bigint; to: string[] }>;
}

export interface RehearsalOptions {
  log?: (line: string) => void;
  /** Called while the chain still runs, e.g. to inspect the deployment with `provider`. */
  inspect?: (provider: JsonRpcProvider, report: RehearsalReport) => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/** A child process whose output is kept (and passed on line by line) and which is killed when the run ends. */
class Child {
  readonly process: ChildProcess;
  output = "";
  readonly exited: Promise<number | null>;
  #lineListeners: ((line: string) => void)[] = [];
  #partial = "";

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.process = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      this.output += text;
      const lines = (this.#partial + text).split("\n");
      this.#partial = lines.pop() ?? "";
      for (const line of lines) this.#lineListeners.forEach((listener) => listener(line));
    };
    this.process.stdout!.on("data", take);
    this.process.stderr!.on("data", take);
    this.exited = new Promise((resolve) => this.process.once("exit", (code) => resolve(code)));
  }

  onLine(listener: (line: string) => void): void {
    this.#lineListeners.push(listener);
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill(signal);
    await this.exited;
  }
}

/**
 * The Base Sepolia parameters with the rehearsal's key holders, all fresh: the relayer is m/44'/60'/0'/0/0 of
 * `serverMnemonic` (the API's), the guardians, oracles and proposal guardian random keys that never sign here.
 * Every other value is the file's.
 */
export async function rehearsalParameters(serverMnemonic: string): Promise<DeployParameters> {
  const file = join(ROOT, "ignition", "parameters", "baseSepolia.json5");
  const raw = (await readDeploymentParameters(file)) as Record<string, Record<string, unknown>>;
  const fresh = () => Wallet.createRandom().address;
  return parseParameters(
    {
      ...raw,
      Governance: { ...raw.Governance, proposalGuardian: fresh() },
      Roles: {
        relayer: HDNodeWallet.fromPhrase(serverMnemonic, undefined, RELAYER_PATH).address,
        guardians: [fresh(), fresh(), fresh()],
        oracles: [fresh(), fresh(), fresh()],
      },
    },
    `${file} (rehearsal key holders)`,
  );
}

export async function rehearseBaseSepolia(options: RehearsalOptions = {}): Promise<RehearsalReport> {
  const log = options.log ?? (() => undefined);
  const work = mkdtempSync(join(tmpdir(), "nap-rehearsal-"));
  const children: Child[] = [];
  const start = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const child = new Child(args, { ...process.env, ...env });
    children.push(child);
    return child;
  };
  let provider: JsonRpcProvider | undefined;
  try {
    log("compile");
    const compiled = await start([HARDHAT_CLI, "compile", "--quiet"]).exited;
    if (compiled !== 0) throw new Error("compilation failed");

    // 0. A local node as chain 84532 with mock USDC code at Circle's address.
    const rpcPort = await freePort();
    const rpcUrl = `http://127.0.0.1:${rpcPort}`;
    start([HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", String(rpcPort)], {
      HARDHAT_CHAIN_ID: String(BASE_SEPOLIA_CHAIN_ID),
    });
    provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const rpc = provider;
    await until("hardhat node", 120_000, async () => (await rpc.getNetwork()).chainId);
    const mockUsdc = JSON.parse(
      readFileSync(join(ROOT, "artifacts/contracts/test/MockUSDC.sol/MockUSDC.json"), "utf8"),
    ) as { deployedBytecode: string };
    await rpc.send("hardhat_setCode", [BASE_SEPOLIA_USDC, mockUsdc.deployedBytecode]);
    const accounts = ((await rpc.send("eth_accounts", [])) as string[]).map((account) => getAddress(account));
    const deployer = accounts[0];
    log(`chain ${BASE_SEPOLIA_CHAIN_ID} at ${rpcUrl}; mock USDC code at Circle's ${BASE_SEPOLIA_USDC}`);

    const serverMnemonic = Wallet.createRandom().mnemonic!.phrase;
    const parameters = await rehearsalParameters(serverMnemonic);
    const parametersFile = join(work, "baseSepolia.rehearsal.json");
    writeFileSync(parametersFile, parametersToJson(parameters));
    log(
      `parameters: ignition/parameters/baseSepolia.json5 with key holders relayer ${parameters.Roles.relayer}, ` +
        `guardians ${parameters.Roles.guardians.join(" ")}, oracles ${parameters.Roles.oracles.join(" ")}, ` +
        `proposal guardian ${parameters.Governance.proposalGuardian}`,
    );
    const journalDir = join(work, "ignition", `chain-${BASE_SEPOLIA_CHAIN_ID}`);
    const outDir = join(work, "deployments");
    const deployEnv = {
      LOCAL_RPC_URL: rpcUrl,
      DEPLOY_PARAMETERS: parametersFile,
      DEPLOY_JOURNAL_DIR: journalDir,
      DEPLOYMENTS_DIR: outDir,
    };
    const hardhatRun = (script: string, env: NodeJS.ProcessEnv = {}) =>
      start([HARDHAT_CLI, "run", script, "--network", "localhost"], { ...deployEnv, ...env });
    const finish = async (child: Child): Promise<ProcessResult> => ({
      exitCode: await child.exited,
      output: child.output,
    });

    // 1. The first run stops halfway: the chain stalls (transactions stay pending) and the operator kills the run.
    log(`npm run deploy -- --network localhost   (stopped after ${CONTRACTS_BEFORE_THE_STOP} contracts)`);
    const first = hardhatRun("scripts/deploy.ts");
    let deployed = 0;
    let stalled = false;
    let lastLineAt = Date.now();
    let sentWhileStalled = 0;
    first.onLine((line) => {
      lastLineAt = Date.now();
      if (line.startsWith("deploy  ")) deployed++;
      if (stalled && line.startsWith("send    ")) sentWhileStalled++;
      if (!stalled && deployed >= CONTRACTS_BEFORE_THE_STOP) {
        stalled = true;
        void rpc.send("evm_setAutomine", [false]);
      }
    });
    await until("the first run to send into the stalled chain", 180_000, async () =>
      sentWhileStalled > 0 && Date.now() - lastLineAt > 1_500
        ? true
        : first.process.exitCode !== null
          ? true
          : undefined,
    );
    if (first.process.exitCode !== null) throw new Error(`the first run ended before it was stopped:\n${first.output}`);
    await first.stop("SIGKILL");
    const pendingTransactions =
      (await rpc.getTransactionCount(deployer, "pending")) - (await rpc.getTransactionCount(deployer, "latest"));
    const recorded = recordedAddresses(journalDir);
    log(
      `killed the run: ${Object.keys(recorded).length} contracts recorded in the journal, ${pendingTransactions} ` +
        "transaction(s) pending",
    );
    await rpc.send("evm_setAutomine", [true]);
    await rpc.send("evm_mine", []);

    // The second run resumes from the journal.
    log("npm run deploy -- --network localhost   (again: resumes)");
    const resumed = await finish(hardhatRun("scripts/deploy.ts"));
    if (resumed.exitCode !== 0) throw new Error(`the resumed run failed:\n${resumed.output}`);
    const file = readDeployment(outDir, BASE_SEPOLIA_CHAIN_ID);
    if (!file) throw new Error(`no ${deploymentPath(outDir, BASE_SEPOLIA_CHAIN_ID)} after the resumed run`);
    let contractCreations = 0;
    let gasUsed = 0n;
    const latest = await rpc.getBlockNumber();
    for (let number = 0; number <= latest; number++) {
      const block = await rpc.getBlock(number, true);
      for (const tx of block!.prefetchedTransactions) {
        if (getAddress(tx.from) !== deployer) continue;
        if (tx.to === null) contractCreations++;
        gasUsed += (await rpc.getTransactionReceipt(tx.hash))!.gasUsed;
      }
    }
    const transactions = await rpc.getTransactionCount(deployer, "latest");
    log(`deployed: ${transactions} transactions, ${contractCreations} contracts created, ${gasUsed} gas`);

    // 2. Three parameters changed after the deployment: the run refuses, naming them.
    const driftedFile = join(work, "baseSepolia.drifted.json");
    writeFileSync(
      driftedFile,
      parametersToJson({
        ...parameters,
        Governance: { ...parameters.Governance, timelockMinDelay: 7_200 },
        Registry: { ...parameters.Registry, minPaperTradingPeriod: 3_600 },
        Faucet: { ...parameters.Faucet, ethAmount: parseEther("0.002") },
      }),
    );
    log(
      "npm run deploy -- --network localhost   (Governance.timelockMinDelay, Registry.minPaperTradingPeriod, Faucet.ethAmount changed)",
    );
    const drift = await finish(hardhatRun("scripts/deploy.ts", { DEPLOY_PARAMETERS: driftedFile }));

    // 3. The role check.
    log("npm run deploy:check -- --network localhost");
    const roleCheck = await finish(hardhatRun("scripts/deploy-check.ts"));

    // 4. What verification would send (no explorer is reachable here).
    log("DEPLOY_VERIFY_PLAN=1 npm run deploy:verify -- --network localhost");
    const verifyPlan = await finish(hardhatRun("scripts/deploy-verify.ts", { DEPLOY_VERIFY_PLAN: "1" }));

    // 5. The operator funds the relayer (gas of every agent transaction) and the faucet (ETH drips).
    const deployerSigner = await rpc.getSigner(deployer);
    for (const [what, to, value] of [
      ["relayer", parameters.Roles.relayer, parseEther("1")],
      ["faucet", file.contracts.NapFaucet!.address, parseEther("0.1")],
    ] as const) {
      await (await deployerSigner.sendTransaction({ to, value })).wait();
      log(`funded the ${what} ${to} with ${value} wei`);
    }

    const report: RehearsalReport = {
      parameters,
      deployer,
      stopped: { recorded, pendingTransactions },
      file,
      resumeOutput: resumed.output,
      transactions,
      contractCreations,
      gasUsed,
      drift,
      roleCheck,
      verifyPlan,
      journey: [],
      journeyGas: {},
    };

    // The API against the chain, as docs/deploy.md runs it against Base Sepolia.
    const apiPort = await freePort();
    const api = `http://127.0.0.1:${apiPort}`;
    log(`API on ${api} (RPC_URL ${rpcUrl}, CHAIN_ID 84532, DEPLOYMENT_FILE ${deploymentPath(outDir, 84532)})`);
    const apiProcess = start(["-r", "ts-node/register/transpile-only", "api/src/main.ts"], {
      HOST: "127.0.0.1",
      PORT: String(apiPort),
      RPC_URL: rpcUrl,
      CHAIN_ID: String(BASE_SEPOLIA_CHAIN_ID),
      DEPLOYMENT_FILE: deploymentPath(outDir, BASE_SEPOLIA_CHAIN_ID),
      SERVER_WALLET_MNEMONIC: serverMnemonic,
      LOG_LEVEL: "warn",
      MONGODB_URI: "",
      REDIS_URL: "",
    });
    await until("the API", 120_000, async () => {
      if (apiProcess.process.exitCode !== null) throw new Error(`the API exited:\n${apiProcess.output}`);
      return (await fetch(`${api}/health`)).ok || undefined;
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${apiProcess.output}`);
    });
    const journeyFrom = (await rpc.getBlockNumber()) + 1;
    report.journey = await agentJourney(api, rpc, deployer, log);
    const names = new Map<string, string>([
      ...Object.entries(file.contracts).map(([name, entry]) => [entry.address, name] as [string, string]),
      ...Object.entries(file.vaults).map(([id, entry]) => [entry.address, `vault ${id}`] as [string, string]),
      [BASE_SEPOLIA_USDC, "USDC"],
    ]);
    const payers = new Map([
      [parameters.Roles.relayer, "relayer"],
      [deployer, "operator (Circle's faucet stand-in)"],
    ]);
    for (let number = journeyFrom; number <= (await rpc.getBlockNumber()); number++) {
      for (const tx of (await rpc.getBlock(number, true))!.prefetchedTransactions) {
        const payer = payers.get(getAddress(tx.from)) ?? "agent";
        const entry = report.journeyGas[payer] ?? { transactions: 0, gas: 0n, to: [] };
        entry.transactions++;
        entry.to.push(names.get(getAddress(tx.to ?? "")) ?? tx.to ?? "a new contract");
        entry.gas += (await rpc.getTransactionReceipt(tx.hash))!.gasUsed;
        report.journeyGas[payer] = entry;
      }
    }
    for (const [payer, { transactions: count, gas, to }] of Object.entries(report.journeyGas)) {
      log(`journey gas: ${payer} ${count} transaction(s) to ${to.join(", ")}, ${gas} gas`);
    }
    await options.inspect?.(rpc, report);
    return report;
  } finally {
    provider?.destroy();
    for (const child of children.reverse()) await child.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** register, wallet, faucet, USDC, deposit, submit, list: the requests an agent makes, with the answers. */
async function agentJourney(
  api: string,
  rpc: JsonRpcProvider,
  deployer: string,
  log: (line: string) => void,
): Promise<JourneyStep[]> {
  const steps: JourneyStep[] = [];
  const call = async (method: string, path: string, body?: unknown, apiKey?: string) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(apiKey ? { "X-API-Key": apiKey } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const step = {
      request: `${method} ${path}`,
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
    };
    steps.push(step);
    log(`${step.request} -> ${step.status} ${JSON.stringify(step.body)}`);
    return step;
  };

  const agent = Wallet.createRandom();
  const nonce = await call("GET", `/api/v1/agent/auth/nonce?wallet=${agent.address}`);
  const registered = await call("POST", "/api/v1/agent/auth/register", {
    wallet_address: agent.address,
    signature: await agent.signMessage(nonce.body.message as string),
    nonce: nonce.body.nonce,
    agent_name: "rehearsal agent",
    operator_address: agent.address,
  });
  const apiKey = registered.body.api_key as string;
  const wallet = await call("GET", "/api/v1/agent/wallet", undefined, apiKey);
  const agentAddress = wallet.body.agent_address as string;
  await call("POST", "/api/v1/agent/faucet", undefined, apiKey);

  // On Base Sepolia the faucet gives no USDC: the agent's operator requests Circle's testnet USDC for the agent's
  // address (https://faucet.circle.com). Here the mock USDC's open mint stands in for Circle's faucet.
  const usdc = new Interface(["function mint(address to, uint256 amount)"]);
  const minted = await (
    await (
      await rpc.getSigner(deployer)
    ).sendTransaction({
      to: BASE_SEPOLIA_USDC,
      data: usdc.encodeFunctionData("mint", [agentAddress, parseUnits("100", 6)]),
    })
  ).wait();
  log(`Circle's faucet (mock): 100 USDC to ${agentAddress} in tx ${minted!.hash}`);

  await call("POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 25 }, apiKey);
  await call(
    "POST",
    "/api/v1/agent/strategy/submit",
    { name: "rehearsal momentum", description: "a strategy submitted in the Base Sepolia rehearsal" },
    apiKey,
  );
  await call("GET", "/api/v1/agent/strategy/list", undefined, apiKey);
  await call("GET", "/api/v1/agent/wallet", undefined, apiKey);
  return steps;
}
