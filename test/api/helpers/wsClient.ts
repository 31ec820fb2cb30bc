import WebSocket from "ws";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * A /ws client for tests: keeps every message it receives, hands them out in order (optionally the next one that
 * matches), and records how the server closed the socket.
 */
export class WsTestClient {
  readonly received: any[] = [];
  readonly #unread: any[] = [];
  readonly #waiters: { match: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** The server's first message. */
  welcome: any;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data));
      this.received.push(message);
      const waiter = this.#waiters.findIndex((w) => w.match(message));
      if (waiter >= 0) this.#waiters.splice(waiter, 1)[0].resolve(message);
      else this.#unread.push(message);
    });
    this.closed = new Promise((resolve) =>
      socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** Opens a connection and reads its welcome; `ip` is sent as X-Forwarded-For. */
  static async connect(baseUrl: string, options: { ip?: string; path?: string } = {}): Promise<WsTestClient> {
    const url = baseUrl.replace(/^http/, "ws") + (options.path ?? "/ws");
    const socket = new WebSocket(url, { headers: options.ip ? { "X-Forwarded-For": options.ip } : {} });
    const client = new WsTestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("unexpected-response", (_request, response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => reject(new UpgradeRefused(response.statusCode ?? 0, JSON.parse(body || "null"))));
      });
    });
    client.welcome = await client.next();
    return client;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The next message (that matches), waiting up to `timeoutMs`. */
  next(match: (message: any) => boolean = () => true, timeoutMs = 10_000): Promise<any> {
    const index = this.#unread.findIndex(match);
    if (index >= 0) return Promise.resolve(this.#unread.splice(index, 1)[0]);
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve };
      this.#waiters.push(waiter);
      setTimeout(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at < 0) return;
        this.#waiters.splice(at, 1);
        reject(new Error(`no matching message within ${timeoutMs} ms; received: ${JSON.stringify(this.received)}`));
      }, timeoutMs);
    });
  }

  /** Sends `message` and answers the next message (the reply, when the server has nothing else to say). */
  async request(message: unknown): Promise<any> {
    this.send(message);
    return this.next();
  }

  /** The next `count` messages of subscription `id`. */
  async messagesOf(id: string, count: number, timeoutMs?: number): Promise<any[]> {
    const messages: any[] = [];
    for (let i = 0; i < count; i++) messages.push(await this.next((m) => m.id === id, timeoutMs));
    return messages;
  }

  /** Messages received and not yet handed out. */
  unread(): any[] {
    return [...this.#unread];
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close();
    }
  }
}

export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(`upgrade refused with ${status}`);
  }
}
