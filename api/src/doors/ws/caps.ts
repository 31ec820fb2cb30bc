/**
 * Concurrent connections of this instance. Every connection counts against its client IP for as long as it is open,
 * with a key or without, so that keys (which any wallet can mint) never widen what one address may hold; a
 * connection that authenticates counts against its key as well, so that one key spread over many addresses is
 * bounded too.
 */

import { OwnerCounts } from "../sockets/ownerCounts";

/** Who a connection is counted against: its IP always, its key once it authenticates. */
export interface Holder {
  readonly ip: string;
  readonly keyId?: string;
}

export class ConnectionCaps {
  readonly #byIp = new OwnerCounts();
  readonly #byKey = new OwnerCounts();

  constructor(
    readonly maxPerIp: number,
    readonly maxPerKey: number,
  ) {}

  /** Whether `ip` has room for one more connection (no reservation). */
  ipHasRoom(ip: string): boolean {
    return this.#byIp.count(ip) < this.maxPerIp;
  }

  /** Counts a new connection of `ip`; null when its cap is reached. */
  openForIp(ip: string): Holder | null {
    if (!this.ipHasRoom(ip)) return null;
    this.#byIp.add(ip);
    return { ip };
  }

  /** Counts the connection against `keyId` too (it stays counted against its IP); null when the key's cap is reached. */
  addKey(holder: Holder, keyId: string): Holder | null {
    if (this.#byKey.count(keyId) >= this.maxPerKey) return null;
    this.#byKey.add(keyId);
    return { ip: holder.ip, keyId };
  }

  release(holder: Holder): void {
    this.#byIp.release(holder.ip);
    if (holder.keyId !== undefined) this.#byKey.release(holder.keyId);
  }

  /** Connections counted now against an IP (tests, metrics). */
  ipCount(ip: string): number {
    return this.#byIp.count(ip);
  }

  /** Connections counted now against a key (tests, metrics). */
  keyCount(keyId: string): number {
    return this.#byKey.count(keyId);
  }
}
