import http from "node:http";
import https from "node:https";
import { gunzipSync } from "node:zlib";
import {
  makeError,
  type FetchCancelSignal,
  type FetchGetUrlFunc,
  type FetchRequest,
  type GetUrlResponse,
} from "ethers";

/**
 * The HTTP transport of the service's JSON-RPC provider: ethers' own Node transport (`ethers/utils/geturl`), except
 * for how an answer's body is gathered. ethers copies the whole body gathered so far into a new array on every chunk
 * the socket delivers, so an answer of n bytes in chunks of c bytes costs about n²/2c bytes of copying: a 631 kB
 * `eth_getLogs` answer of 350 blocks came in about 1,200 chunks and spent about 50 ms of CPU there, and an answer of
 * a few MB (a catch-up batch of a busy chain) would spend seconds. Here the chunks are kept as they come and joined
 * once at the end. Everything else is as ethers does it: the same errors (CANCELLED, TIMEOUT, SERVER_ERROR for a
 * body that cannot be gunzipped), the request's timeout, headers and body, and gzip answers unzipped.
 */
export const gatheringGetUrl: FetchGetUrlFunc = (req: FetchRequest, signal?: FetchCancelSignal) => {
  if (signal?.cancelled) return Promise.reject(makeError("request cancelled before sending", "CANCELLED"));
  const protocol = req.url.split(":")[0].toLowerCase();
  if (protocol !== "http" && protocol !== "https") {
    return Promise.reject(
      makeError(`unsupported protocol ${protocol}`, "UNSUPPORTED_OPERATION", {
        info: { protocol },
        operation: "request",
      }),
    );
  }
  if (protocol === "http" && req.credentials && !req.allowInsecureAuthentication) {
    return Promise.reject(
      makeError("insecure authorized connections unsupported", "UNSUPPORTED_OPERATION", { operation: "request" }),
    );
  }
  const abort = new AbortController();
  const request = (protocol === "http" ? http : https).request(req.url, {
    method: req.method,
    headers: { ...req.headers },
    signal: abort.signal,
  });
  request.setTimeout(req.timeout);
  if (req.body) request.write(Buffer.from(req.body));
  request.end();

  return new Promise<GetUrlResponse>((resolve, reject) => {
    signal?.addListener(() => {
      abort.abort();
      reject(makeError("request cancelled", "CANCELLED"));
    });
    request.on("timeout", () => reject(makeError("request timeout", "TIMEOUT")));
    request.on("error", reject);
    request.once("response", (response) => {
      const statusCode = response.statusCode ?? 0;
      const statusMessage = response.statusMessage ?? "";
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        headers[name] = Array.isArray(value) ? value.join(", ") : (value ?? "");
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => {
        if (signal) {
          try {
            signal.checkSignal();
          } catch (error) {
            reject(error);
            return;
          }
        }
        chunks.push(chunk);
      });
      response.on("end", () => {
        const joined = chunks.length === 0 ? null : Buffer.concat(chunks);
        try {
          const body = joined && headers["content-encoding"] === "gzip" ? gunzipSync(joined) : joined;
          // A plain Uint8Array over the joined bytes, not a copy of them (ethers' response copies what it is given).
          const bytes = body && new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
          resolve({ statusCode, statusMessage, headers, body: bytes });
        } catch (error) {
          reject(makeError("bad response data", "SERVER_ERROR", { request: req, info: { response, error } }));
        }
      });
      response.on("error", reject);
    });
  });
};
