import { findOperation, NapApiError, NapNetworkError, NapToolArgumentError, runOperation } from "@nap/sdk";
import { UsageError, type CliCommand, type CommandLine } from "./commands/binding";
import { COMMANDS } from "./commands";
import type { FoundCommand } from "./commands/usage";
import type { Output } from "./output";
import { OptionError, Session, type Flags } from "./session";
import { keys } from "./keys";
import { wallet } from "./wallet/run";
import { watch } from "./watch";

/**
 * Runs a parsed command line: the operation of the command (its arguments checked by the operation's schema),
 * `keys`, `wallet` or `watch`. Loaded only when a command runs, so `nap --help` loads none of it. Answers the exit code.
 */
export async function runCommandLine(
  found: FoundCommand | "watch" | "keys" | "wallet",
  positionals: string[],
  flags: Flags,
  out: Output,
  usage: string,
): Promise<number> {
  const session = new Session(flags, out);
  try {
    if (found === "watch") return await runWatch(positionals, flags, session, out);
    if (found === "keys") return await keys(positionals, flags, session, out);
    if (found === "wallet") return await wallet(positionals, flags, session, out);
    const command = COMMANDS[found.operation] as CliCommand<unknown, unknown>;
    await runCommand(found.operation, command, { positionals: found.rest, flags }, session, out);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof OptionError || error instanceof NapToolArgumentError) {
      out.error(`${error.message}\n\n${usage}`, 0);
      return 2;
    }
    if (error instanceof NapApiError) {
      out.error(error.message, error.status, error.retryAfterSeconds);
      return 1;
    }
    if (error instanceof NapNetworkError) {
      // The hint fits a server that did not answer, not one that answered too slowly, too much or elsewhere.
      const hint = error.constructor === NapNetworkError ? " (is the API running? start it with npm start)" : "";
      out.error(`${error.message}${hint}`, 0);
      return 1;
    }
    out.error((error as Error).message, 0);
    return 1;
  }
}

async function runCommand(
  name: string,
  command: CliCommand<unknown, unknown>,
  line: CommandLine,
  session: Session,
  out: Output,
): Promise<void> {
  const operation = findOperation(name)!;
  const args = command.args(line);
  const context = session.context(command.asAgent ? command.asAgent(args) : operation.needsAgent);
  if (command.execute) return command.execute({ line, out, session, context }, args);
  const call = () => runOperation(context, operation, args);
  const answer = command.progress ? await out.progress(command.progress(args), true, call) : await call();
  out.result(answer, command.lines(answer, args));
}

function runWatch(positionals: string[], flags: Flags, session: Session, out: Output): Promise<number> {
  const [, target, vault] = positionals;
  if (target !== "vault" && target !== "transactions") throw new UsageError("watch: vault VAULT or transactions");
  const afterSeq = flags["after-seq"];
  if (afterSeq !== undefined && (typeof afterSeq !== "string" || !/^\d+$/.test(afterSeq))) {
    throw new UsageError("watch: --after-seq must be a whole number");
  }
  if (target === "vault" && !vault) throw new UsageError("watch: VAULT is required");
  return watch(session.data(), out, {
    target,
    vault,
    afterSeq: afterSeq === undefined ? undefined : Number(afterSeq),
  });
}
