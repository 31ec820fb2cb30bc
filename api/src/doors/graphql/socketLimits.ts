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
 * Both socket doors count with sockets/caps.ts, in this process: with several instances behind a balancer, a client
 * can hold the caps on each.
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
