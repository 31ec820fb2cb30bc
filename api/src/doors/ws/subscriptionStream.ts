import type { Logger } from "../../logger";
import type { EventLogEntry } from "../../readmodel/records";
import type { ChannelFilter } from "./channels";
import { WsError } from "./protocol";

/**
 * One subscription of a /ws connection: the log entries its filter accepts, queued in log order and sent one message
 * at a time, so a message is never overtaken by a later one of the same subscription. Replayed entries wait until
 * `subscribed` has been sent (start()).
 */

/**
 * Entries one subscription may hold waiting for their messages to be made: twice a resume's replay, and never fewer
 * than MIN_QUEUED. A subscription whose messages are made slower than entries come ends and says where to resume,
 * instead of holding an ever longer queue.
 */
const MIN_QUEUED = 100;
export function maxQueued(maxReplay: number): number {
  return Math.max(2 * maxReplay, MIN_QUEUED);
}

const MESSAGE_TYPE = { vault: "vault", transactions: "transaction" } as const;

/** What a stream needs of its connection. */
export interface StreamOutlet {
  send(message: object): void;
  /** The stream stopped (unsubscribed, failed, overflowed or its connection closed). */
  stopped(stream: SubscriptionStream): void;
  logger: Logger;
}

export class SubscriptionStream {
  /** Kept entries not yet sent, oldest first (at most `maxQueued`). */
  readonly #queue: EventLogEntry[] = [];
  /** The seq of the entry whose message is being made, until it is sent. */
  #making: number | undefined;
  /** False until `subscribed` is sent: replayed entries wait behind it. */
  #started = false;
  #pumping = false;
  #stopped = false;
  #stopListening: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly filter: ChannelFilter,
    private readonly maxQueued: number,
    private readonly outlet: StreamOutlet,
  ) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  /** An entry of the event log: queued when the filter accepts it; a full queue ends the subscription. */
  offer(entry: EventLogEntry): void {
    if (this.#stopped || !this.filter.accept(entry)) return;
    this.#queue.push(entry);
    if (this.#queue.length > this.maxQueued) return this.#overflow();
    void this.#pump();
  }

  /** The feed's listener was added: `stop` removes it (at once when the stream stopped meanwhile). */
  listening(stop: () => void): void {
    if (this.#stopped) return stop();
    this.#stopListening = stop;
  }

  /** `subscribed` was sent: the queued entries follow. */
  start(): void {
    this.#started = true;
    void this.#pump();
  }

  stop(): void {
    this.#stopped = true;
    this.#queue.length = 0;
    this.#stopListening?.();
    this.outlet.stopped(this);
  }

  /** Sends the queued entries in order, one message at a time. */
  async #pump(): Promise<void> {
    if (!this.#started || this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0 && !this.#stopped) {
        const entry = this.#queue.shift() as EventLogEntry;
        this.#making = entry.seq;
        let fields: Record<string, unknown> | null;
        try {
          fields = await this.filter.build(entry);
        } catch (error) {
          if (this.#stopped) return;
          // Nothing is skipped silently: the subscription ends and says where to resume.
          this.outlet.logger.warn({ err: error, seq: entry.seq }, "ws: a subscription message could not be made");
          this.#end(
            `the message for seq ${entry.seq} could not be made; subscribe again with afterSeq ${entry.seq - 1}`,
            entry.seq - 1,
          );
          return;
        }
        if (fields === null || this.#stopped) continue;
        this.outlet.send({ type: MESSAGE_TYPE[this.filter.channel], id: this.id, seq: entry.seq, ...fields });
        this.#making = undefined;
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** Ends a stream whose queue is full, with the seq to resume after (the first entry not sent, less one). */
  #overflow(): void {
    const resumeAfter = (this.#making ?? this.#queue[0].seq) - 1;
    this.#end(
      `more than ${this.maxQueued} entries waited for their messages to be made; subscribe again with afterSeq ${resumeAfter}`,
      resumeAfter,
    );
  }

  /** Stops, and tells the client why and where to resume. */
  #end(why: string, resumeAfter: number): void {
    this.stop();
    this.outlet.send(
      new WsError("UNAVAILABLE", `subscription ${this.id} stopped: ${why}`, {
        id: this.id,
        seq: resumeAfter,
      }).toMessage(),
    );
  }
}
