import type { Context } from "koa";

/**
 * JSON bodies serialized once per value. The hot public reads hand out one object for as long as it is current (the
 * leaderboard page for a second, the vault list for a block, the health snapshot for a second), so its text is
 * built once and reused by every request that gets the same object.
 */
export class SerializedJson<T extends object> {
  /** Encoded once as well: a Buffer body is written as it is, a string would be encoded to UTF-8 per response. */
  private readonly bodies = new WeakMap<T, Buffer>();

  /** `toBody`: the wire shape of a value (what JSON.stringify receives). */
  constructor(private readonly toBody: (value: T) => unknown) {}

  /** Sets the JSON content type on `ctx` and returns the body of `value` (a route handler returns it). */
  respond(ctx: Context, value: T): Buffer {
    let body = this.bodies.get(value);
    if (body === undefined) {
      body = Buffer.from(JSON.stringify(this.toBody(value)), "utf8");
      this.bodies.set(value, body);
    }
    ctx.set("Content-Type", "application/json; charset=utf-8");
    return body;
  }
}
