import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/**
 * The credentials file that `nap register` writes and the CLI and the MCP server read: the API key (returned once
 * at registration) and the owner wallet the CLI generated for it, written with mode 0600 (in a folder created 0700). Nothing prints the key after registration; commands
 * read it from here.
 *
 * Like ssh with a private key, a file that group or others may read or write is refused: they could take the key,
 * or point `api_url` at a server of theirs that then receives it. `--insecure-credentials` or
 * NAP_INSECURE_CREDENTIALS=1 reads it anyway, with a warning.
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

/** No credentials file yet (commands that need no agent then use the default URL). */
export class MissingCredentialsError extends Error {}

/** The file's mode lets group or others in. */
export class LooseCredentialsError extends Error {}

export interface ReadCredentialsOptions {
  /** Read a file that group or others may access (default: NAP_INSECURE_CREDENTIALS=1). */
  allowLoosePermissions?: boolean;
  /** Where the warning about such a file goes when it is read anyway. */
  warn?: (message: string) => void;
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
  // A new file created 0600 then renamed over the old one: the key is never in a file with a looser mode, even
  // when the file it replaces had one.
  const fresh = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(fresh, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    renameSync(fresh, file);
  } finally {
    rmSync(fresh, { force: true });
  }
}

/** Group and other permission bits: any of them set is too open for a file holding keys. */
const GROUP_OR_OTHER = 0o077;

export function readCredentials(file: string, options: ReadCredentialsOptions = {}): Credentials {
  if (!existsSync(file)) {
    throw new MissingCredentialsError(`no credentials at ${file}: run \`nap register --name <agent name>\` first`);
  }
  // Windows has no such mode bits (stat reports 0666 for every file).
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== "win32" && (mode & GROUP_OR_OTHER) !== 0) {
    const message =
      `${file} has mode 0${mode.toString(8).padStart(3, "0")}: group or others can access the API key and owner key it holds; ` +
      `run \`chmod 600 ${file}\``;
    const allow = options.allowLoosePermissions ?? process.env.NAP_INSECURE_CREDENTIALS === "1";
    if (!allow) {
      throw new LooseCredentialsError(`${message} (or pass --insecure-credentials to read it anyway)`);
    }
    (options.warn ?? ((text: string) => process.stderr.write(`${text}\n`)))(`WARNING: ${message}`);
  }
  return JSON.parse(readFileSync(file, "utf8")) as Credentials;
}
