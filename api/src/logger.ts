import pino, { type Logger } from "pino";

/**
 * Structured logs. Secrets never reach the output: API keys (header and body), signatures and mnemonics are
 * redacted wherever they appear at the top level or one level down.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  "req.headers.authorization",
  "headers.authorization",
  "api_key",
  "apiKey",
  "signature",
  "mnemonic",
  "serverWalletMnemonic",
  "privateKey",
  "*.api_key",
  "*.apiKey",
  "*.signature",
  "*.mnemonic",
  "*.serverWalletMnemonic",
  "*.privateKey",
  "*.operatorApiKeys",
  "operatorApiKeys",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" }, base: { service: "nap-api" } },
    destination,
  );
}

export type { Logger };
