import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { z } from "zod";
import { SCREENING_MODES, type ScreeningMode } from "./domain/screening";
import { DEFAULT_SUBSCRIPTION_CAPS, type SubscriptionCaps } from "./doors/graphql/socketLimits";
import { DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS, type SubscriptionMessageLimits } from "./doors/graphql/messageGate";

/**
 * Service configuration, read from the environment once at start-up and validated.
 * A bad or missing setting stops the process with a message that names it; nothing else in the service reads
 * `process.env`.
 */

const booleanSetting = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((value) => value === "1" || value === "true" || value === "yes");

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const urlSetting = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((value) => URL.canParse(value) && protocols.includes(new URL(value).protocol), {
      message: `must use ${protocols.map((p) => p.replace(":", "")).join(" or ")}`,
    });

const mnemonicSetting = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim().replace(/\s+/g, " ")))
  .refine((value) => value === undefined || [12, 15, 18, 21, 24].includes(value.split(" ").length), {
    message: "must be a BIP-39 mnemonic of 12 to 24 words",
  });

const capSetting = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** The operators' listener for /metrics; unset: no metrics listener. */
  METRICS_PORT: optionalString.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional()),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).max(1_000_000).default(20),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  MONGODB_URI: optionalString.pipe(urlSetting(["mongodb:", "mongodb+srv:"]).optional()),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,63}$/, "must be 1-63 letters, digits, _ or -")
    .default("nap"),
  REDIS_URL: optionalString.pipe(urlSetting(["redis:", "rediss:"]).optional()),
  RPC_URL: urlSetting(["http:", "https:", "ws:", "wss:"]).default("http://127.0.0.1:8545"),
  CHAIN_ID: optionalString.pipe(z.coerce.number<string | undefined>().int().positive().optional()),
  DEPLOYMENT_FILE: optionalString,
  PUBLIC_URL: optionalString.pipe(urlSetting(["http:", "https:"]).optional()),
  SERVICE_DOMAIN: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, "must be a host name with an optional port")
      .optional(),
  ),
  AGENT_API_KEYS: optionalString,
  TRUSTED_PROXY_COUNT: z.coerce.number().int().min(0).max(10).default(0),
  /** Origins allowed by CORS (browser dashboards), comma-separated exact origins; none by default. */
  CORS_ALLOWED_ORIGINS: z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ""),
    )
    .pipe(
      z.array(
        z.string().regex(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, "each origin must be scheme://host[:port], no path"),
      ),
    ),
  RATE_LIMITS_DISABLED: booleanSetting.default(false),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SERVER_WALLET_MNEMONIC: mnemonicSetting,
  SERVER_WALLET_KEYSTORE: optionalString,
  SERVER_WALLET_KEYSTORE_PASSPHRASE: z.string().optional(),
  SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE: optionalString,
  REMOTE_SIGNER_URL: optionalString.pipe(urlSetting(["http:", "https:"]).optional()),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  // Default: one per core beyond the one serving HTTP, at most 2 (1 on a 2-core machine).
  SIGNATURE_WORKERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(16)
    .default(Math.min(2, availableParallelism() - 1)),
  STRATEGY_SCREENING: z.enum(SCREENING_MODES).default("auto"),
  INDEXER_ENABLED: booleanSetting.default(true),
  INDEXER_FINALITY_DEPTH: optionalString.pipe(
    z.coerce.number<string | undefined>().int().min(0).max(10_000).optional(),
  ),
  INDEXER_BATCH_BLOCKS: z.coerce.number().int().min(1).max(100_000).default(2_000),
  INDEXER_MIN_BLOCK_INTERVAL: z.coerce.number().int().min(0).max(3_600).default(1),
  INDEXER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  INDEXER_REORG_WINDOW: z.coerce.number().int().min(1).max(100_000).default(128),
  // Renewed every third of it while held (indexer.ts); a dead holder is replaced within it plus INDEXER_POLL_MS.
  INDEXER_LEASE_TTL_MS: z.coerce.number().int().min(500).max(600_000).default(3_000),
  WS_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(90_000),
  WS_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  WS_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20),
  WS_MAX_CONNECTIONS_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(50),
  WS_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(10_000).default(50),
  WS_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1_024).max(1_073_741_824).default(8_388_608),
  WS_MAX_REPLAY: z.coerce.number().int().min(0).max(1_000_000).default(2_000),
  WS_MAX_MESSAGES_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(10),
  WS_MAX_MESSAGE_BURST: z.coerce.number().int().min(1).max(1_000_000).default(100),
  WS_MAX_BACKLOG: z.coerce.number().int().min(1).max(10_000).default(16),
  GRAPHQL_WS_CONNECTIONS_PER_IP: capSetting(DEFAULT_SUBSCRIPTION_CAPS.connectionsPerIp),
  GRAPHQL_WS_CONNECTIONS_PER_KEY: capSetting(DEFAULT_SUBSCRIPTION_CAPS.connectionsPerKey),
  GRAPHQL_WS_SUBSCRIPTIONS_PER_IP: capSetting(DEFAULT_SUBSCRIPTION_CAPS.subscriptionsPerIp),
  GRAPHQL_WS_SUBSCRIPTIONS_PER_KEY: capSetting(DEFAULT_SUBSCRIPTION_CAPS.subscriptionsPerKey),
  GRAPHQL_WS_MAX_MESSAGES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS.maxMessagesPerSecond),
  GRAPHQL_WS_MAX_MESSAGE_BURST: capSetting(DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS.maxMessageBurst),
  GRAPHQL_WS_MAX_BACKLOG: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(DEFAULT_SUBSCRIPTION_MESSAGE_LIMITS.maxBacklog),
});

