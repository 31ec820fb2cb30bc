import { randomUUID } from "node:crypto";
import type Redis from "ioredis";
import type { Logger } from "../logger";

/**
 * The notice that wakes every instance's EventFeed when an indexer has moved the read model on, sent through Redis
 * pub/sub so that a subscriber on another instance hears of a new event at once instead of at its feed's next poll.
 *
 * A notice carries no event: it only says "read the log now". The events themselves stay in the store's durable,
 * ordered log, read by seq, so a notice lost while Redis is down (pub/sub keeps nothing for a subscriber that is
 * away) is only a delay until the next poll, never a loss. After a drop, the subscriber connection reconnects
 * (ioredis' retry strategy) and subscribes again, then wakes the feed once, so whatever was written meanwhile is read
 * without waiting for the poll.
 *
 * Messages on FEED_NOTICE_CHANNEL, each with `source` (the instance's id; an instance ignores its own notices, its
 * indexer and chain head tell it directly):
 * - `{"source", "height", "events"?}`: the indexed block moved to `height`; `events: false` when the log did not grow
 *   (then only the reads waiting for a block are checked, the feeds are not woken). Without `events`: it grew.
 * - `{"source", "mined"}`: this instance recorded a receipt (or read) of block `mined`: the indexer holding the lease,
 *   wherever it runs, steps at once instead of at its next poll.
 */

export const FEED_NOTICE_CHANNEL = "nap:readmodel:indexed";

export interface FeedNoticeOptions {
  /** The instance's Redis client: notices are published on it; the subscriber is a duplicate of it. */
  redis: Redis;
  logger: Logger;
  /** Called on every other instance's notice that the log grew, and once after each (re)subscription. */
  onNotice: () => void;
  /** Called on every other instance's notice that the indexed block moved (undefined: after a (re)subscription). */
  onIndexedHeight?: (height: number | undefined) => void;
  /** Called on every other instance's notice of a mined block. */
  onMined?: (block: number) => void;
  channel?: string;
}

export class RedisFeedNotices {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #logger: Logger;
  readonly #channel: string;
  readonly #source = randomUUID();
  /** True from a drop of the subscriber connection until it is subscribed again (one warning per outage). */
  #down = false;
  #closed = false;

  constructor(options: FeedNoticeOptions) {
    this.#publisher = options.redis;
    this.#logger = options.logger;
    this.#channel = options.channel ?? FEED_NOTICE_CHANNEL;
    // A subscribed connection can run nothing else, hence a connection of its own. Subscribing is done here on every
    // "ready" (not by ioredis' auto-resubscribe) so that the wake after a reconnect comes once the subscription is
    // back: a notice published after that wake's read is heard.
    this.#subscriber = options.redis.duplicate({
      lazyConnect: true,
      autoResubscribe: false,
      maxRetriesPerRequest: null,
    });
    this.#subscriber.on("ready", () => {
      this.#subscriber.subscribe(this.#channel).then(
        () => {
          if (this.#down) this.#logger.info("feed notices: Redis back; reading the event log for what was missed");
          this.#down = false;
          options.onNotice();
          options.onIndexedHeight?.(undefined);
        },
        (error: unknown) => this.#logger.warn({ err: error }, "feed notices: subscribe failed; retried on reconnect"),
      );
    });
    this.#subscriber.on("message", (_channel: string, message: string) => {
      const notice = this.#parse(message);
      if (notice.source === this.#source) return;
      if (typeof notice.mined === "number") {
        options.onMined?.(notice.mined);
        return;
      }
      if (notice.events !== false) options.onNotice();
      options.onIndexedHeight?.(typeof notice.height === "number" ? notice.height : undefined);
    });
    const lost = (error?: unknown) => {
      if (this.#down || this.#closed) return;
      this.#down = true;
      this.#logger.warn({ err: error }, "feed notices: Redis unreachable; feeds poll the event log until it is back");
    };
    this.#subscriber.on("error", lost);
    this.#subscriber.on("close", () => lost());
    this.#subscriber.connect().catch(() => {
      // Reported by the "error" handler; ioredis keeps reconnecting.
    });
  }

  /** Tells the other instances that the log or the cursor moved. Never waits and never throws: polling covers a miss. */
  publish(height: number, events = true): void {
    this.#send(JSON.stringify({ source: this.#source, height, ...(!events && { events }) }));
  }

  /** Tells the other instances that a block was mined (the indexer's holder steps at once). Never waits or throws. */
  publishMined(block: number): void {
    this.#send(JSON.stringify({ source: this.#source, mined: block }));
  }

  #send(message: string): void {
    this.#publisher.publish(this.#channel, message).catch((error: unknown) => {
      this.#logger.debug({ err: error }, "feed notice not published (Redis unreachable); other feeds will poll");
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect());
  }

  #parse(message: string): { source?: unknown; height?: unknown; events?: unknown; mined?: unknown } {
    try {
      const notice: unknown = JSON.parse(message);
      return notice !== null && typeof notice === "object" ? notice : {};
    } catch {
      return {};
    }
  }
}
