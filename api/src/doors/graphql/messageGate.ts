import type { WebSocket } from "ws";
import { MessageRate } from "../sockets/messageRate";

/** What one graphql-ws socket may send, and how many of its operations may be opening at once. */
export interface SubscriptionMessageLimits {
  maxMessagesPerSecond: number;
  maxMessageBurst: number;
  maxBacklog: number;
}

/**
 * A real client sends a connection_init, one subscribe and one complete per operation and a ping now and then: the
 * burst is above twice the per-IP subscription cap, so that a client may open and close all of them at once.
 */
export const DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS: Readonly<SubscriptionMessageLimits> = {
  maxMessagesPerSecond: 20,
  maxMessageBurst: 250,
  maxBacklog: 16,
};

/** Close code of a socket over its message rate (policy violation, as on /ws). */
export const MESSAGE_RATE_CLOSE = 1008;
/** A closed socket that does not answer the close within this is dropped, so that a flood cannot keep it open. */
const CLOSE_HANDSHAKE_MS = 2_000;

type MessageListener = (data: unknown, isBinary: boolean) => unknown;

/**
 * Stands between a socket and graphql-ws: every incoming message takes one from the socket's MessageRate before
 * graphql-ws sees it, and the message past the burst closes the socket (1008) and is never handed on, nor is anything
 * after it. graphql-ws handles each message as soon as it arrives, without waiting for the previous one, so the
 * operations still opening (onSubscribe, which awaits the rate limiter and the store) are counted too: past
 * `maxBacklog` of them the socket is not read, and the client waits in TCP rather than in this process's memory.
 */
export class MessageGate {
  readonly #rate: MessageRate;
  #closed = false;
  #opening = 0;

  private constructor(
    private readonly socket: WebSocket,
    private readonly limits: SubscriptionMessageLimits,
    private readonly handlers: MessageListener[],
  ) {
    this.#rate = new MessageRate(limits.maxMessagesPerSecond, limits.maxMessageBurst);
    socket.on("message", (data, isBinary) => this.#receive(data, isBinary));
    socket.once("close", () => (this.#closed = true));
  }

  /**
   * Emits the socket's connection (graphql-ws attaches its message listener then) and puts every message listener
   * attached by it behind the gate.
   */
  static open(socket: WebSocket, limits: SubscriptionMessageLimits, emitConnection: () => void): MessageGate {
    const before = new Set(socket.listeners("message"));
    emitConnection();
    const handlers = socket.listeners("message").filter((listener) => !before.has(listener)) as MessageListener[];
    for (const handler of handlers) socket.off("message", handler);
    return new MessageGate(socket, limits, handlers);
  }

  /** Runs the opening of one operation; while `maxBacklog` are opening, the socket is not read. */
  async opening<T>(work: () => Promise<T>): Promise<T> {
    this.#opening += 1;
    if (this.#opening >= this.limits.maxBacklog && !this.socket.isPaused) this.socket.pause();
    try {
      return await work();
    } finally {
      this.#opening -= 1;
      if (this.socket.isPaused && !this.#closed && this.#opening < this.limits.maxBacklog) this.socket.resume();
    }
  }

  #receive(data: unknown, isBinary: boolean): void {
    if (this.#closed) return;
    if (!this.#rate.take()) {
      this.#close();
      return;
    }
    for (const handler of this.handlers) handler.call(this.socket, data, isBinary);
  }

  #close(): void {
    this.#closed = true;
    const { maxMessageBurst, maxMessagesPerSecond } = this.limits;
    const reason = `MESSAGE_RATE: more than ${maxMessageBurst} messages at once or ${maxMessagesPerSecond} a second`;
    this.socket.close(MESSAGE_RATE_CLOSE, reason);
    // What the client sends after this is left unread in TCP.
    this.socket.pause();
    setTimeout(() => this.socket.terminate(), CLOSE_HANDSHAKE_MS).unref();
  }
}