export interface Config {
  port: number;
  host: string;
  /** Where /metrics is served, apart from the public doors (docs/operations.md); absent: not served. */
  metrics?: { port: number; host: string };
  /** Blocks the read model may trail the head by while /ready still answers ready. */
  readyMaxLagBlocks: number;
  /** How long a shutdown waits for running requests and in-flight writes before it exits anyway. */
  shutdownTimeoutMs: number;
  /** Absent: the in-memory store is used (and the start-up log says so). */
  mongodbUri?: string;
  mongodbDb: string;
  /** Absent: rate limits are counted in this process only. */
  redisUrl?: string;
  rpcUrl: string;
  /** Absent: read from the RPC endpoint at start-up. */
  chainId?: number;
  /** Absent: deployments/<chainId>.json. */
  deploymentFile?: string;
  /** Base address of this service, the `URI` of the sign-in message. */
  publicUrl: string;
  /** The `domain` of the sign-in message (host[:port] of publicUrl unless set). */
  serviceDomain: string;
  /** Operator keys from AGENT_API_KEYS. */
  operatorApiKeys: string[];
  trustedProxyCount: number;
  rateLimitsDisabled: boolean;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** Never logged; only chain/wallets derives keys from it. */
  serverWalletMnemonic?: string;
  /** Keystore mode: the encrypted seed's file and its passphrase (never logged). */
  serverWalletKeystore?: { file: string; passphrase: string };
  /** Remote signer mode: its JSON-RPC endpoint (may carry a token: never logged). */
  remoteSignerUrl?: string;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  /** Exact origins CORS allows (CORS_ALLOWED_ORIGINS); empty: no CORS headers at all. */
  corsAllowedOrigins: string[];
  /** Worker threads that recover registration signatures (0: on the HTTP thread). */
  signatureWorkers: number;
  /** auto: the relayer screens every submitted strategy (domain/screening.ts); off: strategies stay in shadow. */
  strategyScreening: ScreeningMode;
  /** The data API's indexer (docs/data-api.md). */
  indexer: IndexerConfig;
  /** Caps on GraphQL subscription sockets and subscriptions per IP and per data key, in this instance. */
  subscriptionCaps: SubscriptionCaps;
  /** Messages per second and at once, and operations opening at once, on one GraphQL subscription socket. */
  subscriptionMessages: SubscriptionMessageLimits;
  /** The data API's WebSocket channel /ws (docs/websocket.md). */
  ws: WsConfig;
}

