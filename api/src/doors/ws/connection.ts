import type { WsConfig } from "../../config";
import { UnavailableError } from "../../errors";
import type { Logger } from "../../logger";
import type { EventFeed } from "../../readmodel/feed";
import { atLeastBlock, notYetIndexedMessage, NOT_YET_INDEXED_RETRY_SECONDS } from "../../readmodel/freshness";
import type { DataQueries } from "../../readmodel/queries";
import { type DataKeyRecord, type DataKeyService, type DataTier, type TierLimiter } from "../data/access";
import { refusalMessage } from "../data/access/limits";
import { isCredentialRefusal } from "../data/errors";
import type { Holder, SocketCaps } from "../sockets/caps";
import { channelFilter, type ChannelFilter } from "./channels";
import { maxQueued, SubscriptionStream, type StreamOutlet } from "./subscriptionStream";
import { MessageRate } from "../sockets/messageRate";
import {
  CLIENT_PING_INTERVAL_SECONDS,
  CLOSE,
  WsError,
  parseClientMessage,
  type AuthMessage,
  type ClientMessage,
  type SubscribeMessage,
} from "./protocol";

/**
 * One client of /ws: its messages counted against the connection's message rate as they arrive, then handled one at
 * a time and in order from a bounded backlog (the socket is not read while it is full), its tier (Public by IP until it authenticates
 * with a data API key), its subscriptions, the idle timer and the heartbeat. Each subscription listens to the event
 * feed from its own point (the log's tail, or `afterSeq`) and sends its messages in log order through its own queue
 * (subscriptionStream.ts).
 */

