import type { IncomingMessage } from "node:http";

/**
 * The client IP of a request that never becomes a Koa context (a WebSocket upgrade), read exactly as Koa reads
 * `ctx.ip` with `app.proxy = trustedProxyCount > 0` and `app.maxIpsCount = trustedProxyCount`: X-Forwarded-For is
 * believed only for the trusted proxy hops nearest the server, else the socket's remote address. So the sockets and
 * REST count one caller under one address.
 */
export function clientIp(request: IncomingMessage, trustedProxyCount: number): string {
  const remote = request.socket.remoteAddress ?? "";
  const forwarded = request.headers["x-forwarded-for"];
  if (trustedProxyCount === 0 || typeof forwarded !== "string" || forwarded === "") return remote;
  const ips = forwarded.split(",").map((ip) => ip.trim());
  return ips.slice(-trustedProxyCount)[0] || remote;
}
