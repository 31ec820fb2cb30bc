import WebSocket from "ws";

/**
 * A WebSocket client for hostile sequences: it sends anything (text, binary, oversized), keeps what the server
 * sends, and says how the socket ended (close code, or the HTTP status of a refused upgrade), never waiting past a
 * deadline.
 */

export interface Opened {
  socket?: TestSocket;
  /** The HTTP status of a refused upgrade, or 0 when the connection failed. */
  refusedStatus?: number;
}

export class TestSocket {
  readonly received: unknown[] = [];
  closeCode: number | null = null;
  closeReason = "";
  sent = 0;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on("message", (data, binary) => {
      const text = binary ? "" : data.toString();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Kept as text.
      }
      this.received.push(parsed);
      this.wake();
    });
    ws.once("close", (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
      this.wake();
    });
    ws.on("error", () => undefined);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(data: string | Buffer, binary = false): void {
    if (!this.open) return;
    this.sent += 1;
    this.ws.send(data, { binary });
  }

  /** Resolves with the first received message that fits (searching from `from`), or undefined on close or timeout. */
  async waitFor(fits: (message: unknown) => boolean, timeoutMs: number, from = 0): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    let index = from;
    for (;;) {
      for (; index < this.received.length; index++) if (fits(this.received[index])) return this.received[index];
      if (this.closeCode !== null) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  /** Resolves once closed (true) or after the timeout (false). */
  async waitClosed(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return true;
  }

  /** Closes from the client side and waits a little for the close to finish. */
  async end(): Promise<void> {
    if (this.closeCode !== null) return;
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    if (!(await this.waitClosed(1_000))) this.ws.terminate();
  }
}

export function openSocket(
  url: string,
  protocol: string | undefined,
  headers: { [name: string]: string } = {},
  timeoutMs = 5_000,
): Promise<Opened> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocol ? [protocol] : [], {
      headers,
      handshakeTimeout: timeoutMs,
      maxPayload: 256 * 1024 * 1024,
    });
    const socket = new TestSocket(ws);
    let settled = false;
    const done = (opened: Opened) => {
      if (settled) return;
      settled = true;
      resolve(opened);
    };
    ws.once("open", () => done({ socket }));
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      done({ refusedStatus: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once("error", () => done({ refusedStatus: 0 }));
    ws.once("close", () => done({ refusedStatus: 0 }));
  });
}
