import type { IncomingMessage } from "node:http";
import type { Context } from "koa";
import { z } from "zod";
import { PayloadTooLargeError, ValidationError } from "../../errors";
import { validationMessage } from "../../../../packages/wire/src/messages";

/**
 * Request validation with zod: query, path parameters and JSON bodies. Every failure is a ValidationError whose
 * message names the field and the rule ("agent_name: must be at least 3 characters"). Objects are strict, so an
 * unknown field is named too.
 */

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, location: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(validationMessage(result.error, location, input));
  return result.data;
}

/** Query values as strings; a parameter given twice is a 400 (never silently the first or last). */
export function singleValuedQuery(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  if (ctx.querystring === "") return out;
  for (const [name, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw new ValidationError(`${name}: must be given once`);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * Reads a JSON body: `Content-Type: application/json`, at most `limitBytes`, valid JSON, an object.
 * An absent body (no Content-Length/Transfer-Encoding) reads as {} so that routes without required fields accept it.
 * A body past the limit is a PayloadTooLargeError (413 on every door): a declared length before anything is read, a
 * chunked one as soon as the count passes the limit; what follows is read and dropped, never kept.
 */
export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  const req = ctx.req;
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  if (!hasBody) return {};
  if (!ctx.is("application/json")) {
    req.resume();
    throw new ValidationError("body: Content-Type must be application/json");
  }
  if (Number(req.headers["content-length"] ?? 0) > limitBytes) {
    // Dropped as it arrives: closing instead would let the client's kernel discard the 413 on the reset that follows.
    req.resume();
    throw new PayloadTooLargeError(limitBytes);
  }
  const chunks = await readUpTo(req, limitBytes);
  const text = Buffer.concat(chunks).toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError("body: malformed JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ValidationError("body: must be a JSON object");
  }
  return parsed;
}

/**
 * The chunks of a body of at most `limitBytes`. Listeners rather than `for await`: leaving that loop early destroys
 * the request, and the answer with it.
 */
function readUpTo(req: IncomingMessage, limitBytes: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      req.off("data", onData);
      chunks.length = 0;
      reject(new PayloadTooLargeError(limitBytes));
    };
    req.on("data", onData);
    req.once("end", () => resolve(chunks));
    // The client went away mid-body: nobody is left to answer, but the request still ends as a client error.
    req.once("error", () => reject(new ValidationError("body: cut off")));
    req.once("aborted", () => reject(new ValidationError("body: cut off")));
  });
}
