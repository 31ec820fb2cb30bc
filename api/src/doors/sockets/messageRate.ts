/**
 * The message rate of one socket (/ws and graphql-ws): a token bucket that holds `burst` messages and refills `perSecond` a
 * second. Every client message takes one, whatever it is, so that no kind of message (a ping, an unknown
 * unsubscribe, a malformed frame) is free to flood with. It is kept per socket, apart from the tier's request budget
 * (shared with REST), because it bounds what one socket makes this process do, not what a caller may ask for.
 */
export class MessageRate {
  #tokens: number;
  #refilledAt: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokens = burst;
    this.#refilledAt = now();
  }

  /** Takes one message from the bucket; false when it is empty (the message is over the rate). */
  take(): boolean {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#refilledAt) / 1000) * this.perSecond);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