/** What the connection needs of a socket (ws's WebSocket has it; tests may pass a stand-in). */
export interface WsSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code: number, reason: string): void;
  terminate(): void;
  ping(): void;
  /** Stops reading the socket (TCP then holds the client back) until `resume`. */
  pause(): void;
  resume(): void;
  on(event: "message", listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): unknown;
  on(event: "close" | "pong", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

const OPEN = 1;

/** How long a socket the server closed may take to finish the closing handshake before it is dropped. */
const CLOSE_HANDSHAKE_MS = 2_000;

export interface ConnectionDeps {
  feed: EventFeed;
  queries: DataQueries;
  keys: DataKeyService;
  /** Absent: rate limits disabled. */
  limiter?: TierLimiter;
  caps: SocketCaps;
  settings: WsConfig;
  logger: Logger;
}

export class Connection {
  readonly #socket: WsSocket;
  readonly #ip: string;
  readonly #deps: ConnectionDeps;
  #holder: Holder;
  #tier: DataTier = "public";
  #key: DataKeyRecord | undefined;
  #token: string | undefined;
  readonly #subscriptions = new Map<string, SubscriptionStream>();
  #nextId = 1;
  /** What the subscriptions send through, and how they leave. */
  readonly #outlet: StreamOutlet;
  readonly #rate: MessageRate;
  /** Received messages not yet handled, oldest first (null: a binary frame); at most `maxBacklog`. */
  readonly #inbox: (string | null)[] = [];
  #handling = false;
  #paused = false;
  #idle: NodeJS.Timeout;
  #alive = true;
  #closed = false;
  readonly #onClosed: () => void;

  constructor(socket: WsSocket, ip: string, holder: Holder, deps: ConnectionDeps, onClosed: () => void) {
    this.#socket = socket;
    this.#ip = ip;
    this.#holder = holder;
    this.#deps = deps;
    this.#onClosed = onClosed;
    this.#outlet = {
      send: (message) => this.#send(message),
      stopped: (stream) => void this.#subscriptions.delete(stream.id),
      logger: deps.logger,
    };
    this.#rate = new MessageRate(deps.settings.maxMessagesPerSecond, deps.settings.maxMessageBurst);
    this.#idle = setTimeout(() => this.#idleTimeout(), deps.settings.idleTimeoutMs);
    socket.on("pong", () => {
      this.#alive = true;
    });
    socket.on("close", () => this.#cleanUp());
    // A protocol violation by the client (an oversized or malformed frame): ws closes the socket itself (1009, 1002).
    socket.on("error", (error) => this.#deps.logger.debug({ err: error, ip }, "ws: client protocol error"));
    socket.on("message", (data, isBinary) => {
      this.#receive(isBinary ? null : Buffer.isBuffer(data) ? data.toString("utf8") : null);
    });
    this.#send({
      type: "welcome",
      tier: this.#tier,
      idleTimeoutSeconds: deps.settings.idleTimeoutMs / 1000,
      pingIntervalSeconds: CLIENT_PING_INTERVAL_SECONDS,
      maxSubscriptions: deps.settings.maxSubscriptions,
    });
  }

  get subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  /** Received messages not yet handled (tests, metrics). */
  get backlog(): number {
    return this.#inbox.length;
  }

  /** The server's heartbeat: a socket that did not answer the previous ping frame is dropped. */
  heartbeat(): void {
    if (this.#closed) return;
    if (!this.#alive) {
      this.#socket.terminate();
      this.#cleanUp();
      return;
    }
    this.#alive = false;
    this.#socket.ping();
  }

  /** Checks an authenticated connection's key again: one revoked or expired since is told so and closed (4401). */
  checkKey(): void {
    if (this.#closed || this.#token === undefined) return;
    this.#deps.keys.authenticate(this.#token).catch((error: unknown) => this.#keyRejected(error));
  }

  /**
   * Closes with `code` (the subscriptions stop at once). The socket is dropped if the client does not answer the
   * close soon: it no longer counts against its IP's cap, and a client that goes on flooding must not keep it open.
   */
  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#cleanUp();
    this.#socket.close(code, reason);
    setTimeout(() => this.#socket.terminate(), CLOSE_HANDSHAKE_MS).unref();
  }

  /** Counts a message as it arrives and queues it; a message over the rate closes the connection (1008). */
  #receive(text: string | null): void {
    if (this.#closed) return;
    this.#idle.refresh();
    const { maxMessagesPerSecond, maxMessageBurst, maxBacklog } = this.#deps.settings;
    if (!this.#rate.take()) {
      this.#send(
        new WsError(
          "RATE_LIMITED",
          `more than ${maxMessageBurst} messages at once or ${maxMessagesPerSecond} a second on one connection: ` +
            "it is closed; reconnect and send fewer",
          { retryAfterSeconds: 1 },
        ).toMessage(),
      );
      this.close(CLOSE.MESSAGE_RATE, "message rate exceeded");
      return;
    }
    this.#inbox.push(text);
    // A full backlog stops reading the socket, so that a client sending faster than it is answered waits in TCP
    // instead of in this process's memory.
    if (this.#inbox.length >= maxBacklog && !this.#paused) {
      this.#paused = true;
      this.#socket.pause();
    }
    void this.#handleInbox();
  }

  async #handleInbox(): Promise<void> {
    if (this.#handling) return;
    this.#handling = true;
    try {
      while (this.#inbox.length > 0 && !this.#closed) {
        const text = this.#inbox.shift() as string | null;
        if (this.#paused && this.#inbox.length < this.#deps.settings.maxBacklog) {
          this.#paused = false;
          this.#socket.resume();
        }
        await this.#handle(text).catch((error: unknown) => this.#failed(error));
      }
    } finally {
      this.#handling = false;
    }
  }

  async #handle(text: string | null): Promise<void> {
    if (this.#closed) return;
    let message: ClientMessage | undefined;
    try {
      if (text === null) throw new WsError("INVALID_BODY", "messages are JSON text frames, not binary");
      message = parseClientMessage(text);
      switch (message.type) {
        case "ping":
          this.#send({ type: "pong" });
          return;
        case "unsubscribe":
          return this.#unsubscribe(message.id);
        case "auth":
          return await this.#authenticate(message);
        case "subscribe":
          await this.#count();
          return await this.#subscribe(message);
      }
    } catch (error) {
      if (this.#closed) return;
      if (!(error instanceof WsError)) return this.#failed(error);
      // An invalid message counts as a request (a subscribe was counted already; a failed auth counts itself).
      if (message === undefined) {
        try {
          await this.#count();
        } catch (refusal) {
          if (refusal instanceof WsError) return this.#send(refusal.toMessage());
          return this.#failed(refusal);
        }
      }
      this.#send(error.toMessage());
    }
  }

  /** An unexpected failure while handling a message: logged, answered without detail; the next message is handled. */
  #failed(error: unknown): void {
    // The store or a rate limiter away: the client retries after retryAfterSeconds; not a bug, not logged.
    if (error instanceof UnavailableError) {
      const retryAfterSeconds = error.retryAfterSeconds;
      return this.#send(new WsError("UNAVAILABLE", error.message, { retryAfterSeconds }).toMessage());
    }
    this.#deps.logger.error({ err: error }, "ws: message failed");
    this.#send(new WsError("INTERNAL_ERROR", "internal error").toMessage());
  }

  /** One request against the connection's tier; throws RATE_LIMITED or UNAVAILABLE. */
  async #count(tier: DataTier = this.#tier, subject = this.#subject()): Promise<void> {
    const limiter = this.#deps.limiter;
    if (!limiter) return;
    let decision;
    try {
      decision = await limiter.consume(tier, subject, { ip: this.#ip, key: this.#key });
    } catch (error) {
      if (error instanceof UnavailableError) throw new WsError("UNAVAILABLE", error.message);
      throw error;
    }
    if (!decision.allowed) {
      throw new WsError("RATE_LIMITED", refusalMessage(decision), { retryAfterSeconds: decision.retryAfterSeconds });
    }
  }

  #subject(): string {
    return this.#key ? `key:${this.#key.keyId}` : `ip:${this.#ip}`;
  }

  async #authenticate(message: AuthMessage): Promise<void> {
    if (this.#key) {
      throw new WsError(
        "ALREADY_AUTHENTICATED",
        "this connection is authenticated already: reconnect to use another key",
      );
    }
    let key: DataKeyRecord;
    try {
      key = await this.#deps.keys.authenticate(message.token);
    } catch (error) {
      if (!isCredentialRefusal(error)) throw error;
      // A bad key is counted on the IP's Public budget, as on REST, so that guessing keys is as slow as that budget.
      await this.#count("public", `ip:${this.#ip}`);
      throw new WsError("UNAUTHORIZED", error.message, { field: "token" });
    }
    if (this.#closed) return;
    const holder = this.#deps.caps.addKey(this.#holder, key.keyId);
    if (!holder) {
      this.#send(
        new WsError(
          "CONNECTION_LIMIT_REACHED",
          `this key already holds ${this.#deps.caps.maxPerKey} connections on this server: close one first`,
        ).toMessage(),
      );
      this.close(CLOSE.CONNECTION_LIMIT, "connection limit of the key reached");
      return;
    }
    this.#holder = holder;
    this.#key = key;
    this.#token = message.token;
    this.#tier = key.tier;
    this.#send({
      type: "authenticated",
      tier: key.tier,
      keyId: key.keyId,
      scopes: key.scopes,
      expiresAt: key.expiresAt.toISOString(),
    });
  }

  async #subscribe(message: SubscribeMessage): Promise<void> {
    const { settings, feed, queries } = this.#deps;
    // Errors name the subscription by the id the client gave; an id is assigned only to a subscription that opens.
    const id = message.id;
    // The key first: a revoked key learns so at once, whatever else is wrong with the message.
    await this.#recheckKey(id);
    if (id !== undefined && this.#subscriptions.has(id)) {
      throw new WsError("INVALID_ID", `id: ${id} is already a subscription of this connection`, { field: "id", id });
    }
    if (this.#subscriptions.size >= settings.maxSubscriptions) {
      throw new WsError(
        "SUBSCRIPTION_LIMIT_REACHED",
        `at most ${settings.maxSubscriptions} subscriptions per connection: unsubscribe one first`,
        { id },
      );
    }
    const filter = await channelFilter(queries, message).catch((error: unknown) => {
      if (error instanceof WsError) throw new WsError(error.wsCode, error.message, { ...error.extra, id });
      throw error;
    });
    this.#checkAccess(filter, id);
    if (message.afterSeq !== undefined) await this.#checkReplay(message.afterSeq, id);
    // Read-your-writes: the stream starts at the first log entry of block minBlock, once it is indexed.
    const fromBlock = message.minBlock === undefined ? undefined : await this.#fromBlock(message.minBlock, id);
    const afterSeq = message.afterSeq ?? fromBlock?.afterSeq;
    if (this.#closed) return;

    const subscription = new SubscriptionStream(
      id ?? this.#newId(),
      filter,
      maxQueued(settings.maxReplay),
      this.#outlet,
    );
    this.#subscriptions.set(subscription.id, subscription);
    subscription.listening(await feed.listen((entry) => subscription.offer(entry), afterSeq));
    if (subscription.stopped) return;
    this.#send({
      type: "subscribed",
      id: subscription.id,
      channel: filter.channel,
      ...filter.params,
      ...(message.afterSeq !== undefined && { afterSeq: message.afterSeq }),
      ...(fromBlock && { minBlock: message.minBlock, indexedBlock: fromBlock.indexedBlock }),
    });
    subscription.start();
  }

  /**
   * Waits for `minBlock` to be indexed (readmodel/freshness.ts) and finds the log entry the stream starts after;
   * throws NOT_YET_INDEXED (retryable) or INVALID_MIN_BLOCK.
   */
  async #fromBlock(minBlock: number, id: string | undefined): Promise<{ afterSeq: number; indexedBlock: number }> {
    const { queries, feed, settings } = this.#deps;
    const deps = {
      waitForBlock: (block: number) => queries.waitForBlock(block),
      head: (fresh: boolean) => queries.indexedBlocks.chainHead(fresh),
    };
    const outcome = await atLeastBlock(deps, minBlock, "minBlock");
    if (outcome.status === "invalid") {
      throw new WsError("INVALID_MIN_BLOCK", outcome.message, { field: "minBlock", id });
    }
    if (outcome.status !== "reached") {
      const indexedBlock = outcome.status === "behind" ? outcome.indexedBlock : null;
      throw new WsError("NOT_YET_INDEXED", notYetIndexedMessage(minBlock, indexedBlock), {
        id,
        minBlock,
        indexedBlock,
        retryAfterSeconds: NOT_YET_INDEXED_RETRY_SECONDS,
      });
    }
    return { afterSeq: await feed.seqBeforeBlock(minBlock, settings.maxReplay), indexedBlock: outcome.indexedBlock };
  }

  /** An authenticated connection's key, read again; revoked or expired since, the connection closes (4401). */
  async #recheckKey(id: string | undefined): Promise<void> {
    if (!this.#key) return;
    try {
      this.#key = await this.#deps.keys.authenticate(this.#token as string);
    } catch (error) {
      if (!isCredentialRefusal(error)) throw error;
      this.#keyRejected(error);
      throw new WsError("UNAUTHORIZED", error.message, { id });
    }
  }

  /** A key is needed for some filters; a key, when there is one, must hold the channel's scope. */
  #checkAccess(filter: ChannelFilter, id: string | undefined): void {
    if (!this.#key) {
      if (filter.requiresKey) {
        throw new WsError("UNAUTHORIZED", `${filter.requiresKey}: send { type: "auth", token } first`, {
          field: "user",
          id,
        });
      }
      return;
    }
    if (!this.#key.scopes.includes(filter.scope)) {
      throw new WsError(
        "INSUFFICIENT_SCOPE",
        `this key lacks the scope ${filter.scope} that this subscription needs; its scopes: ${this.#key.scopes.join(", ")}`,
        { id },
      );
    }
  }

  async #checkReplay(afterSeq: number, id: string | undefined): Promise<void> {
    const { feed, settings } = this.#deps;
    const last = await feed.lastSeq();
    if (afterSeq > last) {
      throw new WsError("INVALID_AFTER_SEQ", `afterSeq: ${afterSeq} is past the newest log entry (${last})`, {
        field: "afterSeq",
        id,
        seq: last,
      });
    }
    if (last - afterSeq > settings.maxReplay) {
      throw new WsError(
        "INVALID_AFTER_SEQ",
        `afterSeq: ${last - afterSeq} entries behind the newest (${last}), more than the ${settings.maxReplay} a ` +
          "subscription replays: read the current state over REST and subscribe without afterSeq",
        { field: "afterSeq", id, seq: last },
      );
    }
  }

  #unsubscribe(id: string): void {
    const subscription = this.#subscriptions.get(id);
    if (!subscription) {
      throw new WsError("SUBSCRIPTION_NOT_FOUND", `id: no subscription ${id} on this connection`, { field: "id", id });
    }
    subscription.stop();
    this.#send({ type: "unsubscribed", id });
  }

  #newId(): string {
    let id: string;
    do id = String(this.#nextId++);
    while (this.#subscriptions.has(id));
    return id;
  }

  /**
   * Sends unless the message would take what waits for the client past `maxBufferedBytes` (checked before it is
   * queued, so a client that does not read holds at most that much here, or one message when nothing waits): such a
   * client is closed (4413).
   */
  #send(message: object): void {
    if (this.#closed || this.#socket.readyState !== OPEN) return;
    const text = JSON.stringify(message);
    const waiting = this.#socket.bufferedAmount;
    if (waiting > 0 && waiting + Buffer.byteLength(text) > this.#deps.settings.maxBufferedBytes) {
      this.close(CLOSE.SLOW_CONSUMER, "the client reads too slowly");
      return;
    }
    this.#socket.send(text);
  }

  #idleTimeout(): void {
    this.close(CLOSE.IDLE, `no message for ${this.#deps.settings.idleTimeoutMs / 1000} s`);
  }

  #keyRejected(error: unknown): void {
    if (!isCredentialRefusal(error)) {
      // The key store did not answer: the key is checked again at the next heartbeat.
      this.#deps.logger.warn({ err: error }, "ws: key check failed");
      return;
    }
    this.#send(new WsError("UNAUTHORIZED", error.message, { field: "token" }).toMessage());
    this.close(CLOSE.KEY_REJECTED, "the key was revoked or expired");
  }

  #cleanUp(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idle);
    this.#inbox.length = 0;
    // Read on, so that the client's answer to the close (or its end) is seen.
    if (this.#paused) this.#socket.resume();
    for (const subscription of [...this.#subscriptions.values()]) subscription.stop();
    this.#deps.caps.close(this.#holder);
    this.#onClosed();
  }
}
