/**
 * The deployment entry: deploys and wires the whole system with Hardhat Ignition (ignition/modules/system.ts) from a
 * network's parameters, writes deployments/<chainId>.json from Ignition's result, then audits the chain against the
 * intended role table (deploy/roleTable.ts). An interrupted run resumes from Ignition's journal; a run whose
 * parameters changed since the deployment started stops and names them; a complete deployment sends nothing.
 */
import { errorDeploymentResultToExceptionMessage } from "@nomicfoundation/hardhat-ignition/helpers";
import {
  DeploymentResultType,
  ExecutionEventResultType,
  deploy,
  listTransactions,
  type DeployConfig,
  type ExecutionEventListener,
} from "@nomicfoundation/ignition-core";
import { getAddress, type Provider } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { systemModule } from "../ignition/modules/system";
import { DeploymentArtifactResolver } from "./artifacts";
import { auditDeployment } from "./audit";
import { deployerAccess } from "./deployer";
import { writeDeployment, type ContractName, type DeployedAt, type DeploymentFile } from "./deploymentFile";
import { assertParametersUnchanged, recordParameters, wipeStaleJournal } from "./journal";
import { checkParameters, isLocalChain, type DeployParameters } from "./parameters";
import { VAULT_IDS, type VaultId } from "./vaults";

export interface DeploySystemOptions {
  hre: HardhatRuntimeEnvironment;
  parameters: DeployParameters;
  /** Ignition's deployment folder: journal, deployed addresses and the parameters record. */
  journalDir: string;
  /** Folder of <chainId>.json. */
  outDir: string;
  /** Progress lines (steps and addresses; never keys). */
  log?: (line: string) => void;
  /** Where a public network's deployer key comes from (default: the DEPLOYER_PRIVATE_KEY configuration variable). */
  deployerKey?: () => string | undefined;
}

/** Thrown when a run is refused or fails; the message names what to fix (Ignition's own words for its refusals). */
export class DeploymentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeploymentError";
  }
}

/** Ignition's execution settings: a local automining chain is polled often, a public one as Ignition advises. */
function ignitionConfig(local: boolean): Partial<DeployConfig> {
  return local ? { blockPollingInterval: 25, requiredConfirmations: 1 } : {};
}

/** Prints one line per transaction Ignition sends and per step it completes. */
function progressListener(log: (line: string) => void): ExecutionEventListener {
  const handlers: Partial<ExecutionEventListener> = {
    deploymentStart: (event) => {
      if (event.isResumed) log(`resume  ${event.deploymentDir} (steps already done are not sent again)`);
    },
    transactionSend: (event) => log(`send    ${event.futureId} tx ${event.hash}`),
    deploymentExecutionStateComplete: (event) => {
      if (event.result.type === ExecutionEventResultType.SUCCESS)
        log(`deploy  ${event.futureId} at ${event.result.result}`);
    },
    callExecutionStateComplete: (event) => {
      if (event.result.type === ExecutionEventResultType.SUCCESS) log(`done    ${event.futureId}`);
    },
    sendDataExecutionStateComplete: (event) => {
      if (event.result.type === ExecutionEventResultType.SUCCESS) log(`done    ${event.futureId}`);
    },
    reconciliationWarnings: (event) => event.warnings.forEach((warning) => log(`WARNING ${warning}`)),
  };
  // Ignition calls one method per event type; the ones not listed above have nothing to print.
  return new Proxy(handlers, {
    get: (target, name: string) => target[name as keyof ExecutionEventListener] ?? (() => undefined),
  }) as ExecutionEventListener;
}

/** The journal's transactions on chain: each deployed contract's creation block, and the gas of all of them. */
async function journaledTransactions(journalDir: string, provider: Provider, resolver: DeploymentArtifactResolver) {
  const creationBlocks = new Map<string, number>();
  let gasUsed = 0n;
  const transactions = await listTransactions(journalDir, resolver);
  for (const tx of transactions) {
    const receipt = await provider.getTransactionReceipt(tx.txHash);
    if (!receipt) throw new Error(`no receipt for ${tx.txHash} (${tx.type} ${tx.name ?? ""}) of ${journalDir}`);
    gasUsed += receipt.gasUsed;
    if (tx.address !== undefined) creationBlocks.set(getAddress(tx.address), receipt.blockNumber);
  }
  return { creationBlocks, gasUsed, count: transactions.length };
}

