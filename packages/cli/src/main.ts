import { parseArgs } from "node:util";
import { commandFlags, findCommand, usage } from "./commands/usage";
import { Output } from "./output";

/**
 * `nap`: the NAP agent CLI, built on the SDK. Its commands are the SDK's operations list (commands/), each with
 * its arguments from the command line and its lines for people; --json prints the API's answer as JSON for
 * programs. Human output by default, with progress on stderr while transactions are mined. Exit code 0 on
 * success, 1 on an API error (its message on stderr, or `{ "error", "status" }` with --json), 2 on a usage error.
 * The usage needs only the commands' specs: the SDK and the commands' code load when a command runs.
 */

const COMMON_OPTIONS = `Options: --api URL (default $NAP_API_URL or http://127.0.0.1:3000), --credentials FILE (default $NAP_CREDENTIALS
or ~/.nap/credentials.json), --idempotency-key KEY (value-moving commands), --data-key KEY (a data API key,
napd-..., for higher rate limits; default $NAP_DATA_KEY), --json (watch: one JSON object per line),
--timeout SECONDS (longest wait for an answer; default $NAP_TIMEOUT_SECONDS or 30), --max-response-bytes N (longest
answer read; default $NAP_MAX_RESPONSE_BYTES or 10485760), --insecure-credentials (read a credentials file that
group or others can access, with a warning; default: refused, as $NAP_INSECURE_CREDENTIALS=1 overrides).`;

export const USAGE = usage(COMMON_OPTIONS);

const OPTIONS = {
  ...commandFlags(),
  json: { type: "boolean" },
  api: { type: "string" },
  credentials: { type: "string" },
  "idempotency-key": { type: "string" },
  "data-key": { type: "string" },
  "after-seq": { type: "string" },
  timeout: { type: "string" },
  "max-response-bytes": { type: "string" },
  "insecure-credentials": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function main(argv: string[], out = new Output(argv.includes("--json"))): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    out.error(`${(error as Error).message}\n\n${USAGE}`, 0);
    return 2;
  }
  const { values, positionals } = parsed;
  const [first] = positionals;
  if (!first || values.help) {
    out.info(USAGE);
    return first || values.help ? 0 : 2;
  }
  const found = first === "watch" || first === "keys" || first === "wallet" ? first : findCommand(positionals);
  if (!found) {
    out.error(`unknown command ${positionals.slice(0, 2).join(" ")}\n\n${USAGE}`, 0);
    return 2;
  }
  // Loaded here, not at the top: the usage above needs none of it. A require, since the compiled CommonJS keeps an
  // import() as a native ES import, which does not resolve the extensionless path.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runCommandLine } = require("./run") as typeof import("./run.js");
  return runCommandLine(found, positionals, values, out, USAGE);
}
