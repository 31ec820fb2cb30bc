/**
 * Concurrent connections of this instance, counted per client IP while a connection is anonymous and per key once it
 * authenticates (the connection moves from its IP's count to its key's). So one address cannot hold more than its
 * share of anonymous sockets, and callers behind one address (a NAT, an operator's fleet) can open more by
 * authenticating, up to their key's cap.
 */

import { OwnerCounts } from "../sockets/ownerCounts";

export type Holder = { kind: "ip"; ip: string } | { kind: "key"; keyId: string };

export class ConnectionCaps {
  readonly #byIp = new OwnerCounts();
  readonly #byKey = new OwnerCounts();

  constructor(
    readonly maxPerIp: number,
    readonly maxPerKey: number,
  ) {}

  /** Whether `ip` has room for one more anonymous connection (no reservation). */
  ipHasRoom(ip: string): boolean {
    return this.#byIp.count(ip) < this.maxPerIp;
  }

  /** Counts a new anonymous connection of `ip`; null when its cap is reached. */
  openForIp(ip: string): Holder | null {
    if (!this.ipHasRoom(ip)) return null;
    this.#byIp.add(ip);
    return { kind: "ip", ip };
  }

  /** Moves a connection to `keyId`'s count; null (and nothing moved) when the key's cap is reached. */
  moveToKey(holder: Holder, keyId: string): Holder | null {
    if (this.#byKey.count(keyId) >= this.maxPerKey) return null;
    this.release(holder);
    this.#byKey.add(keyId);
    return { kind: "key", keyId };
  }

  release(holder: Holder): void {
    if (holder.kind === "ip") this.#byIp.release(holder.ip);
    else this.#byKey.release(holder.keyId);
  }

  /** Connections counted now for an IP or a key (tests, metrics). */
  count(holder: Holder): number {
    return holder.kind === "ip" ? this.#byIp.count(holder.ip) : this.#byKey.count(holder.keyId);
  }
}
