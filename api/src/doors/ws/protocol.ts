import { z } from "zod";
import { AppError, type ErrorCode } from "../../errors";
import type { WS_ERROR_CODES } from "../../../../packages/wire/src/codes";

/**
 * The /ws wire protocol: the client's messages (validated with zod), the server's error codes and close codes.
 * docs/websocket.md describes it for clients.
 */

export const WS_PATH = "/ws";

/** The interval the spec asks clients to ping at (the idle timeout is well above it). */
export const CLIENT_PING_INTERVAL_SECONDS = 30;

/**
 * How often an authenticated connection's key is read again (or every WS_HEARTBEAT_MS when that is shorter), so that
 * a revoked or expired key's streams stop within it; the graphql-ws door checks as often.
 */
export const KEY_CHECK_MS = 10_000;

/** Largest client message: every valid one is far smaller; a bigger frame closes the socket with 1009. */
export const MAX_CLIENT_MESSAGE_BYTES = 4_096;

export const CLIENT_MESSAGE_TYPES = ["auth", "subscribe", "unsubscribe", "ping"] as const;
export const CHANNELS = ["vault", "transactions"] as const;
export type Channel = (typeof CHANNELS)[number];

/** Close codes the server uses (1xxx are the protocol's own, 4xxx this service's). */
export const CLOSE = {
  /** The server is shutting down: reconnect (to another instance) and resume with afterSeq. */
  GOING_AWAY: 1001,
  /** The client sent more messages than WS_MAX_MESSAGE_BURST at once or WS_MAX_MESSAGES_PER_SECOND sustained. */
  MESSAGE_RATE: 1008,
  /** A client message larger than MAX_CLIENT_MESSAGE_BYTES (sent by the ws library). */
  MESSAGE_TOO_BIG: 1009,
  /** The key the connection authenticated with was revoked or expired. */
  KEY_REJECTED: 4401,
  /** No client message within the idle timeout. */
  IDLE: 4408,
  /** The client reads too slowly: more than WS_MAX_BUFFERED_BYTES waited to be sent to it. */
  SLOW_CONSUMER: 4413,
  /** The key already holds WS_MAX_CONNECTIONS_PER_KEY connections. */
  CONNECTION_LIMIT: 4429,
} as const;

/** Error codes of `{ type: "error" }` messages (the wire contract's): REST's where one fits, INVALID_<FIELD>. */
export type WsErrorCode = (typeof WS_ERROR_CODES)[number];

export interface WsErrorMessage {
  type: "error";
  code: WsErrorCode;
  message: string;
  /** The message field at fault. */
  field?: string;
  /** The subscription the error is about (the id the client gave, or the one it was given). */
  id?: string;
  /** RATE_LIMITED: seconds until the window that refused ends. */
  retryAfterSeconds?: number;
  /** UNAVAILABLE of a subscription: resubscribe with afterSeq = this. INVALID_AFTER_SEQ: the log's newest seq. */
  seq?: number;
  /** NOT_YET_INDEXED: the block asked for and the block indexed (subscribe again after retryAfterSeconds). */
  minBlock?: number;
  indexedBlock?: number | null;
}

/** The kind of each /ws code (api/src/errors.ts), so that a refusal is one of the service's errors. */
const KIND_OF: Readonly<Record<WsErrorCode, ErrorCode>> = {
  INVALID_BODY: "VALIDATION_FAILED",
  INVALID_TYPE: "VALIDATION_FAILED",
  INVALID_CHANNEL: "VALIDATION_FAILED",
  INVALID_ADDRESS: "VALIDATION_FAILED",
  INVALID_AFTER_SEQ: "VALIDATION_FAILED",
  INVALID_MIN_BLOCK: "VALIDATION_FAILED",
  INVALID_ID: "VALIDATION_FAILED",
  INVALID_TOKEN: "VALIDATION_FAILED",
  UNKNOWN_PARAMETER: "VALIDATION_FAILED",
  NOT_YET_INDEXED: "UNAVAILABLE",
  VAULT_NOT_FOUND: "NOT_FOUND",
  SUBSCRIPTION_NOT_FOUND: "NOT_FOUND",
  SUBSCRIPTION_LIMIT_REACHED: "RATE_LIMITED",
  CONNECTION_LIMIT_REACHED: "RATE_LIMITED",
  ALREADY_AUTHENTICATED: "CONFLICT",
  UNAUTHORIZED: "UNAUTHENTICATED",
  INSUFFICIENT_SCOPE: "FORBIDDEN",
  RATE_LIMITED: "RATE_LIMITED",
  UNAVAILABLE: "UNAVAILABLE",
  INTERNAL_ERROR: "INTERNAL",
};