export interface WsConfig {
  /** A connection that sends no message for this long is closed (clients ping every 30 s). */
  idleTimeoutMs: number;
  /** Interval of the server's ping frames; a socket that did not answer the previous one is dropped. */
  heartbeatMs: number;
  /** Connections per client IP, with a key or without, on this instance. */
  maxConnectionsPerIp: number;
  /** Authenticated connections per data API key, on this instance. */
  maxConnectionsPerKey: number;
  /** Subscriptions open at once on one connection. */
  maxSubscriptions: number;
  /** Bytes waiting to be sent to one client beyond which it is closed as too slow. */
  maxBufferedBytes: number;
  /** How many log entries behind the newest a resuming subscription (afterSeq) may start. */
  maxReplay: number;
  /** Client messages per second one connection may send, sustained (every message counts); past it: close 1008. */
  maxMessagesPerSecond: number;
  /** Client messages one connection may send at once before the per-second rate applies. */
  maxMessageBurst: number;
  /** Client messages received and not yet handled; at it, the server stops reading the socket until one is. */
  maxBacklog: number;
}

export interface IndexerConfig {
  /** False: this instance only reads the read model (another instance indexes). */
  enabled: boolean;
  /** Absent: 0 on a local chain (31337, 1337), DEFAULT_FINALITY_DEPTH elsewhere. */
  finalityDepth?: number;
  batchBlocks: number;
  /** Least seconds between a block's time stamp and its parent's (Indexer settings). */
  minBlockInterval: number;
  pollMs: number;
  reorgWindow: number;
  leaseTtlMs: number;
}

