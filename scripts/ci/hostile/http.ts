import { request } from "node:http";

/**
 * One HTTP request with a client-side timeout, so that the run never hangs on a blocked server. A body given as
 * `stream` is sent in chunks (chunked transfer encoding) and stops as soon as the answer arrives, as a client of a
 * server that refuses early would.
 */

export interface Answer {
  /** The status, or 0 when the connection failed and -1 when no answer came within the timeout. */
  status: number;
  ms: number;
  body: string;
  /** Bytes of the streamed body sent before the answer came. */
  sentBytes: number;
}

export interface Outgoing {
  method: "GET" | "POST";
  url: string;
  headers?: { [name: string]: string };
  body?: string;
  /** A body sent as `chunks` chunks of `chunk`, without a length. */
  stream?: { chunk: Buffer; chunks: number };
  timeoutMs: number;
}

/** Most of an answer's body kept (to read its error code); the rest is read and dropped. */
const KEPT_BODY_BYTES = 64 * 1024;

export function send(outgoing: Outgoing): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    let sentBytes = 0;
    let answered = false;
    let settled = false;
    const finish = (status: number, body: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, ms: performance.now() - started, body, sentBytes });
    };
    const req = request(outgoing.url, {
      method: outgoing.method,
      agent: false,
      headers: {
        ...(outgoing.body !== undefined ? { "content-length": String(Buffer.byteLength(outgoing.body)) } : {}),
        ...outgoing.headers,
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish(-1, "");
    }, outgoing.timeoutMs);
    req.once("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on("data", (chunk: Buffer) => {
        if (kept < KEPT_BODY_BYTES) chunks.push(chunk);
        kept += chunk.length;
      });
      res.once("end", () => {
        finish(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"));
        req.destroy();
      });
      res.once("error", () => finish(res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8")));
    });
    // A server that answers and closes while the body is still going out: the answer (if any) is what counts.
    req.once("error", () => setTimeout(() => finish(0, ""), answered ? 200 : 0));
    if (outgoing.stream) {
      const { chunk, chunks } = outgoing.stream;
      let written = 0;
      const pump = () => {
        while (!answered && !req.destroyed && written < chunks) {
          written += 1;
          sentBytes += chunk.length;
          if (!req.write(chunk)) {
            req.once("drain", pump);
            return;
          }
        }
        if (!req.destroyed && !answered) req.end();
      };
      pump();
    } else req.end(outgoing.body);
  });
}

/** The GraphQL error codes of an answer body (empty when it is not GraphQL's error shape). */
export function errorCodes(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as {
      errors?: Array<{ extensions?: { code?: unknown } }>;
      error?: { code?: unknown };
    };
    const codes = (parsed.errors ?? []).map((e) => String(e.extensions?.code ?? "(none)"));
    if (parsed.error?.code !== undefined) codes.push(String(parsed.error.code));
    return codes;
  } catch {
    return [];
  }
}
