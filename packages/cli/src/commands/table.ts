import type { OperationName, OPERATIONS } from "@nap/sdk";
import type { CliCommand } from "./binding";

type Operation = (typeof OPERATIONS)[number];

/** The command of the operation named N, typed by its arguments and its answer. */
export type CommandFor<N extends OperationName> =
  Extract<Operation, { name: N }> extends { run(context: never, args: infer Args): Promise<infer Answer> }
    ? CliCommand<Args, Answer>
    : never;

/** One command for each operation of the list: a missing one is a compile error. */
export type CommandTable = { [N in OperationName]: CommandFor<N> };
