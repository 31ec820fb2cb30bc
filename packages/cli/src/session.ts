import { NapClient, NapDataClient, type OperationContext, type TransportOptions } from "@nap/sdk";
import {
  defaultCredentialsFile,
  MissingCredentialsError,
  readCredentials,
  type Credentials,
} from "@nap/sdk/credentials";
import type { Output } from "./output";

/**
 * The clients one `nap` run talks through: the API's address (--api, $NAP_API_URL, the saved agent's, or the
 * default), the saved agent's key (the credentials file), and the transport's bounds (--timeout,
 * --max-response-bytes, or their environment variables). Clients are built on first use, so a command reads the
 * credentials file only when it needs it.
 */

export const DEFAULT_API_URL = "http://127.0.0.1:3000";

export type Flags = Record<string, string | boolean | undefined>;

/** A malformed option value (exit code 2). */
export class OptionError extends Error {}

function positive(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new OptionError(`${what} must be a positive number`);
  return number;
}

/** `make`'s value, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

const text = (value: string | boolean | undefined) => (typeof value === "string" ? value : undefined);

export class Session {
  readonly credentialsFile: string;
  /** The API's address given for this run (--api or $NAP_API_URL), if any. */
  readonly apiUrl: string | undefined;
  readonly idempotencyKey: string | undefined;
  #credentials: Credentials | undefined;

  constructor(
    private readonly flags: Flags,
    private readonly out: Output,
  ) {
    this.credentialsFile = text(flags.credentials) ?? defaultCredentialsFile();
    this.apiUrl = text(flags.api) ?? process.env.NAP_API_URL;
    this.idempotencyKey = text(flags["idempotency-key"]);
  }

  /** The transport's bounds of every client. */
  bounds(): Pick<TransportOptions, "timeoutMs" | "maxResponseBytes"> {
    const seconds = positive(
      text(this.flags.timeout) ?? process.env.NAP_TIMEOUT_SECONDS,
      "--timeout (NAP_TIMEOUT_SECONDS)",
    );
    const bytes = positive(
      text(this.flags["max-response-bytes"]) ?? process.env.NAP_MAX_RESPONSE_BYTES,
      "--max-response-bytes (NAP_MAX_RESPONSE_BYTES)",
    );
    return {
      ...(seconds !== undefined ? { timeoutMs: seconds * 1000 } : {}),
      ...(bytes !== undefined ? { maxResponseBytes: Math.floor(bytes) } : {}),
    };
  }

  /** The saved agent (read once; a file others can read is refused unless allowed, with a warning). */
  saved(): Credentials {
    this.#credentials ??= readCredentials(this.credentialsFile, {
      ...(this.flags["insecure-credentials"] ? { allowLoosePermissions: true } : {}),
      warn: (message) => this.out.note(message, { warning: message }),
    });
    return this.#credentials;
  }

  live(baseUrl: string, apiKey?: string): NapClient {
    return new NapClient({ baseUrl, apiKey, ...this.bounds() });
  }

  /** A client with the saved agent's key. */
  agent(): NapClient {
    const credentials = this.saved();
    return this.live(this.apiUrl ?? credentials.api_url, credentials.api_key);
  }

  /** The API's address for commands that need no agent. */
  publicUrl(): string {
    if (this.apiUrl) return this.apiUrl;
    try {
      return this.saved().api_url;
    } catch (error) {
      // Only a missing file means "no agent yet"; a file refused for its mode is reported, not skipped.
      if (error instanceof MissingCredentialsError) return DEFAULT_API_URL;
      throw error;
    }
  }

  data(): NapDataClient {
    return new NapDataClient({
      baseUrl: this.publicUrl(),
      apiKey: text(this.flags["data-key"]) ?? process.env.NAP_DATA_KEY,
      ...this.bounds(),
    });
  }

  /** What an operation runs with: the agent's client when it acts as the agent, else a public one. */
  context(asAgent: boolean): OperationContext {
    const live = once(() => (asAgent ? this.agent() : this.live(this.publicUrl())));
    const data = once(() => this.data());
    return {
      get live() {
        return live();
      },
      get data() {
        return data();
      },
      ...(this.idempotencyKey !== undefined ? { idempotencyKey: this.idempotencyKey } : {}),
    };
  }
}
