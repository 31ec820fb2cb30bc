import { WALLET_FLAGS, WALLET_OPTIONS, WALLET_USAGE } from "../wallet/specs";
import { COMMAND_SPECS, type CommandSpec } from "./specs";

/** The command line's shape from the specs alone: which command the words name, every flag, the usage text. */

type Named = [name: keyof typeof COMMAND_SPECS, spec: CommandSpec];

/** Longest words first, so "strategy submit" is found before a command named "strategy" could be. */
const BY_WORDS = (Object.entries(COMMAND_SPECS) as Named[]).sort(([, a], [, b]) => b.words.length - a.words.length);

export interface FoundCommand {
  operation: keyof typeof COMMAND_SPECS;
  /** The positional arguments after the command's words. */
  rest: string[];
}

/** The command the positionals name, or undefined. */
export function findCommand(positionals: string[]): FoundCommand | undefined {
  for (const [operation, spec] of BY_WORDS) {
    if (spec.words.every((word, i) => positionals[i] === word)) {
      return { operation, rest: positionals.slice(spec.words.length) };
    }
  }
  return undefined;
}

/** The flags of every command, for parseArgs (one option set: a flag means the same in each command). */
export function commandFlags(): Record<string, { type: "string" | "boolean" }> {
  return Object.assign(
    {},
    KEY_FLAGS,
    WALLET_FLAGS,
    ...Object.values(COMMAND_SPECS).map((spec: CommandSpec) => spec.flags ?? {}),
  );
}

const WATCH = [
  ["watch vault VAULT [--after-seq N]", "one line per update of a vault, until Ctrl-C"],
  [
    "watch transactions [VAULT] [--after-seq N]",
    "one line per new deposit, withdrawal, redemption request or claim (of one vault, or all); reconnects by itself " +
      "and resumes after the last event seen",
  ],
] as const;

/** `nap keys`: the operator's commands on the agent's API keys (keys.ts), outside the operations list. */
const KEYS = [
  ["keys list", "the agent's API keys by prefix: the full key and the scoped keys, each with its scope and state"],
  [
    "keys create (--read-only | --operations OP,OP) [--usdc-per-day USDC] [--expires-in 7d] [--label TEXT]",
    "a scoped key to hand to an LLM: read-only, or limited to operations (vault.deposit, vault.withdraw, " +
      "vault.redeem_request, vault.claim, vault.redeem_cancel, strategy.submit, governance.vote, faucet, exit), " +
      "to at most USDC a UTC day out of the agent's wallet, expiring (default 30 days); printed once and not saved, " +
      "or --save FILE writes it to a credentials file of its own (the full key's file only with --force)",
  ],
  ["keys revoke PREFIX", "revoke a scoped key by its prefix (nap- and 8 characters): it stops at once"],
] as const;

/** The flags of `nap keys create`. */
export const KEY_FLAGS = {
  "read-only": { type: "boolean" },
  operations: { type: "string" },
  "usdc-per-day": { type: "string" },
  "expires-in": { type: "string" },
  label: { type: "string" },
  save: { type: "string" },
} as const;

const COLUMN = 37;
const WIDTH = 118;

/** `  usage   summary`, the summary wrapped under its own column. */
function entry(usage: string, summary: string): string {
  const lines: string[] = [];
  let current = "";
  for (const word of summary.split(" ")) {
    if (current && current.length + 1 + word.length > WIDTH - COLUMN) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  lines.push(current);
  const head = `  ${usage}`;
  const pad = " ".repeat(COLUMN);
  if (head.length >= COLUMN - 1) return [head, ...lines.map((line) => pad + line)].join("\n");
  return [head.padEnd(COLUMN) + lines[0], ...lines.slice(1).map((line) => pad + line)].join("\n");
}

/** The usage text: every command of the list, then keys, watch and the common options. */
export function usage(options: string): string {
  return [
    "nap: the NAP agent CLI",
    "",
    "Usage: nap <command> [arguments] [--json] [--api URL] [--credentials FILE]",
    "",
    ...Object.values(COMMAND_SPECS).map((spec: CommandSpec) =>
      entry([...spec.words, spec.synopsis].filter(Boolean).join(" "), spec.summary),
    ),
    ...KEYS.map(([line, summary]) => entry(line, summary)),
    ...WALLET_USAGE.map(([line, summary]) => entry(line, summary)),
    ...WATCH.map(([line, summary]) => entry(line, summary)),
    "",
    options,
    "",
    WALLET_OPTIONS,
  ].join("\n");
}
