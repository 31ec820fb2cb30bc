/**
 * The caps of both socket doors (GraphQL subscriptions and `/ws`): what one client holds open on this instance,
 * counted per client IP and per data key, each kind under its own cap.
 *
 * - A socket counts against its IP for as long as it is open, with a key or without, so that keys (which any wallet
 *   can mint) never widen what one address may hold; once it authenticates it counts against its key as well, so
 *   that one key spread over many addresses is bounded too (SocketCaps).
 * - An operation on a socket (a GraphQL subscription) counts against the socket's key when it has one, else against
 *   its IP (OwnerCaps with ownerOf).
 *
 * Counts live in this process: a socket lives on one instance, and a count kept elsewhere would outlive a crashed
 * instance's sockets. With several instances behind a balancer, a client can hold the caps on each.
 */

/** Who something is counted against. */
export type CapOwner = { readonly kind: "ip" | "key"; readonly id: string };

export const ipOwner = (ip: string): CapOwner => ({ kind: "ip", id: ip });
export const keyOwner = (keyId: string): CapOwner => ({ kind: "key", id: keyId });

/** The key's owner when there is a key, else the IP's. */
export const ownerOf = (ip: string, keyId: string | undefined): CapOwner =>
  keyId === undefined ? ipOwner(ip) : keyOwner(keyId);

/** Counts per owner, at most `maxPerIp` for an IP and `maxPerKey` for a key. */
export class OwnerCaps {
  readonly #counts = { ip: new Map<string, number>(), key: new Map<string, number>() };

  constructor(
    readonly maxPerIp: number,
    readonly maxPerKey: number,
  ) {}

  capOf(owner: CapOwner): number {
    return owner.kind === "ip" ? this.maxPerIp : this.maxPerKey;
  }

  count(owner: CapOwner): number {
    return this.#counts[owner.kind].get(owner.id) ?? 0;
  }

  /** Whether `owner` may take one more (no reservation). */
  hasRoom(owner: CapOwner): boolean {
    return this.count(owner) < this.capOf(owner);
  }

  /** Counts one more against `owner`; false, counting nothing, when its cap is reached. */
  take(owner: CapOwner): boolean {
    if (!this.hasRoom(owner)) return false;
    this.#counts[owner.kind].set(owner.id, this.count(owner) + 1);
    return true;
  }

  /** Gives one back; an owner whose count reaches 0 is forgotten, so the maps hold only owners with something open. */
  release(owner: CapOwner): void {
    const counts = this.#counts[owner.kind];
    const left = this.count(owner) - 1;
    if (left > 0) counts.set(owner.id, left);
    else counts.delete(owner.id);
  }
}

/** Who a socket is counted against: its IP always, its key once it authenticates. */
export interface Holder {
  readonly ip: string;
  readonly keyId?: string;
}

/** Open sockets: each against its IP, and against its key too once it has one. */
export class SocketCaps extends OwnerCaps {
  ipHasRoom(ip: string): boolean {
    return this.hasRoom(ipOwner(ip));
  }

  keyHasRoom(keyId: string): boolean {
    return this.hasRoom(keyOwner(keyId));
  }

  /** Counts a new socket of `ip`; null when its cap is reached. */
  openForIp(ip: string): Holder | null {
    return this.take(ipOwner(ip)) ? { ip } : null;
  }

  /** Counts the socket against `keyId` too (it stays counted against its IP); null when the key's cap is reached. */
  addKey(holder: Holder, keyId: string): Holder | null {
    return this.take(keyOwner(keyId)) ? { ip: holder.ip, keyId } : null;
  }

  /** The socket closed: gives back its IP's place and its key's. */
  close(holder: Holder): void {
    this.release(ipOwner(holder.ip));
    if (holder.keyId !== undefined) this.release(keyOwner(holder.keyId));
  }

  /** Sockets counted now against an IP (tests, metrics). */
  ipCount(ip: string): number {
    return this.count(ipOwner(ip));
  }

  /** Sockets counted now against a key (tests, metrics). */
  keyCount(keyId: string): number {
    return this.count(keyOwner(keyId));
  }
}
