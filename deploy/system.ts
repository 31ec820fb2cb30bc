/**
 * The deployment entry: deploys and wires the whole system in order, then writes deployments/<chainId>.json, the file
 * the API reads. Re-running it deploys nothing that already exists (each recorded address must still hold code) and
 * sends no transaction when every role and balance is already in place.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Signer } from "ethers";
import {
  AgentBadges__factory,
  IAccessControl__factory,
  NapFaucet__factory,
  NapGovernor__factory,
  NapMinter__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
  TimelockController__factory,
} from "../typechain-types";
import { VAULT_IDS, deployLens, deployVaults, vaultConfigs, vaultConstructorArgs, type VaultId } from "./vaults";
import { EXIT_MARGIN_SECONDS, type SystemSettings } from "./settings";

export interface DeployedAt {
  address: string;
  block: number;
}

/** Names of the contracts listed under `contracts` in the deployment file. */
export const CONTRACT_NAMES = [
  "TestUSDC",
  "NapToken",
  "NapMinter",
  "TimelockController",
  "NapGovernor",
  "StrategyRegistryV3",
  "NapFaucet",
  "AgentBadges",
  "VaultLens",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

/** deployments/<chainId>.json (the format shared with the API). */
export interface DeploymentFile {
  chainId: number;
  network: string;
  deployer: string;
  updatedAt: string;
  usdc: { address: string; deployedByUs: boolean };
  contracts: Partial<Record<ContractName, DeployedAt>>;
  vaults: Record<VaultId, DeployedAt>;
  roles: {
    admin: string;
    relayer: string;
    guardians: string[];
    oracles: string[];
    /** The governor's proposal guardian (may cancel any proposal before it executes). */
    proposalGuardian: string;
  };
}

export interface DeploySystemOptions {
  deployer: Signer;
  settings: SystemSettings;
  /** Directory that holds <chainId>.json (default: deployments). */
  outDir?: string;
  /** Progress lines (addresses and steps; never keys). */
  log?: (line: string) => void;
  /** Called after each contract deployed in this run, e.g. to verify it on Basescan. */
  onDeployed?: (name: string, address: string, constructorArguments: unknown[]) => Promise<void>;
}

const DEFAULT_ADMIN_ROLE = "0x" + "00".repeat(32);

export function deploymentPath(outDir: string, chainId: number): string {
  return join(outDir, `${chainId}.json`);
}

/** Reads the deployment file of `chainId`, or undefined if there is none (or it is for another chain). */
export function readDeployment(outDir: string, chainId: number): DeploymentFile | undefined {
  const path = deploymentPath(outDir, chainId);
  if (!existsSync(path)) return undefined;
  const parsed = JSON.parse(readFileSync(path, "utf8")) as DeploymentFile;
  return parsed.chainId === chainId ? parsed : undefined;
}

/**
 * Deploys (or reuses) every contract, wires the roles, funds the faucet and the relayer on local chains, hands the
 * admin roles to the timelock, and writes the deployment file. Returns what it wrote.
 */
export async function deploySystem(options: DeploySystemOptions): Promise<DeploymentFile> {
  const { deployer, settings } = options;
  const outDir = options.outDir ?? "deployments";
  const log = options.log ?? (() => undefined);
  for (const warning of settings.warnings) log(`WARNING ${warning}`);
  const provider = deployer.provider;
  if (!provider) throw new Error("The deployer signer needs a provider");
  const chainId = Number((await provider.getNetwork()).chainId);
  if (chainId !== settings.chainId)
    throw new Error(`Connected to chain ${chainId}, settings are for ${settings.chainId}`);
  const deployerAddress = await deployer.getAddress();
  const previous = readDeployment(outDir, chainId);

  /** A recorded address is reused only if it still holds code (a restarted local node has none). */
  async function recorded(entry: DeployedAt | undefined, what: string): Promise<DeployedAt | undefined> {
    if (!entry) return undefined;
    if ((await provider!.getCode(entry.address)) !== "0x") {
      log(`reuse   ${what} at ${entry.address} (block ${entry.block})`);
      return entry;
    }
    log(`${what}: no code at the recorded ${entry.address}; deploying it again`);
    return undefined;
  }

  async function ensure(
    name: string,
    entry: DeployedAt | undefined,
    args: unknown[],
    deploy: () => Promise<{
      getAddress(): Promise<string>;
      deploymentTransaction(): { wait(): Promise<unknown> } | null;
    }>,
  ): Promise<DeployedAt> {
    const existing = await recorded(entry, name);
    if (existing) return existing;
    const contract = await deploy();
    const receipt = (await contract.deploymentTransaction()!.wait()) as {
      blockNumber: number;
    } | null;
    if (!receipt) throw new Error(`${name}: deployment receipt missing`);
    const address = await contract.getAddress();
    log(`deploy  ${name} at ${address} (block ${receipt.blockNumber})`);
    await options.onDeployed?.(name, address, args);
    return { address, block: receipt.blockNumber };
  }

  const contracts: Partial<Record<ContractName, DeployedAt>> = {};
  const was = previous?.contracts ?? {};

  // 1. USDC: Circle's (or any given) token, or our TestUSDC.
  let usdc: string;
  if (settings.usdc) {
    if ((await provider.getCode(settings.usdc)) === "0x")
      throw new Error(`No contract at USDC address ${settings.usdc}`);
    usdc = settings.usdc;
    log(`use     USDC at ${usdc}`);
  } else {
    contracts.TestUSDC = await ensure("TestUSDC", was.TestUSDC, [deployerAddress], () =>
      new TestUSDC__factory(deployer).deploy(deployerAddress),
    );
    usdc = contracts.TestUSDC.address;
  }

  // 2. Governance: token, timelock (deployer is its admin until the end), governor, minter.
  const tokenArgs = [deployerAddress, settings.token.initialHolder, settings.token.initialSupply, settings.token.cap];
  contracts.NapToken = await ensure("NapToken", was.NapToken, tokenArgs, () =>
    new NapToken__factory(deployer).deploy(
      deployerAddress,
      settings.token.initialHolder,
      settings.token.initialSupply,
      settings.token.cap,
    ),
  );
  const g = settings.governor;
  const timelockArgs = [g.timelockDelay, [], ["0x0000000000000000000000000000000000000000"], deployerAddress];
  contracts.TimelockController = await ensure("TimelockController", was.TimelockController, timelockArgs, () =>
    new TimelockController__factory(deployer).deploy(
      g.timelockDelay,
      [],
      ["0x0000000000000000000000000000000000000000"],
      deployerAddress,
    ),
  );
  const timelock = contracts.TimelockController.address;
  const governorArgs = [
    contracts.NapToken.address,
    timelock,
    g.votingDelay,
    g.votingPeriod,
    g.proposalThreshold,
    g.quorumPercent,
    g.guardian,
  ];
  contracts.NapGovernor = await ensure("NapGovernor", was.NapGovernor, governorArgs, () =>
    new NapGovernor__factory(deployer).deploy(
      contracts.NapToken!.address,
      timelock,
      g.votingDelay,
      g.votingPeriod,
      g.proposalThreshold,
      g.quorumPercent,
      g.guardian,
    ),
  );
  // The relayer mints NAP grants through the rate-limited minter; no hot key holds the token's MINTER_ROLE.
  const m = settings.minter;
  const minterArgs = [deployerAddress, contracts.NapToken.address, m.budget, m.period];
  contracts.NapMinter = await ensure("NapMinter", was.NapMinter, minterArgs, () =>
    new NapMinter__factory(deployer).deploy(deployerAddress, contracts.NapToken!.address, m.budget, m.period),
  );

  // 3. Registry, faucet, badges (deployer is admin while wiring).
  const r = settings.registry;
  const registryArgs = [deployerAddress, r.guardianThreshold, r.oracleThreshold, r.minPaperTradingPeriod];
  contracts.StrategyRegistryV3 = await ensure("StrategyRegistryV3", was.StrategyRegistryV3, registryArgs, () =>
    new StrategyRegistryV3__factory(deployer).deploy(
      deployerAddress,
      r.guardianThreshold,
      r.oracleThreshold,
      r.minPaperTradingPeriod,
    ),
  );
  const f = settings.faucet;
  const usdcMintable = contracts.TestUSDC !== undefined;
  const faucetArgs = [deployerAddress, usdc, usdcMintable, f.ethAmount, f.usdcAmount, f.cooldown];
  contracts.NapFaucet = await ensure("NapFaucet", was.NapFaucet, faucetArgs, () =>
    new NapFaucet__factory(deployer).deploy(deployerAddress, usdc, usdcMintable, f.ethAmount, f.usdcAmount, f.cooldown),
  );
  contracts.AgentBadges = await ensure("AgentBadges", was.AgentBadges, [deployerAddress], () =>
    new AgentBadges__factory(deployer).deploy(deployerAddress),
  );

  // 4. Vaults (their admin is the timelock from construction) and the lens.
  const vaultRoles = {
    admin: timelock,
    manager: timelock,
    harvester: settings.relayer,
    guardian: settings.guardians[0],
    fulfiller: settings.relayer,
    feeRecipient: timelock,
  };
  const existingVaults: Partial<Record<VaultId, DeployedAt>> = {};
  for (const id of VAULT_IDS) {
    const entry = await recorded(previous?.vaults?.[id], `vault ${id}`);
    if (entry) existingVaults[id] = entry;
  }
  const vaultsDeployed = await deployVaults(deployer, usdc, vaultRoles, existingVaults);
  const vaults = {} as Record<VaultId, DeployedAt>;
  for (const id of VAULT_IDS) {
    const { address, block } = vaultsDeployed[id];
    vaults[id] = { address, block };
    if (!existingVaults[id]) {
      log(`deploy  vault ${id} at ${address} (block ${block})`);
      await options.onDeployed?.(`vault ${id}`, address, [...vaultConstructorArgs(vaultConfigs[id], usdc, vaultRoles)]);
    }
  }
  await checkExitWindow(deployer, timelock, vaults);
  const lensEntry = await recorded(was.VaultLens, "VaultLens");
  const lens = await deployLens(deployer, lensEntry);
  contracts.VaultLens = { address: lens.address, block: lens.block };
  if (!lensEntry) {
    log(`deploy  VaultLens at ${lens.address} (block ${lens.block})`);
    await options.onDeployed?.("VaultLens", lens.address, []);
  }

  // 5. Roles.
  const grant = roleGranter(deployer, deployerAddress, log);
  const registry = StrategyRegistryV3__factory.connect(contracts.StrategyRegistryV3.address, deployer);
  const faucet = NapFaucet__factory.connect(contracts.NapFaucet.address, deployer);
  const badges = AgentBadges__factory.connect(contracts.AgentBadges.address, deployer);
  const token = NapToken__factory.connect(contracts.NapToken.address, deployer);
  const timelockContract = TimelockController__factory.connect(timelock, deployer);

  await grant(timelock, await timelockContract.PROPOSER_ROLE(), contracts.NapGovernor.address, "governor proposes");
  await grant(timelock, await timelockContract.CANCELLER_ROLE(), contracts.NapGovernor.address, "governor cancels");
  await grant(registry, await registry.SCREENER_ROLE(), settings.relayer, "relayer screens strategies");
  await grant(registry, await registry.MANAGER_ROLE(), settings.relayer, "relayer ends paper trading");
  for (const guardian of settings.guardians) {
    await grant(registry, await registry.GUARDIAN_ROLE(), guardian, `guardian ${guardian}`);
  }
  for (const oracle of settings.oracles) {
    await grant(registry, await registry.ORACLE_ROLE(), oracle, `oracle ${oracle}`);
  }
  await grant(faucet, await faucet.DRIPPER_ROLE(), settings.relayer, "relayer drips");
  await grant(badges, await badges.MINTER_ROLE(), settings.relayer, "relayer mints badges");
  const minter = NapMinter__factory.connect(contracts.NapMinter.address, deployer);
  await grant(token, await token.MINTER_ROLE(), contracts.NapMinter.address, "NapMinter mints NAP");
  await grant(minter, await minter.MINTER_ROLE(), settings.relayer, "relayer grants NAP through the budget");
  if (await token.hasRole(await token.MINTER_ROLE(), settings.relayer)) {
    throw new Error(
      `the relayer ${settings.relayer} holds MINTER_ROLE on NapToken ${contracts.NapToken.address} (an earlier ` +
        "deployment): revoke it through a governance proposal; the relayer mints through NapMinter",
    );
  }
  if (contracts.TestUSDC) {
    const testUsdc = TestUSDC__factory.connect(contracts.TestUSDC.address, deployer);
    await grant(testUsdc, await testUsdc.MINTER_ROLE(), contracts.NapFaucet.address, "faucet mints test USDC");
  }

  // 6. Funding on local chains: top up to the configured amounts.
  await topUp(deployer, contracts.NapFaucet.address, settings.funding.faucetWei, "faucet", log);
  await topUp(deployer, settings.relayer, settings.funding.relayerWei, "relayer", log);

  // 7. Hand the admin roles to the timelock and drop the deployer's (TestUSDC stays with the deployer: dev minting).
  for (const [label, address] of [
    ["StrategyRegistryV3", contracts.StrategyRegistryV3.address],
    ["NapFaucet", contracts.NapFaucet.address],
    ["AgentBadges", contracts.AgentBadges.address],
    ["NapToken", contracts.NapToken.address],
    ["NapMinter", contracts.NapMinter.address],
  ] as const) {
    await grant(address, DEFAULT_ADMIN_ROLE, timelock, `timelock administers ${label}`);
  }
  for (const address of [
    contracts.StrategyRegistryV3.address,
    contracts.NapFaucet.address,
    contracts.AgentBadges.address,
    contracts.NapToken.address,
    contracts.NapMinter.address,
    timelock,
  ]) {
    await renounceAdmin(deployer, address, deployerAddress, log);
  }

  // 8. The deployment file.
  const file: DeploymentFile = {
    chainId,
    network: settings.network,
    deployer: deployerAddress,
    updatedAt: new Date().toISOString(),
    usdc: { address: usdc, deployedByUs: contracts.TestUSDC !== undefined },
    contracts,
    vaults,
    roles: {
      admin: timelock,
      relayer: settings.relayer,
      guardians: settings.guardians,
      oracles: settings.oracles,
      proposalGuardian: settings.governor.guardian,
    },
  };
  writeDeployment(outDir, file, previous, log);
  return file;
}

/**
 * Holders must be able to leave every vault between a proposal's queueing and its execution: the timelock delay on
 * chain (a reused timelock keeps its own) must cover the longest fulfilment delay on chain (a reused configurable
 * vault may have had its delay changed by governance) plus the exit margin.
 */
async function checkExitWindow(deployer: Signer, timelock: string, vaults: Record<string, DeployedAt>) {
  const minDelay = await TimelockController__factory.connect(timelock, deployer).getMinDelay();
  let longest = 0n;
  for (const { address } of Object.values(vaults)) {
    const delay = await NapVault__factory.connect(address, deployer).fulfillmentDelay();
    if (delay > longest) longest = delay;
  }
  if (minDelay < longest + BigInt(EXIT_MARGIN_SECONDS)) {
    throw new Error(
      `TIMELOCK_MIN_DELAY: the timelock at ${timelock} waits ${minDelay} s, less than the longest vault fulfilment ` +
        `delay on chain (${longest} s) plus the exit margin (${EXIT_MARGIN_SECONDS} s); raise it through a ` +
        "governance proposal (updateDelay) before deploying more",
    );
  }
}

/** Writes the file unless only `updatedAt` would change (so a no-op re-run leaves it untouched). */
function writeDeployment(
  outDir: string,
  file: DeploymentFile,
  previous: DeploymentFile | undefined,
  log: (line: string) => void,
): void {
  const path = deploymentPath(outDir, file.chainId);
  if (previous && JSON.stringify({ ...previous, updatedAt: "" }) === JSON.stringify({ ...file, updatedAt: "" })) {
    file.updatedAt = previous.updatedAt;
    log(`unchanged ${path}`);
    return;
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path, JSON.stringify(file, null, 2) + "\n");
  log(`wrote   ${path}`);
}

/** Grants `role` on an AccessControl contract unless already held; fails clearly once the deployer is not admin. */
function roleGranter(deployer: Signer, deployerAddress: string, log: (line: string) => void) {
  return async (target: string | { getAddress(): Promise<string> }, role: string, account: string, what: string) => {
    const address = typeof target === "string" ? target : await target.getAddress();
    const contract = IAccessControl__factory.connect(address, deployer);
    if (await contract.hasRole(role, account)) return;
    const adminRole = await contract.getRoleAdmin(role);
    if (!(await contract.hasRole(adminRole, deployerAddress))) {
      throw new Error(
        `${what}: ${account} lacks role ${role} on ${address} and the deployer is no longer its admin; ` +
          "grant it through a governance proposal",
      );
    }
    await (await contract.grantRole(role, account)).wait();
    log(`grant   ${what} (${account} on ${address})`);
  };
}

async function renounceAdmin(deployer: Signer, address: string, deployerAddress: string, log: (line: string) => void) {
  const contract = IAccessControl__factory.connect(address, deployer);
  if (!(await contract.hasRole(DEFAULT_ADMIN_ROLE, deployerAddress))) return;
  await (await contract.renounceRole(DEFAULT_ADMIN_ROLE, deployerAddress)).wait();
  log(`renounce deployer admin on ${address}`);
}

async function topUp(deployer: Signer, to: string, target: bigint, what: string, log: (line: string) => void) {
  if (target === 0n) return;
  const balance = await deployer.provider!.getBalance(to);
  if (balance >= target) return;
  await (await deployer.sendTransaction({ to, value: target - balance })).wait();
  log(`fund    ${what} ${to} with ${target - balance} wei`);
}
