import { safeJson, safeText } from "./safeText";

/**
 * What the CLI prints: lines for people on stdout, or the API's answer as JSON (--json); errors on stderr; and,
 * while a value-moving call waits for its transactions to be mined, a progress line on stderr (redrawn every
 * second on a terminal, printed once otherwise, never in --json mode). Everything written passes through
 * safeText (lines) or safeJson (--json), since most of it is the server's text.
 */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream | NodeJS.WritableStream = process.stderr,
  ) {}

  info(text: string): void {
    this.stdout.write(`${safeText(text)}\n`);
  }

  result(value: unknown, lines: string[]): void {
    this.stdout.write(this.json ? `${safeJson(value, 2)}\n` : `${safeText(lines.join("\n"))}\n`);
  }

  /** One event of a stream: a JSON object on one line (--json), or its lines. */
  event(value: unknown, lines: string[]): void {
    this.stdout.write(this.json ? `${safeJson(value)}\n` : `${safeText(lines.join("\n"))}\n`);
  }

  /** A note about the stream on stderr (its state: connected, reconnecting, stopped), as JSON with --json. */
  note(text: string, fields: Record<string, unknown>): void {
    this.stderr.write(this.json ? `${safeJson(fields)}\n` : `${safeText(text)}\n`);
  }

  error(message: string, status: number, retryAfterSeconds?: number): void {
    if (this.json) {
      this.stderr.write(
        `${safeJson({ error: message, status, ...(retryAfterSeconds !== undefined ? { retry_after_seconds: retryAfterSeconds } : {}) })}\n`,
      );
      return;
    }
    const retry = retryAfterSeconds !== undefined ? ` (retry in ${retryAfterSeconds} s)` : "";
    this.stderr.write(`error${status > 0 ? ` ${status}` : ""}: ${safeText(message)}${retry}\n`);
  }

  /**
   * Runs `task`, showing "<what>: waiting for the transactions to be mined" (or "<what>..." when `mined` is false)
   * with the elapsed seconds.
   */
  async progress<T>(what: string, mined: boolean, task: () => Promise<T>): Promise<T> {
    if (this.json) return task();
    const tty = (this.stderr as NodeJS.WriteStream).isTTY === true;
    const started = Date.now();
    const waiting = mined ? ": waiting for the transactions to be mined" : "";
    const line = () => `${safeText(what)}${waiting} (${Math.round((Date.now() - started) / 1000)} s)`;
    this.stderr.write(
      tty ? line() : `${safeText(what)}${mined ? ": sent, waiting for the transactions to be mined" : ""}...\n`,
    );
    const timer = tty ? setInterval(() => this.stderr.write(`\r${line()}`), 1000) : undefined;
    try {
      return await task();
    } finally {
      if (timer) {
        clearInterval(timer);
        this.stderr.write(`\r${line()}, done\n`);
      }
    }
  }
}
