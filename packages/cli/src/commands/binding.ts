import type { OperationContext } from "@nap/sdk";
import type { Output } from "../output";
import type { Session } from "../session";

/**
 * How one operation of the SDK's list is a `nap` command: how its arguments come from the command line, and the
 * lines a person reads of its answer (--json prints the answer itself).
 */

/** A mistake in the command line: the message, then the usage, and exit code 2. */
export class UsageError extends Error {}

/** What a command reads of its command line. */
export interface CommandLine {
  /** Positional arguments after the command's words. */
  positionals: string[];
  /** The flags (parseArgs values). */
  flags: Record<string, string | boolean | undefined>;
}

/** What a command with its own way of running gets (registration writes the credentials file). */
export interface CommandEnvironment {
  line: CommandLine;
  out: Output;
  session: Session;
  /** What the operation runs with (the saved agent's client, or a public one). */
  context: OperationContext;
}

/** What a command does (its words, usage and flags are in specs.ts). */
export interface CliCommand<Args, Answer> {
  /** The operation's arguments from the command line; a missing or malformed one throws a UsageError. */
  args(line: CommandLine): Args;
  /** Shown on stderr while a call that sends transactions waits for them ("depositing 100 USDC into moderate"). */
  progress?(args: Args): string;
  /** What a person reads of the answer. */
  lines(answer: Answer, args: Args): string[];
  /** True when it acts as the saved agent (default: the operation's needsAgent). */
  asAgent?(args: Args): boolean;
  /** Runs the command itself instead of the operation alone (registration, the status that adds redemptions). */
  execute?(environment: CommandEnvironment, args: Args): Promise<void>;
}

/** Reads the command line's values, each naming the command in its error. */
export class Reader {
  constructor(readonly command: string) {}

  need(value: string | boolean | undefined, what: string): string {
    if (typeof value !== "string" || value === "") throw new UsageError(`${this.command}: ${what} is required`);
    return value;
  }

  /** Whole USDC as a number. */
  amount(value: string | undefined): number {
    const number = Number(this.need(value, "AMOUNT_USDC"));
    if (!Number.isFinite(number)) throw new UsageError(`${this.command}: AMOUNT_USDC must be a number`);
    return number;
  }

  /** A whole number, or undefined when not given. */
  count(value: string | boolean | undefined, what: string): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "string" || !/^\d+$/.test(value)) {
      throw new UsageError(`${this.command}: ${what} must be a whole number`);
    }
    return Number(value);
  }

  oneOf<T extends string>(value: string | boolean | undefined, allowed: readonly T[], what: string): T | undefined {
    if (value === undefined) return undefined;
    if (!(allowed as readonly unknown[]).includes(value)) throw new UsageError(`${what}: one of ${allowed.join(", ")}`);
    return value as T;
  }
}
