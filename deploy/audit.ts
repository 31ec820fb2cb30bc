/**
 * The auditor's view of a deployment: reads from the chain who holds every role of every contract (from the
 * RoleGranted / RoleRevoked logs since the contract's creation, confirmed by hasRole), each role's admin, and every
 * delay, threshold and setting, and compares them with the intended state (deploy/roleTable.ts). Each difference
 * is one line naming the contract, the role or getter, what was intended and what the chain says.
 */
import { Contract, getAddress, type Provider } from "ethers";
import { IAccessControl__factory, NapVault__factory, TimelockController__factory } from "../typechain-types";
import type { DeploymentFile } from "./deploymentFile";
import { EXIT_MARGIN_SECONDS, type DeployParameters } from "./parameters";
import { ROLE_IDS, roleName } from "./roleIds";
import { intendedState, type SettingValue } from "./roleTable";
import { VAULT_IDS } from "./vaults";

export interface AuditLine {
  contract: string;
  /** A role (`MINTER_ROLE`), `admin of MINTER_ROLE`, a getter (`getMinDelay()`) or a check (`exit window`). */
  item: string;
  expected: string;
  actual: string;
  ok: boolean;
}

export interface AuditResult {
  lines: AuditLine[];
  differences: string[];
  /** Number of roles, admins and settings compared. */
  checked: number;
}

const accessControl = IAccessControl__factory.createInterface();
const ROLE_EVENTS = [accessControl.getEvent("RoleGranted").topicHash, accessControl.getEvent("RoleRevoked").topicHash];
/** Blocks per eth_getLogs request at first; halved while the RPC endpoint refuses the range. */
const LOG_BLOCK_RANGE = 10_000;

/** Who holds each role now, replayed from the contract's role events (granted, then possibly revoked). */
async function roleMembers(provider: Provider, address: string, fromBlock: number, toBlock: number) {
  const members = new Map<string, Set<string>>();
  let range = LOG_BLOCK_RANGE;
  for (let start = fromBlock; start <= toBlock;) {
    const end = Math.min(start + range - 1, toBlock);
    let logs;
    try {
      logs = await provider.getLogs({ address, topics: [ROLE_EVENTS], fromBlock: start, toBlock: end });
    } catch (error) {
      if (range === 1) throw error;
      range = Math.max(1, Math.floor(range / 2));
      continue;
    }
    for (const log of logs) {
      const event = accessControl.parseLog(log)!;
      const role = (event.args.role as string).toLowerCase();
      const account = getAddress(event.args.account as string);
      const holders = members.get(role) ?? new Set<string>();
      if (event.name === "RoleGranted") holders.add(account);
      else holders.delete(account);
      members.set(role, holders);
    }
    start = end + 1;
  }
  return members;
}

/** Values compare as text: addresses checksummed, numbers in decimal. */
function show(value: unknown): string {
  if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) return getAddress(value);
  return String(value);
}

