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
 * Message: `{"source": <instance id>, "height": <indexed block>}` on FEED_NOTICE_CHANNEL. An instance ignores its
 * own notices (its indexer wakes its feed directly); the height is for whoever watches the channel.
 */

export const FEED_NOTICE_CHANNEL = "nap:readmodel:indexed";

export interface FeedNoticeOptions {
  /** The instance's Redis client: notices are published on it; the subscriber is a duplicate of it. */
  redis: Redis;
  logger: Logger;
  /** Called on every other instance's notice, and once after each (re)subscription. */
  onNotice: () => void;
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
        },
        (error: unknown) => this.#logger.warn({ err: error }, "feed notices: subscribe failed; retried on reconnect"),
      );
    });
    this.#subscriber.on("message", (_channel: string, message: string) => {
      if (this.#sourceOf(message) !== this.#source) options.onNotice();
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
  publish(height: number): void {
    const message = JSON.stringify({ source: this.#source, height });
    this.#publisher.publish(this.#channel, message).catch((error: unknown) => {
      this.#logger.debug({ err: error }, "feed notice not published (Redis unreachable); other feeds will poll");
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect());
  }

  #sourceOf(message: string): string | undefined {
    try {
      return (JSON.parse(message) as { source?: string }).source;
    } catch {
      return undefined;
    }
  }
}
