import type { Context } from "koa";

/**
 * JSON bodies serialized once per value. The hot public reads hand out one object for as long as it is current (the
 * leaderboard page for a second, the vault list for a block, the health snapshot for a second), so its text is
 * built once and reused by every request that gets the same object.
 */

const JSON_TYPE = "application/json; charset=utf-8";

/** A body encoded once, with its Content-Length header value. */
interface Encoded {
  /** A Buffer body is written as it is; a string would be encoded to UTF-8 per response. */
  bytes: Buffer;
  length: string;
}

export class SerializedJson<T extends object> {
  private readonly bodies = new WeakMap<T, Encoded>();

  /** `toBody`: the wire shape of a value (what JSON.stringify receives). */
  constructor(private readonly toBody: (value: T) => unknown) {}

  /** Sets the JSON content type on `ctx` and returns the body of `value` (a route handler returns it). */
  respond(ctx: Context, value: T): Buffer {
    ctx.set("Content-Type", JSON_TYPE);
    return this.encoded(value).bytes;
  }

  /**
   * Answers 200 with the body of `value` and returns undefined (a route handler returns that: it has answered). The
   * answer is written here, as Koa would write a Buffer body (status, Content-Type, Content-Length, the body; no body
   * for HEAD), without Koa's body setter and response step, which would re-derive per request what is fixed per body
   * (its type and length). Headers set before (request id, security headers, limits, CORS) go out with it; nothing
   * may set one after, so only a door's last step sends.
   */
  send(ctx: Context, value: T): undefined {
    const { bytes, length } = this.encoded(value);
    // Koa leaves the response to us, and writes nothing to a client that has gone (as its own response step).
    ctx.respond = false;
    if (!ctx.writable) return undefined;
    const res = ctx.res;
    res.statusCode = 200;
    res.setHeader("Content-Type", JSON_TYPE);
    res.setHeader("Content-Length", length);
    res.end(bytes);
    return undefined;
  }

  private encoded(value: T): Encoded {
    let body = this.bodies.get(value);
    if (body === undefined) {
      const bytes = Buffer.from(JSON.stringify(this.toBody(value)), "utf8");
      body = { bytes, length: String(bytes.length) };
      this.bodies.set(value, body);
    }
    return body;
  }
}
