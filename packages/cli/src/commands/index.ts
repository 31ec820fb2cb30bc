import { ACCOUNT_COMMANDS } from "./account";
import { AGENT_READ_COMMANDS, MONEY_COMMANDS } from "./agent";
import { READ_COMMANDS } from "./reads";
import type { CommandTable } from "./table";

/**
 * What each `nap` command does: one per operation of the SDK's list, keyed by the operation's name (a missing one
 * does not compile). Their words and usage are in specs.ts; `watch`, a stream rather than a call, is main's.
 */
export const COMMANDS: CommandTable = {
  ...ACCOUNT_COMMANDS,
  ...MONEY_COMMANDS,
  ...AGENT_READ_COMMANDS,
  ...READ_COMMANDS,
};
