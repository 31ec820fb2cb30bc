import { main } from "../../../packages/cli/src/main";
import { Output } from "../../../packages/cli/src/output";

/** A stream that keeps what is written to it. */
class Captured {
  text = "";
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** Runs `nap <argv>` in this process (as packages/cli/src/run.ts does) and answers its exit code and output. */
export async function runCli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Captured();
  const stderr = new Captured();
  const out = new Output(
    argv.includes("--json"),
    stdout as unknown as NodeJS.WritableStream,
    stderr as unknown as NodeJS.WritableStream,
  );
  const code = await main(argv, out);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
