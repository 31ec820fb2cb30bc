/**
 * The intended state of a deployment, as an auditor reads it: who holds each role of each contract, and the value
 * of each delay, threshold and setting. The roles module (ignition/modules/roles.ts) is written to produce it;
 * deploy/audit.ts compares the chain with it; docs/deploy.md shows it (`renderRoleTableMarkdown`).
 */
import { ZeroAddress, getAddress, type InterfaceAbi } from "ethers";
import {
  NapFaucet__factory,
  NapGovernor__factory,
  NapMinter__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TimelockController__factory,
} from "../typechain-types";
import type { DeploymentFile } from "./deploymentFile";
import type { DeployParameters } from "./parameters";
import type { RoleName } from "./roleIds";
import { VAULT_IDS, vaultConfigs, vaultExpectations } from "./vaults";

export interface Holder {
  /** Who this is, e.g. "timelock", "relayer", "Roles.guardians[1]". */
  label: string;
  address: string;
}

/** Every holder of `role` on the contract, and no one else. Each role's admin is DEFAULT_ADMIN_ROLE. */
export interface RoleRow {
  contract: string;
  address: string;
  role: RoleName;
  holders: Holder[];
}

export type SettingValue = string | bigint | boolean;

/** A getter of a contract and the value it must return. */
export interface SettingRow {
  contract: string;
  address: string;
  abi: InterfaceAbi;
  getter: string;
  expected: SettingValue;
  /** Where the value comes from: a parameter (`Governance.timelockMinDelay`), a contract, or the code. */
  source: string;
}

export interface IntendedState {
  roles: RoleRow[];
  settings: SettingRow[];
  /** Contracts that carry roles (AccessControl), by label, with their creation block. */
  accessControlled: { contract: string; address: string; block: number }[];
  /** Label of every address the deployment knows, to name an unexpected holder. */
  labels: Map<string, string>;
}

/** Vault getters whose value is not the vault's own configuration. */
const VAULT_VALUE_SOURCES: Record<string, string> = {
  asset: "USDC (Tokens.usdc, or TestUSDC)",
  feeRecipient: "TimelockController",
};

