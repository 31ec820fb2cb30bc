import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";

/**
 * One listener for the HTTP server's `upgrade` event, shared by the doors that speak WebSocket (GraphQL
 * subscriptions on /graphql and /v1/graphql, the /ws channel): each door takes the requests for its paths, and a
 * request for any other path is answered 404 and its socket closed.
 */

export interface UpgradeDoor {
  /** Answers whether the door took this upgrade request (it then owns the socket). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}

/** Answers an upgrade request with an HTTP error and a JSON body, then closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      "Connection: close\r\n" +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n` +
      text,
  );
}

/** Routes the server's upgrade requests to `doors`; answers the function that stops. */
export function routeUpgrades(server: Server, doors: readonly UpgradeDoor[]): () => void {
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (doors.some((door) => door.handleUpgrade(request, socket, head))) return;
    refuseUpgrade(socket, 404, {
      error: { code: "NOT_FOUND", message: "WebSocket is served on /ws, /graphql and /v1/graphql only" },
    });
  };
  server.on("upgrade", onUpgrade);
  return () => {
    server.off("upgrade", onUpgrade);
  };
}
