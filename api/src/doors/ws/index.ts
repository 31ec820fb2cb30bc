import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { WsConfig } from "../../config";
import type { Logger } from "../../logger";
import type { EventFeed } from "../../readmodel/feed";
import type { DataQueries } from "../../readmodel/queries";
import type { DataKeyService, TierLimiter } from "../data/access";
import { refuseUpgrade, type UpgradeDoor } from "../sockets/upgrades";
import { SocketCaps } from "../sockets/caps";
import { Connection } from "./connection";
import { CLOSE, KEY_CHECK_MS, MAX_CLIENT_MESSAGE_BYTES, WS_PATH } from "./protocol";

/**
 * The data API's WebSocket channel at /ws (docs/websocket.md): a small JSON protocol (auth, subscribe, unsubscribe,
 * ping) over the same event feed as the GraphQL subscriptions, with the data API's keys, tiers and rate limits.
 * It shares the HTTP server's upgrade event with the GraphQL door (doors/sockets/upgrades.ts).
 */

export interface WsDoorOptions {
  feed: EventFeed;
  queries: DataQueries;
  keys: DataKeyService;
  /** Absent: rate limits disabled. */
  limiter?: TierLimiter;
  settings: WsConfig;
  logger: Logger;
  /** The client's IP as the HTTP doors see it (X-Forwarded-For believed for the trusted proxy hops only). */
  clientIp(request: IncomingMessage): string;
}

export interface WsDoor extends UpgradeDoor {
  /** Open connections of this instance. */
  readonly connections: number;
  caps: SocketCaps;
  /** Closes every connection with 1001 (clients reconnect elsewhere and resume) and stops the heartbeat. */
  close(): Promise<void>;
}

export function wsDoor(options: WsDoorOptions): WsDoor {
  const { settings } = options;
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  const caps = new SocketCaps(settings.maxConnectionsPerIp, settings.maxConnectionsPerKey);
  const connections = new Set<Connection>();
  const deps = { ...options, caps };
  let closing = false;

  const heartbeat = setInterval(() => {
    for (const connection of connections) connection.heartbeat();
  }, settings.heartbeatMs);
  heartbeat.unref();
  const keyCheck = setInterval(
    () => {
      for (const connection of connections) connection.checkKey();
    },
    Math.min(KEY_CHECK_MS, settings.heartbeatMs),
  );
  keyCheck.unref();

  const tooMany = (ip: string) => ({
    error: {
      code: "CONNECTION_LIMIT_REACHED",
      message: `${settings.maxConnectionsPerIp} connections from ${ip} are open, the most one address may hold (with a key or without): close one first`,
      details: { limit: settings.maxConnectionsPerIp },
    },
  });

  return {
    caps,
    get connections() {
      return connections.size;
    },
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      const path = new URL(request.url ?? "/", "http://localhost").pathname.replace(/\/$/, "");
      if (path !== WS_PATH) return false;
      if (closing) {
        refuseUpgrade(socket, 503, { error: { code: "UNAVAILABLE", message: "the server is shutting down" } });
        return true;
      }
      const ip = options.clientIp(request);
      // Refused before the handshake, so that a flood from one address costs no WebSocket state.
      if (!caps.ipHasRoom(ip)) {
        refuseUpgrade(socket, 429, tooMany(ip));
        return true;
      }
      server.handleUpgrade(request, socket, head, (ws) => {
        const holder = caps.openForIp(ip);
        if (!holder || closing) {
          ws.close(closing ? CLOSE.GOING_AWAY : CLOSE.CONNECTION_LIMIT, "connection limit reached");
          return;
        }
        const connection: Connection = new Connection(ws, ip, holder, deps, () => connections.delete(connection));
        connections.add(connection);
      });
      return true;
    },
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(heartbeat);
      clearInterval(keyCheck);
      for (const connection of [...connections]) connection.close(CLOSE.GOING_AWAY, "server shutting down");
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
