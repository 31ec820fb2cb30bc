import { appendFileSync } from "node:fs";

/**
 * A readable transcript of the tests' HTTP exchanges with the API, for closing notes and reviews: with
 * NAP_TRANSCRIPT=<file>, each test's title and then every request to an `/api/` path (the instance's port, method,
 * path, the API key by its prefix, the Idempotency-Key, the body) with its answer (status and body) are appended to
 * the file. Without the setting nothing is wrapped. Keys are shown by their prefix and long hex (signatures)
 * shortened, so a transcript holds no secret.
 */

const file = process.env.NAP_TRANSCRIPT;
const LONGEST_BODY = 1500;

/** An API key as its prefix (the key's name in the key list); long hex as its ends. */
function redact(text: string): string {
  return text
    .replace(/\bnap-([0-9A-Za-z]{8})[0-9A-Za-z]{24}\b/g, "nap-$1…")
    .replace(/0x[0-9a-fA-F]{80,}/g, (hex) => `${hex.slice(0, 12)}…${hex.slice(-6)}`);
}

function shown(text: string): string {
  const flat = redact(text.replace(/\s*\n\s*/g, " "));
  return flat.length > LONGEST_BODY ? `${flat.slice(0, LONGEST_BODY)}… (${flat.length} characters)` : flat;
}

function write(line: string): void {
  appendFileSync(file!, `${line}\n`);
}

function headerOf(init: RequestInit | undefined, name: string): string | undefined {
  const headers = new Headers(init?.headers);
  return headers.get(name) ?? undefined;
}

/** A line of the test's own in the transcript (what HTTP does not show: the service's settings, the signer's log). */
export function transcriptNote(text: string): void {
  if (file) write(`# ${redact(text)}`);
}

if (file) {
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.startsWith("/api/")) return realFetch(input, init);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const key = headerOf(init, "x-api-key");
    const idempotency = headerOf(init, "idempotency-key");
    const notes = [key ? `X-API-Key: ${redact(key)}` : "", idempotency ? `Idempotency-Key: ${idempotency}` : ""];
    // The port tells the instances of a test apart (two APIs over one store).
    write(`→ [:${url.port}] ${method} ${url.pathname}${url.search}  ${notes.filter(Boolean).join("  ")}`.trimEnd());
    if (typeof init?.body === "string" && init.body) write(`  ${shown(init.body)}`);
    const response = await realFetch(input, init);
    const text = await response.clone().text();
    write(`← ${response.status} ${shown(text)}`);
    return response;
  };
  beforeEach(function () {
    write(`\n── ${this.currentTest?.fullTitle() ?? ""}`);
  });
}
