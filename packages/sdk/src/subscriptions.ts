import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { NapGraphQLError } from "./errors";
import { SUBSCRIPTIONS } from "./graphql/operations";
import type { SubscriptionTypes } from "./graphql/types";

/**
 * GraphQL subscriptions over graphql-ws with resume. The data API numbers every entry of its event log (`seq` 1, 2,
 * 3 ...) and sends it as `extensions.seq` on each message; a subscription opened with `afterSeq` first replays the
 * log after it, then goes live. This helper keeps the last seq it delivered and, when the socket drops (or a ping
 * gets no pong in time: a half-open connection), reconnects with exponential backoff and subscribes again with
 * `afterSeq` = that seq: no event is missed, none comes twice (a message at or below the last seq is dropped, in
 * case a replay overlaps). GraphQL errors (NOT_FOUND, INVALID_ADDRESS) and refusals of the protocol (close codes
 * 4400-4499 but 4408 and 4499) are final: they go to `error` and the subscription ends.
 */

export interface SubscriptionEvent<T> {
  data: T;
  /** The event log's sequence number of the entry this message was made from. */
  seq: number;
}

export interface SubscriptionHandlers<T> {
  next(event: SubscriptionEvent<T>): void;
  /** A final error: the subscription has ended. */
  error?(error: Error): void;
  /**
   * The socket is open (first, and after each reconnect) and the subscription is being sent, resuming after
   * `afterSeq`; `reconnects` counts the connection attempts made since the start.
   */
  connected?(info: { afterSeq: number | undefined; reconnects: number }): void;
  /** The socket dropped; a reconnect follows after `waitMs`. */
  reconnecting?(info: { attempt: number; waitMs: number; reason: string; afterSeq: number | undefined }): void;
}

export interface SubscribeOptions {
  /** ws:// or wss:// URL of the GraphQL endpoint. */
  url: string;
  /** A data API key, sent in the connection's init payload as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** Deliver the events after this seq first (e.g. the last one a previous run saw). */
  afterSeq?: number;
  /** First reconnect wait in ms (default 500), doubled each failed attempt up to `maxReconnectDelayMs`. */
  reconnectDelayMs?: number;
  /** Longest reconnect wait in ms (default 15,000). */
  maxReconnectDelayMs?: number;
  /** Failed reconnect attempts in a row before giving up (default: never give up). */
  maxReconnectAttempts?: number;
  /** Ping interval in ms (default 10,000). */
  keepAliveMs?: number;
  /** A ping without a pong within this many ms (default 5,000) counts as a dropped connection. */
  pongTimeoutMs?: number;
  /** Longest wait for the socket's handshake and the server's connection_ack, in ms (default 30,000). */
  timeoutMs?: number;
  /** Longest message read, in bytes (default 10 MiB); a longer one closes the socket (1009), which reconnects. */
  maxMessageBytes?: number;
  webSocketImpl?: unknown;
}

export interface Subscription {
  /** The seq of the last event delivered (undefined before the first). */
  readonly lastSeq: number | undefined;
  /** Settles when the subscription has ended (closed, or a final error). */
  readonly done: Promise<void>;
  /** Ends the subscription and closes the socket. */
  close(): Promise<void>;
}

type Outcome = { kind: "dropped"; reason: string } | { kind: "final"; error: Error };

const RETRYABLE_CLOSE_CODES = new Set([4408, 4499]);
/** What the pong timeout needs of a socket (`terminate` is the `ws` package's). */
interface ActiveSocket {
  readyState: number;
  close(code: number, reason: string): void;
  terminate?(): void;
}
/** WebSocket.OPEN. */
const OPEN = 1;

/**
 * The `ws` package's WebSocket with bounds: its defaults take messages of up to 100 MiB and wait for a handshake
 * without end, which a hostile or broken server would use.
 */
function boundedWebSocket(maxPayload: number, handshakeTimeout: number) {
  return class BoundedWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { maxPayload, handshakeTimeout });
    }
  };
}

function isFinalClose(event: unknown): boolean {
  const code = (event as { code?: unknown } | null)?.code;
  return typeof code === "number" && code >= 4400 && code < 4500 && !RETRYABLE_CLOSE_CODES.has(code);
}

function describeDrop(event: unknown): string {
  if (event instanceof Error) return event.message;
  const { code, reason, message } = (event ?? {}) as { code?: number; reason?: string; message?: unknown };
  if (code !== undefined) return `socket closed (${code}${reason ? `: ${reason}` : ""})`;
  // The socket's error event (ws' ErrorEvent): a refused connection, a message past maxPayload.
  return typeof message === "string" ? message : String(event);
}