/** Thrown for an invalid environment; the message names every bad setting. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const OPERATOR_KEY_PATTERN = /^[A-Za-z0-9_-]{16,200}$/;

/** Reads and validates the configuration from `env` (the process environment unless given). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  const operatorApiKeys = (e.AGENT_API_KEYS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  for (const key of operatorApiKeys) {
    if (!OPERATOR_KEY_PATTERN.test(key)) {
      // The key itself is never echoed: only its position.
      throw new ConfigError(
        `Invalid configuration: AGENT_API_KEYS: key number ${operatorApiKeys.indexOf(key) + 1} must be 16-200 characters of A-Z a-z 0-9 _ -`,
      );
    }
  }
  const serverWalletKeystore = keystoreSetting(e);
  const signers = [e.SERVER_WALLET_MNEMONIC, serverWalletKeystore, e.REMOTE_SIGNER_URL].filter((s) => s !== undefined);
  if (signers.length > 1) {
    throw new ConfigError(
      "Invalid configuration: set only one of SERVER_WALLET_MNEMONIC, SERVER_WALLET_KEYSTORE, REMOTE_SIGNER_URL",
    );
  }
  const publicHost = e.HOST === "0.0.0.0" || e.HOST === "::" ? "localhost" : e.HOST;
  const publicUrl = (e.PUBLIC_URL ?? `http://${publicHost}:${e.PORT}`).replace(/\/+$/, "");
  return {
    port: e.PORT,
    host: e.HOST,
    metrics: e.METRICS_PORT === undefined ? undefined : { port: e.METRICS_PORT, host: e.METRICS_HOST },
    readyMaxLagBlocks: e.READY_MAX_LAG_BLOCKS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    mongodbUri: e.MONGODB_URI,
    mongodbDb: e.MONGODB_DB,
    redisUrl: e.REDIS_URL,
    rpcUrl: e.RPC_URL,
    chainId: e.CHAIN_ID,
    deploymentFile: e.DEPLOYMENT_FILE,
    publicUrl,
    serviceDomain: e.SERVICE_DOMAIN ?? new URL(publicUrl).host,
    operatorApiKeys,
    trustedProxyCount: e.TRUSTED_PROXY_COUNT,
    rateLimitsDisabled: e.RATE_LIMITS_DISABLED,
    logLevel: e.LOG_LEVEL,
    serverWalletMnemonic: e.SERVER_WALLET_MNEMONIC,
    serverWalletKeystore,
    remoteSignerUrl: e.REMOTE_SIGNER_URL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    signatureWorkers: e.SIGNATURE_WORKERS,
    strategyScreening: e.STRATEGY_SCREENING,
    indexer: {
      enabled: e.INDEXER_ENABLED,
      finalityDepth: e.INDEXER_FINALITY_DEPTH,
      batchBlocks: e.INDEXER_BATCH_BLOCKS,
      minBlockInterval: e.INDEXER_MIN_BLOCK_INTERVAL,
      pollMs: e.INDEXER_POLL_MS,
      reorgWindow: e.INDEXER_REORG_WINDOW,
      leaseTtlMs: e.INDEXER_LEASE_TTL_MS,
    },
    ws: {
      idleTimeoutMs: e.WS_IDLE_TIMEOUT_MS,
      heartbeatMs: e.WS_HEARTBEAT_MS,
      maxConnectionsPerIp: e.WS_MAX_CONNECTIONS_PER_IP,
      maxConnectionsPerKey: e.WS_MAX_CONNECTIONS_PER_KEY,
      maxSubscriptions: e.WS_MAX_SUBSCRIPTIONS,
      maxBufferedBytes: e.WS_MAX_BUFFERED_BYTES,
      maxReplay: e.WS_MAX_REPLAY,
      maxMessagesPerSecond: e.WS_MAX_MESSAGES_PER_SECOND,
      maxMessageBurst: e.WS_MAX_MESSAGE_BURST,
      maxBacklog: e.WS_MAX_BACKLOG,
    },
    subscriptionCaps: {
      connectionsPerIp: e.GRAPHQL_WS_CONNECTIONS_PER_IP,
      connectionsPerKey: e.GRAPHQL_WS_CONNECTIONS_PER_KEY,
      subscriptionsPerIp: e.GRAPHQL_WS_SUBSCRIPTIONS_PER_IP,
      subscriptionsPerKey: e.GRAPHQL_WS_SUBSCRIPTIONS_PER_KEY,
    },
    subscriptionMessages: {
      maxMessagesPerSecond: e.GRAPHQL_WS_MAX_MESSAGES_PER_SECOND,
      maxMessageBurst: e.GRAPHQL_WS_MAX_MESSAGE_BURST,
      maxBacklog: e.GRAPHQL_WS_MAX_BACKLOG,
    },
  };
}

/** The keystore file and its passphrase, from the setting or from a file (neither is ever echoed). */
function keystoreSetting(e: z.infer<typeof envSchema>): { file: string; passphrase: string } | undefined {
  const inline = e.SERVER_WALLET_KEYSTORE_PASSPHRASE;
  const fromFile = e.SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE;
  if (e.SERVER_WALLET_KEYSTORE === undefined) {
    if (inline !== undefined || fromFile !== undefined) {
      throw new ConfigError("Invalid configuration: SERVER_WALLET_KEYSTORE_PASSPHRASE needs SERVER_WALLET_KEYSTORE");
    }
    return undefined;
  }
  if ((inline === undefined) === (fromFile === undefined)) {
    throw new ConfigError(
      "Invalid configuration: SERVER_WALLET_KEYSTORE needs exactly one of SERVER_WALLET_KEYSTORE_PASSPHRASE and " +
        "SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE",
    );
  }
  let passphrase = inline;
  if (fromFile !== undefined) {
    try {
      // One trailing line break is what an editor or `echo` leaves; it is not part of the passphrase.
      passphrase = readFileSync(fromFile, "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new ConfigError(
        `Invalid configuration: SERVER_WALLET_KEYSTORE_PASSPHRASE_FILE: cannot read ${fromFile} (${code})`,
      );
    }
  }
  if (!passphrase) throw new ConfigError("Invalid configuration: the keystore passphrase is empty");
  return { file: e.SERVER_WALLET_KEYSTORE, passphrase };
}
