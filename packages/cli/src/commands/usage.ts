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
  return Object.assign({}, ...Object.values(COMMAND_SPECS).map((spec: CommandSpec) => spec.flags ?? {}));
}

const WATCH = [
  ["watch vault VAULT [--after-seq N]", "one line per update of a vault, until Ctrl-C"],
  [
    "watch transactions [VAULT] [--after-seq N]",
    "one line per new deposit, withdrawal, redemption request or claim (of one vault, or all); reconnects by itself " +
      "and resumes after the last event seen",
  ],
] as const;

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

/** The usage text: every command of the list, then watch and the common options. */
export function usage(options: string): string {
  return [
    "nap: the NAP agent CLI",
    "",
    "Usage: nap <command> [arguments] [--json] [--api URL] [--credentials FILE]",
    "",
    ...Object.values(COMMAND_SPECS).map((spec: CommandSpec) =>
      entry([...spec.words, spec.synopsis].filter(Boolean).join(" "), spec.summary),
    ),
    ...WATCH.map(([line, summary]) => entry(line, summary)),
    "",
    options,
  ].join("\n");
}