/** The roles and settings the deployment of `file` with parameters `p` must have on chain. */
export function intendedState(file: DeploymentFile, p: DeployParameters): IntendedState {
  const c = file.contracts;
  const addressOf = (name: keyof typeof c) => {
    const entry = c[name];
    if (!entry) throw new Error(`the deployment file lists no ${name}`);
    return entry.address;
  };
  const timelock: Holder = { label: "timelock", address: addressOf("TimelockController") };
  const governor: Holder = { label: "governor", address: addressOf("NapGovernor") };
  const napMinter: Holder = { label: "NapMinter", address: addressOf("NapMinter") };
  const faucet: Holder = { label: "NapFaucet", address: addressOf("NapFaucet") };
  const relayer: Holder = { label: "relayer", address: p.Roles.relayer };
  const deployer: Holder = { label: "deployer", address: file.deployer };
  const anyone: Holder = { label: "anyone (address 0)", address: ZeroAddress };
  const guardians = p.Roles.guardians.map((address, i) => ({ label: `Roles.guardians[${i}]`, address }));
  const oracles = p.Roles.oracles.map((address, i) => ({ label: `Roles.oracles[${i}]`, address }));
  const usdc = file.usdc.address;

  const roles: RoleRow[] = [];
  const settings: SettingRow[] = [];
  const accessControlled: IntendedState["accessControlled"] = [];
  const grant = (contract: string, address: string, role: RoleName, holders: Holder[]) =>
    roles.push({ contract, address, role, holders });
  const expect = (
    contract: string,
    address: string,
    abi: InterfaceAbi,
    rows: readonly (readonly [string, SettingValue, string])[],
  ) =>
    rows.forEach(([getter, expected, source]) => settings.push({ contract, address, abi, getter, expected, source }));
  const controlled = (contract: string, name: keyof typeof c) =>
    accessControlled.push({ contract, address: addressOf(name), block: c[name]!.block });

  const token = addressOf("NapToken");
  controlled("NapToken", "NapToken");
  grant("NapToken", token, "DEFAULT_ADMIN_ROLE", [timelock]);
  grant("NapToken", token, "MINTER_ROLE", [napMinter]);
  expect("NapToken", token, NapToken__factory.abi, [["cap", p.Tokens.napCap, "Tokens.napCap"]]);

  controlled("NapMinter", "NapMinter");
  grant("NapMinter", napMinter.address, "DEFAULT_ADMIN_ROLE", [timelock]);
  grant("NapMinter", napMinter.address, "MINTER_ROLE", [relayer]);
  expect("NapMinter", napMinter.address, NapMinter__factory.abi, [
    ["token", token, "NapToken"],
    ["budget", p.Tokens.minterBudget, "Tokens.minterBudget"],
    ["period", BigInt(p.Tokens.minterPeriod), "Tokens.minterPeriod"],
  ]);

  const g = p.Governance;
  controlled("TimelockController", "TimelockController");
  grant("TimelockController", timelock.address, "DEFAULT_ADMIN_ROLE", [timelock]);
  grant("TimelockController", timelock.address, "PROPOSER_ROLE", [governor]);
  grant("TimelockController", timelock.address, "CANCELLER_ROLE", [governor]);
  grant("TimelockController", timelock.address, "EXECUTOR_ROLE", [anyone]);
  expect("TimelockController", timelock.address, TimelockController__factory.abi, [
    ["getMinDelay", BigInt(g.timelockMinDelay), "Governance.timelockMinDelay"],
  ]);
  expect("NapGovernor", governor.address, NapGovernor__factory.abi, [
    ["token", token, "NapToken"],
    ["timelock", timelock.address, "TimelockController"],
    ["votingDelay", BigInt(g.votingDelay), "Governance.votingDelay"],
    ["votingPeriod", BigInt(g.votingPeriod), "Governance.votingPeriod"],
    ["proposalThreshold", g.proposalThreshold, "Governance.proposalThreshold"],
    ["quorumNumerator()", BigInt(g.quorumPercent), "Governance.quorumPercent"],
    ["proposalGuardian", g.proposalGuardian, "Governance.proposalGuardian"],
    ["CLOCK_MODE", "mode=timestamp", "NapToken (ERC-6372 timestamp clock)"],
  ]);

  const registry = addressOf("StrategyRegistryV3");
  controlled("StrategyRegistryV3", "StrategyRegistryV3");
  grant("StrategyRegistryV3", registry, "DEFAULT_ADMIN_ROLE", [timelock]);
  grant("StrategyRegistryV3", registry, "SCREENER_ROLE", [relayer]);
  grant("StrategyRegistryV3", registry, "MANAGER_ROLE", [relayer]);
  grant("StrategyRegistryV3", registry, "GUARDIAN_ROLE", guardians);
  grant("StrategyRegistryV3", registry, "ORACLE_ROLE", oracles);
  expect("StrategyRegistryV3", registry, StrategyRegistryV3__factory.abi, [
    ["guardianThreshold", BigInt(p.Registry.guardianThreshold), "Registry.guardianThreshold"],
    ["oracleThreshold", BigInt(p.Registry.oracleThreshold), "Registry.oracleThreshold"],
    ["minPaperTradingPeriod", BigInt(p.Registry.minPaperTradingPeriod), "Registry.minPaperTradingPeriod"],
  ]);

  controlled("NapFaucet", "NapFaucet");
  grant("NapFaucet", faucet.address, "DEFAULT_ADMIN_ROLE", [timelock]);
  grant("NapFaucet", faucet.address, "DRIPPER_ROLE", [relayer]);
  expect("NapFaucet", faucet.address, NapFaucet__factory.abi, [
    ["usdc", usdc, p.Tokens.usdc === undefined ? "TestUSDC" : "Tokens.usdc"],
    ["usdcMintable", p.Tokens.usdc === undefined, "whether the deployment made TestUSDC (no Tokens.usdc)"],
    ["ethAmount", p.Faucet.ethAmount, "Faucet.ethAmount"],
    ["usdcAmount", p.Faucet.usdcAmount, "Faucet.usdcAmount"],
    ["cooldown", BigInt(p.Faucet.cooldown), "Faucet.cooldown"],
  ]);

  const badges = addressOf("AgentBadges");
  controlled("AgentBadges", "AgentBadges");
  grant("AgentBadges", badges, "DEFAULT_ADMIN_ROLE", [timelock]);
  grant("AgentBadges", badges, "MINTER_ROLE", [relayer]);

  if (c.TestUSDC) {
    // A local chain's own USDC: the deployer keeps it for dev minting, the faucet mints drips.
    controlled("TestUSDC", "TestUSDC");
    grant("TestUSDC", c.TestUSDC.address, "DEFAULT_ADMIN_ROLE", [deployer]);
    grant("TestUSDC", c.TestUSDC.address, "MINTER_ROLE", [deployer, faucet]);
  }

  for (const id of VAULT_IDS) {
    const { address, block } = file.vaults[id];
    const contract = `vault ${id}`;
    accessControlled.push({ contract, address, block });
    grant(contract, address, "DEFAULT_ADMIN_ROLE", [timelock]);
    grant(contract, address, "MANAGER_ROLE", [timelock]);
    grant(contract, address, "HARVESTER_ROLE", [relayer]);
    grant(contract, address, "GUARDIAN_ROLE", [guardians[0]]);
    grant(contract, address, "FULFILLER_ROLE", [relayer]);
    expect(
      contract,
      address,
      NapVault__factory.abi,
      vaultExpectations(vaultConfigs[id], usdc, timelock.address).map(
        ([getter, expected]) => [getter, expected, VAULT_VALUE_SOURCES[getter] ?? "deploy/vaults.ts"] as const,
      ),
    );
  }

  const labels = new Map<string, string>();
  const label = (address: string, name: string) => {
    const key = getAddress(address);
    if (!labels.has(key)) labels.set(key, name);
  };
  [timelock, governor, napMinter, faucet, relayer, deployer, anyone, ...guardians, ...oracles].forEach((holder) =>
    label(holder.address, holder.label),
  );
  label(g.proposalGuardian, "Governance.proposalGuardian");
  for (const [name, entry] of Object.entries(c)) label(entry.address, name);
  for (const id of VAULT_IDS) label(file.vaults[id].address, `vault ${id}`);
  label(usdc, "USDC");
  return { roles, settings, accessControlled, labels };
}

