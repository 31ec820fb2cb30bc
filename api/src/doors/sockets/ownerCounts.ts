/**
 * Open sockets or subscriptions of this instance, counted per owner (an IP address or a key id, as the caller names
 * them). Counts are kept in this process: a socket lives on one instance, and a count kept elsewhere would outlive a
 * crashed instance's sockets.
 */
export class OwnerCounts {
  readonly #counts = new Map<string, number>();

  count(owner: string): number {
    return this.#counts.get(owner) ?? 0;
  }

  add(owner: string): void {
    this.#counts.set(owner, this.count(owner) + 1);
  }

  /** Takes one away; an owner whose count reaches 0 is forgotten, so the map holds only owners with open sockets. */
  release(owner: string): void {
    const left = this.count(owner) - 1;
    if (left > 0) this.#counts.set(owner, left);
    else this.#counts.delete(owner);
  }
}
