/**
 * Concurrent connections of this instance, counted per client IP while a connection is anonymous and per key once it
 * authenticates (the connection moves from its IP's count to its key's). So one address cannot hold more than its
 * share of anonymous sockets, and callers behind one address (a NAT, an operator's fleet) can open more by
 * authenticating, up to their key's cap.
 */

export type Holder = { kind: "ip"; ip: string } | { kind: "key"; keyId: string };

export class ConnectionCaps {
  readonly #byIp = new Map<string, number>();
  readonly #byKey = new Map<string, number>();

  constructor(
    readonly maxPerIp: number,
    readonly maxPerKey: number,
  ) {}

  /** Whether `ip` has room for one more anonymous connection (no reservation). */
  ipHasRoom(ip: string): boolean {
    return (this.#byIp.get(ip) ?? 0) < this.maxPerIp;
  }

  /** Counts a new anonymous connection of `ip`; null when its cap is reached. */
  openForIp(ip: string): Holder | null {
    if (!this.ipHasRoom(ip)) return null;
    this.#byIp.set(ip, (this.#byIp.get(ip) ?? 0) + 1);
    return { kind: "ip", ip };
  }

  /** Moves a connection to `keyId`'s count; null (and nothing moved) when the key's cap is reached. */
  moveToKey(holder: Holder, keyId: string): Holder | null {
    if ((this.#byKey.get(keyId) ?? 0) >= this.maxPerKey) return null;
    this.release(holder);
    this.#byKey.set(keyId, (this.#byKey.get(keyId) ?? 0) + 1);
    return { kind: "key", keyId };
  }

  release(holder: Holder): void {
    const [counts, name] = holder.kind === "ip" ? [this.#byIp, holder.ip] : [this.#byKey, holder.keyId];
    const left = (counts.get(name) ?? 0) - 1;
    if (left > 0) counts.set(name, left);
    else counts.delete(name);
  }

  /** Connections counted now for an IP or a key (tests, metrics). */
  count(holder: Holder): number {
    return holder.kind === "ip" ? (this.#byIp.get(holder.ip) ?? 0) : (this.#byKey.get(holder.keyId) ?? 0);
  }
}
