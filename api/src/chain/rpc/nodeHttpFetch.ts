import http from "node:http";
import https from "node:https";

/**
 * The `fetch` that viem's HTTP transport and client are given (their public `fetchFn` option) in place of Node's
 * global `fetch`: a POST over `node:http` on kept-alive sockets, its answer gathered once and handed over as a
 * WHATWG `Response`. Node's `fetch` (undici) takes several turns of the event loop and much more CPU per request
 * before the request leaves and after the answer is in (bench/chain.ts), and the indexer and the engine wait on
 * their requests one round after another. Compressed answers are not asked for (no `accept-encoding`).
 */

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
  return headers;
}

export const nodeHttpFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) {
      reject(new TypeError(`unsupported protocol ${url.protocol}`));
      return;
    }
    const request = (url.protocol === "https:" ? https : http).request(
      url,
      { method: init?.method ?? "GET", headers: headersOf(init), agent, signal: init?.signal ?? undefined },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
          }
          resolve(
            new Response(Buffer.concat(chunks), {
              status: response.statusCode ?? 0,
              statusText: response.statusMessage ?? "",
              headers,
            }),
          );
        });
      },
    );
    request.on("error", reject);
    request.end(typeof init?.body === "string" ? init.body : undefined);
  });
