/**
 * The Ignition deployment folder of a deployment (ignition/deployments/chain-<chainId> unless told otherwise): its
 * journal (journal.jsonl) lets an interrupted run resume, and beside it `parameters.json` records the parameters the
 * deployment was started with, so that a run with changed parameters stops and names each change instead of
 * leaving the old values on chain without a word.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Provider } from "ethers";
import {
  ParametersError,
  flattenParameters,
  parametersToJson,
  readParameters,
  type DeployParameters,
} from "./parameters";

export const PARAMETERS_RECORD = "parameters.json";

/** Ignition's own default: `chain-<chainId>` under the project's ignition/deployments. */
export function defaultJournalDir(ignitionPath: string, chainId: number): string {
  return join(ignitionPath, "deployments", `chain-${chainId}`);
}

export function hasJournal(journalDir: string): boolean {
  return existsSync(join(journalDir, "journal.jsonl"));
}

/** Thrown when the parameters differ from those the deployment in the folder was started with. */
export class ParameterDriftError extends Error {
  constructor(
    readonly changes: string[],
    journalDir: string,
  ) {
    super(
      `parameters changed since the deployment in ${journalDir} was started:\n` +
        changes.map((change) => `  ${change}`).join("\n") +
        "\nA deployed contract keeps the values it was built with: change them through a governance proposal " +
        "(docs/governance.md), or deploy anew into another folder (DEPLOY_JOURNAL_DIR) if you mean to replace the " +
        "system.",
    );
    this.name = "ParameterDriftError";
  }
}

/** Each parameter whose value differs, as `Section.name: old -> new` (a missing value reads "(none)"). */
export function parameterChanges(before: DeployParameters, after: DeployParameters): string[] {
  const old = flattenParameters(before);
  const now = flattenParameters(after);
  const names = [...new Set([...old.keys(), ...now.keys()])].sort();
  return names
    .filter((name) => old.get(name) !== now.get(name))
    .map((name) => `${name}: ${old.get(name) ?? "(none)"} -> ${now.get(name) ?? "(none)"}`);
}

/**
 * A started deployment (its journal exists) must be given the parameters it was started with; throws a
 * ParameterDriftError naming every change otherwise. Checked before anything else about the parameters, since for a
 * deployment under way the change itself is what the operator must hear about.
 */
export async function assertParametersUnchanged(journalDir: string, parameters: DeployParameters): Promise<void> {
  if (!hasJournal(journalDir)) return;
  const record = join(journalDir, PARAMETERS_RECORD);
  if (!existsSync(record)) {
    throw new ParametersError(
      `${journalDir} holds an Ignition journal but no ${PARAMETERS_RECORD}: the parameters it was started with ` +
        "are unknown, so this run cannot tell whether they changed",
    );
  }
  const changes = parameterChanges(await readParameters(record), parameters);
  if (changes.length > 0) throw new ParameterDriftError(changes, journalDir);
}

/** A new deployment (no journal yet) records the parameters it starts with, just before Ignition runs. */
export function recordParameters(journalDir: string, parameters: DeployParameters): void {
  if (hasJournal(journalDir)) return;
  mkdirSync(journalDir, { recursive: true });
  writeFileSync(join(journalDir, PARAMETERS_RECORD), parametersToJson(parameters));
}

/** The addresses Ignition recorded as deployed, by future id (empty for a new deployment). */
export function recordedAddresses(journalDir: string): Record<string, string> {
  const path = join(journalDir, "deployed_addresses.json");
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, string>) : {};
}

/**
 * A journal whose contracts have no code on the chain belongs to another chain instance: on a local chain (a node
 * restarted since) it is wiped and the deployment starts over; on a public chain the run stops, since the RPC
 * endpoint is probably not the chain the journal was made on. Returns whether it wiped.
 */
export async function wipeStaleJournal(
  provider: Provider,
  journalDir: string,
  local: boolean,
  log: (line: string) => void,
): Promise<boolean> {
  for (const [futureId, address] of Object.entries(recordedAddresses(journalDir))) {
    if ((await provider.getCode(address)) !== "0x") continue;
    if (!local) {
      throw new Error(
        `${journalDir} records ${futureId} at ${address}, where this chain has no code: is the RPC endpoint the ` +
          "chain of this deployment?",
      );
    }
    log(`journal ${journalDir} is from an earlier local chain (no code at ${address}): starting over`);
    rmSync(journalDir, { recursive: true, force: true });
    return true;
  }
  return false;
}
