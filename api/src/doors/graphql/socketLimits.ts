import type { IncomingMessage } from "node:http";

/**
 * Caps on the subscription sockets of one instance, and who a socket belongs to.
 *
 * - Every socket counts against its client IP (`connectionsPerIp`), checked at the WebSocket upgrade.
 * - A socket authenticated with a data key also counts against the key (`connectionsPerKey`), checked when the
 *   graphql-ws connection is initialised (the key travels in its payload).
 * - Open subscriptions count against the key when the socket has one, else against the IP (`subscriptionsPerKey`,
 *   `subscriptionsPerIp`).
 *
 * Counts are kept in this process: a socket lives on one instance, and a count kept elsewhere would outlive a crashed
 * instance's sockets. With several instances behind a balancer, a client can hold the caps on each.
 */

export interface SubscriptionCaps {
  connectionsPerIp: number;
  connectionsPerKey: number;
  subscriptionsPerIp: number;
  subscriptionsPerKey: number;
}

export const DEFAULT_SUBSCRIPTION_CAPS: Readonly<SubscriptionCaps> = {
  connectionsPerIp: 100,
  connectionsPerKey: 50,
  subscriptionsPerIp: 100,
  subscriptionsPerKey: 500,
};

/** The client IP of an upgrade request, as Koa reads it: X-Forwarded-For only through the trusted proxy hops. */
export function clientIp(request: IncomingMessage, trustedProxyCount: number): string {
  const remote = request.socket.remoteAddress ?? "";
  const forwarded = request.headers["x-forwarded-for"];
  if (trustedProxyCount === 0 || typeof forwarded !== "string" || forwarded.trim() === "") return remote;
  const ips = forwarded.split(/\s*,\s*/).slice(-trustedProxyCount);
  return ips[0] || remote;
}

/**
 * The data key a graphql-ws client presents: `authorization: "Bearer <key>"` (any case of the name) in the
 * connection_init payload, else the upgrade request's Authorization header (for clients that can set one).
 * Answers undefined without one, and the raw value when it is not `Bearer <key>` (the key service refuses it).
 */
export function presentedKey(
  connectionParams: Readonly<Record<string, unknown>> | undefined,
  request: IncomingMessage,
): string | undefined {
  const fromParams = Object.entries(connectionParams ?? {}).find(([name]) => name.toLowerCase() === "authorization");
  const value = fromParams ? fromParams[1] : request.headers.authorization;
  if (value === undefined || value === "") return undefined;
  const text = String(value).trim();
  return /^Bearer +(\S+)$/i.exec(text)?.[1] ?? text;
}

/** Open sockets and subscriptions by owner (`ip:<address>` or `key:<key id>`). */
export class SocketCounts {
  readonly #counts = new Map<string, number>();

  count(owner: string): number {
    return this.#counts.get(owner) ?? 0;
  }

  add(owner: string): void {
    this.#counts.set(owner, this.count(owner) + 1);
  }

  release(owner: string): void {
    const left = this.count(owner) - 1;
    if (left > 0) this.#counts.set(owner, left);
    else this.#counts.delete(owner);
  }
}