/**
 * Deploys (or resumes, or confirms) the system for the parameters, writes the deployment file and audits the chain.
 * Returns the deployment file; throws on a refused run (parameters, drift, Ignition's reconciliation), a failed
 * transaction, or an audit difference, naming what to fix.
 */
export async function deploySystem(options: DeploySystemOptions): Promise<DeploymentFile> {
  const { hre, parameters: p, journalDir } = options;
  const log = options.log ?? (() => undefined);
  const provider = hre.ethers.provider;
  const chainId = Number((await provider.getNetwork()).chainId);
  const local = isLocalChain(chainId);
  const { provider: signing, accounts } = await deployerAccess(hre.network, options.deployerKey);
  const deployer = getAddress(accounts[0]);
  await wipeStaleJournal(provider, journalDir, local, log);
  await assertParametersUnchanged(journalDir, p);
  for (const warning of checkParameters(p, chainId, deployer)) log(`WARNING ${warning}`);
  if (p.Tokens.usdc !== undefined && (await provider.getCode(p.Tokens.usdc)) === "0x") {
    throw new DeploymentError(`Tokens.usdc: no contract at ${p.Tokens.usdc} on chain ${chainId}`);
  }
  recordParameters(journalDir, p);

  log(`deploying to ${hre.network.name} (chain ${chainId}) from ${deployer}; journal ${journalDir}`);
  const resolver = new DeploymentArtifactResolver(hre);
  const system = systemModule(p);
  const result = await deploy({
    config: ignitionConfig(local),
    artifactResolver: resolver,
    provider: signing,
    executionEventListener: progressListener(log),
    deploymentDir: journalDir,
    ignitionModule: system,
    deploymentParameters: {},
    accounts,
    defaultSender: deployer,
  });
  if (result.type !== DeploymentResultType.SUCCESSFUL_DEPLOYMENT) {
    throw new DeploymentError(errorDeploymentResultToExceptionMessage(result));
  }

  const journaled = await journaledTransactions(journalDir, provider, resolver);
  log(`journal: ${journaled.count} transactions, ${journaled.gasUsed} gas`);
  // Ignition reports each contract under its future id (`Tokens#NapToken`); the module's results name them.
  const futures: Record<string, { id: string }> = system.results;
  const at = (key: string): DeployedAt => {
    const address = getAddress(result.contracts[futures[key].id].address);
    const block = journaled.creationBlocks.get(address);
    if (block === undefined) throw new Error(`no creation transaction for ${key} at ${address} in ${journalDir}`);
    return { address, block };
  };
  const names: ContractName[] = [
    ...(p.Tokens.usdc === undefined ? (["TestUSDC"] as const) : []),
    "NapToken",
    "NapMinter",
    "TimelockController",
    "NapGovernor",
    "StrategyRegistryV3",
    "NapFaucet",
    "AgentBadges",
    "VaultLens",
    "NapRouter",
  ];
  const contracts = Object.fromEntries(names.map((name) => [name, at(name)])) as DeploymentFile["contracts"];
  const vaults = Object.fromEntries(VAULT_IDS.map((id) => [id, at(id)])) as Record<VaultId, DeployedAt>;
  const timelock = contracts.TimelockController!.address;
  const file = writeDeployment(
    options.outDir,
    {
      chainId,
      network: hre.network.name,
      deployer,
      updatedAt: new Date().toISOString(),
      usdc: {
        address: p.Tokens.usdc ?? contracts.TestUSDC!.address,
        deployedByUs: p.Tokens.usdc === undefined,
      },
      contracts,
      vaults,
      roles: {
        admin: timelock,
        relayer: p.Roles.relayer,
        guardians: p.Roles.guardians,
        oracles: p.Roles.oracles,
        proposalGuardian: p.Governance.proposalGuardian,
      },
    },
    log,
  );

  const audit = await auditDeployment(provider, file, p);
  if (audit.differences.length > 0) {
    throw new DeploymentError(
      `the chain differs from the intended roles and settings (docs/deploy.md):\n` +
        audit.differences.map((difference) => `  ${difference}`).join("\n"),
    );
  }
  log(`checked ${audit.checked} roles and settings on chain: as intended`);
  return file;
}