/** Holders by name; all entries of a parameter list (`Roles.guardians[0..n]`) read `Roles.guardians (each)`. */
function holderNames(holders: Holder[]): string {
  const groups = holders.map((holder) => /^(Roles\.\w+)\[\d+\]$/.exec(holder.label)?.[1]);
  if (holders.length > 1 && groups.every((group) => group !== undefined && group === groups[0])) {
    return `${groups[0]} (each)`;
  }
  return holders.map((holder) => holder.label).join(", ");
}

/** The six vaults are alike: docs show them as one group. */
function contractGroup(contract: string): string {
  if (contract.startsWith("vault ")) return "each vault (6)";
  return contract === "TestUSDC" ? "TestUSDC (local chains only)" : contract;
}

/** The role table as docs/deploy.md shows it. */
export function renderRoleTableMarkdown(state: IntendedState): string {
  const rows = new Map<string, string>();
  for (const row of state.roles) {
    const contract = contractGroup(row.contract);
    rows.set(`${contract}|${row.role}`, `| ${contract} | ${row.role} | ${holderNames(row.holders)} |`);
  }
  return ["| contract | role | held by, and by no one else |", "|---|---|---|", ...rows.values()].join("\n");
}

/** The settings table as docs/deploy.md shows it: each getter and where its value comes from. */
export function renderSettingsMarkdown(state: IntendedState): string {
  const rows = new Map<string, string[]>();
  for (const row of state.settings) {
    const key = `${contractGroup(row.contract)}|${row.source}`;
    const getters = rows.get(key) ?? [];
    if (!getters.includes(row.getter)) getters.push(row.getter);
    rows.set(key, getters);
  }
  const lines = [...rows.entries()].map(([key, getters]) => {
    const [contract, source] = key.split("|");
    return `| ${contract} | ${getters.map((getter) => `\`${getter.replace(/\(\)$/, "")}()\``).join(", ")} | ${source} |`;
  });
  return ["| contract | getters | must equal |", "|---|---|---|", ...lines].join("\n");
}
