import { createHash, randomBytes } from "node:crypto";

/**
 * API keys: a prefix + 32 base62 characters from the OS CSPRNG (about 190 bits). Only hash and prefix are stored.
 * The live API's agent keys start with `nap-`, the data API's keys with `napd-`, so that a key sent to the wrong API
 * is recognised and answered with a message that says so.
 */

export const API_KEY_PREFIX = "nap-";
const KEY_BODY_LENGTH = 32;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Bytes at or above this are rejected so that every character is equally likely (248 = 4 * 62). */
const UNBIASED_LIMIT = 248;

export const API_KEY_PATTERN = /^nap-[0-9A-Za-z]{32}$/;

export function generateApiKey(prefix: string = API_KEY_PREFIX): string {
  let body = "";
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(48)) {
      if (byte < UNBIASED_LIMIT && body.length < KEY_BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return prefix + body;
}

/** SHA-256 of the key, lowercase hex: what the store keeps and looks up by. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** The first 12 characters (`nap-` plus 8), shown after registration to recognise a key. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 12);
}