export function subscribe<K extends keyof SubscriptionTypes>(
  name: K,
  variables: Omit<SubscriptionTypes[K]["variables"], "afterSeq">,
  handlers: SubscriptionHandlers<SubscriptionTypes[K]["result"]>,
  options: SubscribeOptions,
): Subscription {
  let lastSeq = options.afterSeq;
  let closed = false;
  let client: Client | undefined;
  let wake: (() => void) | undefined;
  let settle: ((outcome: Outcome) => void) | undefined;
  const baseDelay = options.reconnectDelayMs ?? 500;
  const maxDelay = options.maxReconnectDelayMs ?? 15_000;
  const maxAttempts = options.maxReconnectAttempts ?? Infinity;
  const keepAliveMs = options.keepAliveMs ?? 10_000;
  const pongTimeoutMs = options.pongTimeoutMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const webSocketImpl =
    options.webSocketImpl ?? boundedWebSocket(options.maxMessageBytes ?? 10 * 1024 * 1024, timeoutMs);
  let activeSocket: ActiveSocket | undefined;
  let pongTimer: ReturnType<typeof setTimeout> | undefined;
  let pongMissed = false;

  /** One connection: resolves when it drops or fails for good (never while it is delivering). */
  const connectOnce = (reconnects: number, onAlive: () => void) =>
    new Promise<Outcome>((resolve) => {
      settle = resolve;
      pongMissed = false;
      const drop = (event: unknown): Outcome => ({
        kind: "dropped",
        reason: pongMissed ? `no pong from the server within ${pongTimeoutMs} ms` : describeDrop(event),
      });
      client = createClient({
        url: options.url,
        webSocketImpl,
        connectionAckWaitTimeout: timeoutMs,
        connectionParams: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : undefined,
        retryAttempts: 0,
        lazy: false,
        keepAlive: keepAliveMs,
        on: {
          connected: (socket) => {
            activeSocket = socket as ActiveSocket;
            onAlive();
            handlers.connected?.({ afterSeq: lastSeq, reconnects });
          },
          // graphql-ws sends the pings but does nothing when no pong comes back (a half-open connection would
          // wait forever): a missing pong closes the socket as a timeout, which reconnects and resumes.
          ping: (received) => {
            if (received) return;
            clearTimeout(pongTimer);
            pongTimer = setTimeout(() => {
              if (activeSocket?.readyState !== OPEN) return;
              pongMissed = true;
              // A close handshake cannot pass a hung connection either (ws waits 30 s for it): `ws` sockets are
              // terminated at once; others are closed as a timeout.
              if (activeSocket.terminate) activeSocket.terminate();
              else activeSocket.close(4408, "no pong from the server");
            }, pongTimeoutMs);
          },
          pong: (received) => {
            if (received) clearTimeout(pongTimer);
          },
          closed: () => clearTimeout(pongTimer),
        },
        onNonLazyError: (event) =>
          resolve(isFinalClose(event) ? { kind: "final", error: new Error(describeDrop(event)) } : drop(event)),
      });
      client.subscribe(
        { query: SUBSCRIPTIONS[name], variables: { ...variables, afterSeq: lastSeq ?? null } },
        {
          next: (message) => {
            if (message.errors && message.errors.length > 0) {
              resolve({
                kind: "final",
                error: new NapGraphQLError(message.errors, message.data, `subscription ${name}`),
              });
              return;
            }
            const seq = (message.extensions as { seq?: unknown } | undefined)?.seq;
            if (typeof seq !== "number") return;
            if (lastSeq !== undefined && seq <= lastSeq) return;
            lastSeq = seq;
            handlers.next({ data: message.data as SubscriptionTypes[K]["result"], seq });
          },
          error: (error) => {
            if (Array.isArray(error)) {
              resolve({ kind: "final", error: new NapGraphQLError(error, null, `subscription ${name}`) });
            } else {
              resolve(isFinalClose(error) ? { kind: "final", error: new Error(describeDrop(error)) } : drop(error));
            }
          },
          complete: () => resolve({ kind: "dropped", reason: "the server ended the subscription" }),
        },
      );
    });

  const run = async () => {
    let attempt = 0;
    for (let reconnects = 0; !closed; reconnects++) {
      const outcome = await connectOnce(reconnects, () => (attempt = 0));
      const ending = client;
      client = undefined;
      await ending?.dispose();
      if (closed) return;
      if (outcome.kind === "final") {
        closed = true;
        handlers.error?.(outcome.error);
        return;
      }
      attempt += 1;
      if (attempt > maxAttempts) {
        closed = true;
        handlers.error?.(new Error(`gave up after ${maxAttempts} reconnect attempts: ${outcome.reason}`));
        return;
      }
      const waitMs = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
      handlers.reconnecting?.({ attempt, waitMs, reason: outcome.reason, afterSeq: lastSeq });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };
  const done = run();

  return {
    get lastSeq() {
      return lastSeq;
    },
    done,
    async close() {
      closed = true;
      wake?.();
      settle?.({ kind: "dropped", reason: "closed" });
      await done;
    },
  };
}
