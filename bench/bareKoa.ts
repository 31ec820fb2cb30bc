/**
 * The baseline of `npm run bench:api`: a bare Koa app that answers each benchmarked path with the body the API gave
 * for it (the bench sends the bytes over IPC before the path's runs), its Content-Type and the security headers every
 * API response must carry, and does nothing else: no routing, validation, request id, limits or logging.
 */
import Koa from "koa";
import { SECURITY_HEADERS } from "../api/src/doors/middleware";

/** What the bench sends before loading a path: the API's answer to copy. */
export interface BareBody {
  path: string;
  contentType: string;
  body: string;
}

const bodies = new Map<string, { contentType: string; body: Buffer }>();
process.on("message", (message: BareBody) => {
  bodies.set(message.path, { contentType: message.contentType, body: Buffer.from(message.body, "utf8") });
  process.send?.({ stored: message.path });
});

const securityHeaders = Object.entries(SECURITY_HEADERS);
const app = new Koa();
app.use((ctx) => {
  const answer = bodies.get(ctx.path);
  if (!answer) return; // 404: the bench only loads paths it has sent
  for (const [name, value] of securityHeaders) ctx.res.setHeader(name, value);
  ctx.set("Content-Type", answer.contentType);
  ctx.body = answer.body;
});
const server = app.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