/**
 * A refusal of one client message, sent as `{ type: "error", ... }`: one of the service's errors (its kind from
 * the /ws code, the code its reason), rendered by toMessage() as the /ws door's frame.
 */
export class WsError extends AppError {
  readonly code: ErrorCode;
  constructor(
    readonly wsCode: WsErrorCode,
    message: string,
    readonly extra: Omit<WsErrorMessage, "type" | "code" | "message"> = {},
  ) {
    super(message, {}, { reason: wsCode, retryAfterSeconds: extra.retryAfterSeconds });
    this.code = KIND_OF[wsCode];
  }

  toMessage(): WsErrorMessage {
    return { type: "error", code: this.wsCode, message: this.message, ...this.extra };
  }
}

const subscriptionId = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1-64 of A-Z a-z 0-9 _ . : -");
const afterSeq = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const addressField = z.string().max(100);

export const authMessage = z.strictObject({ type: z.literal("auth"), token: z.string().min(1).max(200) });
export const pingMessage = z.strictObject({ type: z.literal("ping") });
export const unsubscribeMessage = z.strictObject({ type: z.literal("unsubscribe"), id: subscriptionId });
export const vaultSubscription = z.strictObject({
  type: z.literal("subscribe"),
  channel: z.literal("vault"),
  id: subscriptionId.optional(),
  vault: addressField,
  afterSeq: afterSeq.optional(),
  minBlock: afterSeq.optional(),
});
export const transactionsSubscription = z.strictObject({
  type: z.literal("subscribe"),
  channel: z.literal("transactions"),
  id: subscriptionId.optional(),
  vault: addressField.optional(),
  user: addressField.optional(),
  afterSeq: afterSeq.optional(),
  minBlock: afterSeq.optional(),
});

export type AuthMessage = z.infer<typeof authMessage>;
export type UnsubscribeMessage = z.infer<typeof unsubscribeMessage>;
export type SubscribeMessage = z.infer<typeof vaultSubscription> | z.infer<typeof transactionsSubscription>;
export type ClientMessage = AuthMessage | UnsubscribeMessage | SubscribeMessage | z.infer<typeof pingMessage>;

/** The code for a bad value of each field (a field without one is INVALID_BODY). */
const FIELD_CODES: Record<string, WsErrorCode> = {
  type: "INVALID_TYPE",
  channel: "INVALID_CHANNEL",
  vault: "INVALID_ADDRESS",
  user: "INVALID_ADDRESS",
  afterSeq: "INVALID_AFTER_SEQ",
  minBlock: "INVALID_MIN_BLOCK",
  id: "INVALID_ID",
  token: "INVALID_TOKEN",
};

/** The `id` of a message that carries a well-formed one (so that its error can name the subscription). */
function idOf(value: Record<string, unknown>): string | undefined {
  return subscriptionId.safeParse(value.id).success ? (value.id as string) : undefined;
}

/** Parses one text frame into a client message, or throws the WsError that names what is wrong. */
export function parseClientMessage(text: string): ClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WsError("INVALID_BODY", "the message is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new WsError("INVALID_BODY", "the message must be a JSON object with a type");
  }
  const fields = value as Record<string, unknown>;
  const id = idOf(fields);
  if (!(CLIENT_MESSAGE_TYPES as readonly unknown[]).includes(fields.type)) {
    throw new WsError("INVALID_TYPE", `type: must be one of ${CLIENT_MESSAGE_TYPES.join(", ")}`, {
      field: "type",
      id,
    });
  }
  let schema: z.ZodType<ClientMessage>;
  switch (fields.type) {
    case "auth":
      schema = authMessage;
      break;
    case "ping":
      schema = pingMessage;
      break;
    case "unsubscribe":
      schema = unsubscribeMessage;
      break;
    default:
      if (!(CHANNELS as readonly unknown[]).includes(fields.channel)) {
        throw new WsError("INVALID_CHANNEL", `channel: must be one of ${CHANNELS.join(", ")}`, {
          field: "channel",
          id,
        });
      }
      schema = fields.channel === "vault" ? vaultSubscription : transactionsSubscription;
  }
  const parsed = schema.safeParse(fields);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue.code === "unrecognized_keys") {
    const field = issue.keys[0];
    throw new WsError("UNKNOWN_PARAMETER", `${field}: unknown field of a ${String(fields.type)} message`, {
      field,
      id,
    });
  }
  const field = String(issue.path[0]);
  throw new WsError(FIELD_CODES[field] ?? "INVALID_BODY", `${field}: ${issue.message}`, { field, id });
}
