import type { IncomingMessage } from "node:http";
import type { GraphQLError } from "graphql";
import type { RequestParams } from "graphql-http";
import { apiError } from "./errors";

/**
 * Reads a GraphQL-over-HTTP request's parameters: from the URL of a GET, from the JSON body of a POST. The body is
 * read here rather than by graphql-http, which joins every chunk into one string with no limit (a large body ended the
 * process): it is counted as it arrives and refused past the body limit before more of it is kept, as every other
 * route refuses it. Every malformed request is a client error with its own code (errors.ts), never an internal one.
 */

export class RequestRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: GraphQLError,
    readonly headers?: Record<string, string>,
  ) {
    super(error.message);
  }
}

const badRequest = (message: string) => new RequestRefusal(400, apiError("BAD_REQUEST", message));

export async function readRequestParams(
  request: { method: string; url: string; raw: IncomingMessage },
  bodyLimitBytes: number,
): Promise<RequestParams> {
  if (request.method === "GET") return paramsOfUrl(request.url);
  if (request.method !== "POST") {
    request.raw.resume();
    throw new RequestRefusal(405, apiError("METHOD_NOT_ALLOWED", "GraphQL is served by GET and POST"), {
      allow: "GET, POST",
    });
  }
  return checkParams(await readJsonBody(request.raw, bodyLimitBytes));
}

function paramsOfUrl(url: string): RequestParams {
  const search = new URLSearchParams(url.split("?")[1] ?? "");
  const json = (name: string): unknown => {
    const text = search.get(name);
    if (text === null) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw badRequest(`the ${name} parameter is not JSON`);
    }
  };
  return checkParams({
    query: search.get("query") ?? undefined,
    operationName: search.get("operationName") ?? undefined,
    variables: json("variables"),
    extensions: json("extensions"),
  });
}

async function readJsonBody(raw: IncomingMessage, limitBytes: number): Promise<Record<string, unknown>> {
  const [mediaType, ...parameters] = (raw.headers["content-type"] ?? "").toLowerCase().replace(/\s/g, "").split(";");
  const charset = parameters.find((p) => p.startsWith("charset="));
  if (mediaType !== "application/json" || (charset !== undefined && charset !== "charset=utf-8")) {
    raw.resume();
    throw new RequestRefusal(
      415,
      apiError("UNSUPPORTED_MEDIA_TYPE", "a POST body must be application/json (UTF-8)", {
        contentType: mediaType || null,
      }),
    );
  }
  const tooLarge = () => {
    // The rest of the body is read and dropped as it comes (nothing kept). Closing the connection instead would
    // let the client's kernel discard the 413 on the reset that follows while it still sends.
    raw.resume();
    return new RequestRefusal(
      413,
      apiError("PAYLOAD_TOO_LARGE", `the body is larger than the limit of ${limitBytes} bytes`, { max: limitBytes }),
    );
  };
  if (Number(raw.headers["content-length"] ?? 0) > limitBytes) throw tooLarge();
  // Listeners rather than `for await`: leaving that loop early destroys the request, and the 413 with it.
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      raw.off("data", onData);
      chunks.length = 0;
      reject(tooLarge());
    };
    raw.on("data", onData);
    raw.once("end", () => resolve());
    // The client went away mid-body: there is nobody to answer, but the request still ends as a client error.
    raw.once("error", () => reject(badRequest("the body was cut off")));
    raw.once("aborted", () => reject(badRequest("the body was cut off")));
  });
  if (size === 0) throw badRequest("the body is empty: send { query, variables, operationName }");
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw badRequest("the body is not JSON");
  }
  if (Array.isArray(body)) throw badRequest("batches are not supported: send one { query } per request");
  if (body === null || typeof body !== "object") throw badRequest("the body must be a JSON object { query, ... }");
  return body as Record<string, unknown>;
}

function checkParams(params: Record<string, unknown>): RequestParams {
  const { query, variables, operationName, extensions } = params;
  if (query === undefined || query === null || query === "") {
    throw badRequest("the request has no query: send { query, variables, operationName }");
  }
  if (typeof query !== "string") throw badRequest("query must be a string");
  const isMap = (value: unknown) => value == null || (typeof value === "object" && !Array.isArray(value));
  if (!isMap(variables)) throw badRequest("variables must be an object");
  if (!isMap(extensions)) throw badRequest("extensions must be an object");
  if (operationName != null && typeof operationName !== "string") throw badRequest("operationName must be a string");
  return {
    query,
    variables: variables as RequestParams["variables"],
    operationName: operationName as RequestParams["operationName"],
    extensions: extensions as RequestParams["extensions"],
  };
}