export async function auditDeployment(
  provider: Provider,
  file: DeploymentFile,
  p: DeployParameters,
): Promise<AuditResult> {
  const state = intendedState(file, p);
  const lines: AuditLine[] = [];
  const name = (address: string) => {
    const label = state.labels.get(getAddress(address));
    return label ? `${getAddress(address)} (${label})` : getAddress(address);
  };
  const line = (contract: string, item: string, expected: string, actual: string) =>
    lines.push({ contract, item, expected, actual, ok: expected === actual });

  for (const [contract, address] of [
    ...Object.entries(file.contracts).map(([key, entry]) => [key, entry.address] as const),
    ...VAULT_IDS.map((id) => [`vault ${id}`, file.vaults[id].address] as const),
  ]) {
    line(contract, "code", "deployed", (await provider.getCode(address)) === "0x" ? "no code" : "deployed");
  }

  const latest = await provider.getBlockNumber();
  for (const { contract, address, block } of state.accessControlled) {
    const onChain = await roleMembers(provider, address, block, latest);
    const control = IAccessControl__factory.connect(address, provider);
    const intended = state.roles.filter((row) => row.address === address);
    const roles = new Set([...intended.map((row) => ROLE_IDS[row.role]), ...onChain.keys()]);
    for (const roleId of roles) {
      const row = intended.find((entry) => ROLE_IDS[entry.role] === roleId);
      const wanted = (row?.holders ?? []).map((holder) => getAddress(holder.address));
      // hasRole confirms each intended holder even if the endpoint returned incomplete logs.
      const held = new Set(onChain.get(roleId) ?? []);
      for (const account of wanted) {
        if (await control.hasRole(roleId, account)) held.add(account);
        else held.delete(account);
      }
      // By the address's hex digits, whatever their checksum letter case, so that a report lists holders alike on
      // every deployment.
      const byHex = (a: string, b: string) =>
        a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
      const sorted = (list: Iterable<string>) => [...list].sort(byHex).map(name).join(", ") || "no one";
      line(contract, roleName(roleId), sorted(wanted), sorted(held));
      line(
        contract,
        `admin of ${roleName(roleId)}`,
        "DEFAULT_ADMIN_ROLE",
        roleName(await control.getRoleAdmin(roleId)),
      );
    }
  }

  for (const row of state.settings) {
    const actual: SettingValue = await new Contract(row.address, row.abi, provider)[row.getter]();
    line(row.contract, `${row.getter.replace(/\(\)$/, "")}()`, show(row.expected), show(actual));
  }

  // Holders must be able to leave every vault between a proposal's queueing and its execution (values on chain:
  // governance may have changed the timelock delay or the configurable vault's fulfilment delay since). Each vault
  // caps a request's wait by the delay of the timelock it was deployed with, so that timelock must be this one.
  const timelockAddress = file.contracts.TimelockController!.address;
  const minDelay = await TimelockController__factory.connect(timelockAddress, provider).getMinDelay();
  let longest = 0n;
  const unbound: string[] = [];
  for (const id of VAULT_IDS) {
    const vault = NapVault__factory.connect(file.vaults[id].address, provider);
    const delay = await vault.fulfillmentDelay();
    if (delay > longest) longest = delay;
    if ((await vault.isERC7540()) && getAddress(await vault.governanceTimelock()) !== getAddress(timelockAddress)) {
      unbound.push(id);
    }
  }
  const floor = longest + BigInt(EXIT_MARGIN_SECONDS);
  const unboundNote = unbound.length === 0 ? "" : `; vaults ${unbound.join(", ")} read another timelock`;
  line(
    "TimelockController",
    "exit window",
    `getMinDelay() >= ${floor}`,
    (minDelay >= floor ? `getMinDelay() >= ${floor}` : `getMinDelay() = ${minDelay}`) + unboundNote,
  );

  const differences = lines
    .filter((entry) => !entry.ok)
    .flatMap((entry) => {
      if (entry.item !== "exit window") {
        return [`${entry.contract} ${entry.item}: intended ${entry.expected}, on chain ${entry.actual}`];
      }
      const found: string[] = [];
      if (minDelay < floor) {
        found.push(
          `Governance.timelockMinDelay: the timelock at ${timelockAddress} waits ` +
            `${minDelay} s, less than the longest vault fulfilment delay on chain (${longest} s) plus the exit ` +
            `margin (${EXIT_MARGIN_SECONDS} s); raise it through a governance proposal (updateDelay)`,
        );
      }
      for (const id of unbound) {
        found.push(
          `vault ${id} governanceTimelock(): intended ${timelockAddress}, whose delay bounds a redeem request's ` +
            "wait; on chain another address",
        );
      }
      return found;
    });
  return { lines, differences, checked: lines.length };
}

/** The audit as a plain-text table (one line per role, admin and setting), differences marked. */
export function formatAudit(result: AuditResult): string {
  return result.lines
    .map((entry) =>
      entry.ok
        ? `ok    ${entry.contract} ${entry.item}: ${entry.actual}`
        : `DIFF  ${entry.contract} ${entry.item}: intended ${entry.expected}, on chain ${entry.actual}`,
    )
    .join("\n");
}
