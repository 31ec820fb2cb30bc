import path from "node:path";
import type { Answer, NapClient, ScopedKey, ScopedKeyRequest } from "@nap/sdk";
import { assertWritable, writeCredentials } from "@nap/sdk/credentials";
import { Reader, UsageError } from "./commands/binding";
import type { Output } from "./output";
import type { Flags, Session } from "./session";

/**
 * `nap keys`: the agent's API keys, with the saved (full) key. `list` shows the full key and the scoped keys by
 * prefix; `create` issues a scoped key and prints it once (the credentials file keeps the full key; `--save FILE`
 * writes the scoped key to a credentials file of its own instead, and replaces an existing file only with
 * --force); `revoke PREFIX` ends a scoped key at once. Issuing keys is the operator's act, so these are commands
 * of the CLI and methods of the SDK, not operations of the list that an LLM's tools offer.
 */

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `7d`, `12h`, `90m`, `3600s` or plain seconds, as seconds. */
export function durationSeconds(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  if (!match) throw new UsageError("keys create: --expires-in must be a duration such as 7d, 12h, 90m or 3600s");
  return Number(match[1]) * UNITS[match[2] || "s"];
}

/** USDC as typed (`100`, `2.5`) in base units (6 decimals), as the API takes it. */
export function usdcBaseUnits(text: string): string {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) {
    throw new UsageError("keys create: --usdc-per-day must be an amount of USDC with at most 6 decimals, such as 100");
  }
  return (BigInt(match[1]) * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"))).toString();
}

/** The request of `keys create` from its flags. */
export function scopeOf(flags: Flags): ScopedKeyRequest {
  const read = new Reader("keys create");
  const readOnly = flags["read-only"] === true;
  const operations = flags.operations;
  if (readOnly === (operations !== undefined)) {
    throw new UsageError("keys create: give --read-only or --operations OP,OP (not both)");
  }
  const list = readOnly
    ? []
    : read
        .need(operations, "--operations")
        .split(",")
        .map((op) => op.trim());
  const perDay = flags["usdc-per-day"];
  const expiresIn = flags["expires-in"];
  return {
    ...(readOnly ? { read_only: true } : { operations: list as NonNullable<ScopedKeyRequest["operations"]> }),
    ...(perDay !== undefined ? { usdc_per_day: usdcBaseUnits(read.need(perDay, "--usdc-per-day")) } : {}),
    ...(expiresIn !== undefined ? { expires_in_seconds: durationSeconds(read.need(expiresIn, "--expires-in")) } : {}),
    ...(typeof flags.label === "string" ? { label: flags.label } : {}),
  };
}

type Scope = ScopedKey["scope"];

/** A scope as a person reads it: "read-only" or the operations, and the daily USDC limit. */
export function scopeText(scope: Scope): string {
  const what = scope.read_only ? "read-only" : scope.operations.join(", ");
  if (scope.usdc_per_day === null) return what;
  const units = BigInt(scope.usdc_per_day);
  const fraction = (units % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${what}; at most ${units / 1_000_000n}${fraction ? `.${fraction}` : ""} USDC a day`;
}

type ListedKey = Answer<"getApiV1AgentKeys">["keys"][number];

function keyLine(key: ListedKey): string {
  const label = key.label === null ? "" : ` "${key.label}"`;
  const scope = key.scope ? `  ${scopeText(key.scope)}` : "";
  const used = key.last_used_at ? `last used ${key.last_used_at}` : "never used";
  const expires = key.expires_at ? `, expires ${key.expires_at}` : "";
  return `${key.api_key_prefix}  ${key.kind}${label}  ${key.state}${scope}  (created ${key.created_at}, ${used}${expires})`;
}

export async function keys(positionals: string[], flags: Flags, session: Session, out: Output): Promise<number> {
  const [, action, ...rest] = positionals;
  const agent = (): NapClient => session.agent();
  if (action === "list" && rest.length === 0) {
    const listed = await agent().keys();
    out.result(listed, listed.keys.length === 0 ? ["no keys"] : listed.keys.map(keyLine));
    return 0;
  }
  if (action === "revoke" && rest.length === 1) {
    const [prefix] = rest;
    const revoked = await agent().revokeScopedKey(prefix);
    out.result(revoked, [`revoked scoped key ${revoked.revoked_api_key_prefix}: it no longer works`]);
    return 0;
  }
  if (action === "create" && rest.length === 0) return create(scopeOf(flags), flags, session, out);
  throw new UsageError("keys: list, create (--read-only | --operations OP,OP) or revoke PREFIX");
}

async function create(scope: ScopedKeyRequest, flags: Flags, session: Session, out: Output): Promise<number> {
  const save = typeof flags.save === "string" ? flags.save : undefined;
  const force = flags.force === true;
  const saved = session.saved();
  if (save !== undefined && path.resolve(save) === path.resolve(session.credentialsFile) && !force) {
    throw new UsageError(
      `keys create: ${save} holds the agent's full key; saving the scoped key there replaces it: pass --force to do so`,
    );
  }
  // Checked before issuing, so that no key is issued and then lost for want of a place to write it.
  if (save !== undefined) assertWritable(save, force);
  const issued = await out.progress("issuing a scoped key", false, () => session.agent().createScopedKey(scope));
  const summary = `scoped key ${issued.api_key_prefix}: ${scopeText(issued.scope)}; expires ${issued.expires_at}`;
  if (save === undefined) {
    out.result(issued, [summary, `API key (shown once, store it now): ${issued.api_key}`]);
    return 0;
  }
  writeCredentials(
    save,
    {
      api_url: session.apiUrl ?? saved.api_url,
      agent_id: saved.agent_id,
      agent_name: saved.agent_name,
      api_key: issued.api_key,
      api_key_prefix: issued.api_key_prefix,
      // The owner's key never goes with a scoped key: whoever holds this file holds the scoped key only.
      owner_address: saved.owner_address,
    },
    force,
  );
  const { api_key: _secret, ...shown } = issued;
  void _secret;
  out.result({ ...shown, credentials_file: save }, [summary, `saved to ${save} (mode 0600); it is not shown again`]);
  return 0;
}
