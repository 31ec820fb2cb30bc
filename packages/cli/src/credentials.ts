import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/**
 * The CLI's credentials file: the API key (returned once at registration) and the owner wallet the CLI generated
 * for it, written with mode 0600 in a 0700 folder. Nothing prints the key after registration; commands read it from
 * here.
 */

export interface Credentials {
  api_url: string;
  agent_id: string;
  agent_name: string;
  api_key: string;
  api_key_prefix: string;
  owner_address: string;
  /** Present when the CLI generated the owner wallet (no --owner-key given). */
  owner_private_key?: string;
}

export function defaultCredentialsFile(): string {
  return process.env.NAP_CREDENTIALS ?? path.join(homedir(), ".nap", "credentials.json");
}

/** Refuses to go on when `file` holds an agent's key already (checked before registering, so no agent is lost). */
export function assertWritable(file: string, overwrite: boolean): void {
  if (existsSync(file) && !overwrite) {
    throw new Error(`${file} exists (an agent is registered already); pass --force to replace it`);
  }
}

export function writeCredentials(file: string, credentials: Credentials, overwrite: boolean): void {
  assertWritable(file, overwrite);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // The mode applies when the file is created; chmod covers a replaced file that had another one.
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readCredentials(file: string): Credentials {
  if (!existsSync(file)) throw new Error(`no credentials at ${file}: run \`nap register --name <agent name>\` first`);
  return JSON.parse(readFileSync(file, "utf8")) as Credentials;
}
