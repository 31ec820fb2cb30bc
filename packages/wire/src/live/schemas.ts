import { getAddress, parseUnits } from "ethers";
import { z } from "zod";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../idempotency";
import { textProblem, type TextRules } from "../text";

/** Building blocks shared by the live API's request and response schemas (and so by its OpenAPI document). */

/** A 0x-prefixed 20-byte address (42 characters); mixed case must be a valid EIP-55 checksum. Output: checksummed. */
export const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, { message: "must be a 0x-prefixed 42-character hex address", abort: true })
  // One checksum computation (keccak256) for both the check and the output.
  .transform((value, ctx) => {
    const checksummed = getAddress(value.toLowerCase());
    const mixedCase = value !== value.toLowerCase() && value.slice(2) !== value.slice(2).toUpperCase();
    if (mixedCase && value !== checksummed) {
      ctx.addIssue({ code: "custom", message: "has an invalid EIP-55 checksum" });
      return z.NEVER;
    }
    return checksummed;
  })
  .meta({
    description:
      "0x-prefixed 20-byte address (42 characters). All lowercase, all uppercase, or mixed case with a valid EIP-55 checksum.",
    example: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  });

/**
 * Free text of `min`-`max` characters that must be valid Unicode without control or bidirectional control characters
 * (text.ts); multi-line fields may hold line feeds and tabs.
 */
export function textSchema(min: number, max: number, rules: TextRules = {}) {
  return z
    .string()
    .min(min)
    .max(max)
    .superRefine((value, ctx) => {
      const problem = textProblem(value, rules);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
}

/**
 * Whole USDC as a JSON number (100.5 = 100.5 USDC), greater than 0, at most 6 decimals; output: 6-decimal units.
 * "At most 6 decimals" is checked on the number as JSON gives it: it must be the double nearest to its own rounding
 * to 6 decimals (0.3 is; 0.30000000000000004, 1e-7 and 5e-324, which is positive but rounds to 0, are not).
 */
export const usdcAmountSchema = z
  .number()
  .positive()
  .max(1e12)
  .superRefine((value, ctx) => {
    // Amounts not above 0 already have their issue.
    if (value > 0 && Math.round(value * 1e6) / 1e6 !== value) {
      ctx.addIssue({ code: "custom", message: "must be a number of USDC with at most 6 decimal places" });
    }
  })
  .transform((value) => parseUnits(value.toFixed(6), 6))
  .meta({
    description: "whole USDC (100.5 = 100.5 USDC), greater than 0, at most 6 decimal places",
    multipleOf: 0.000001,
  });

/** The Idempotency-Key request header of the POSTs that move value. */
export const idempotencyHeaders = z.object({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, { message: "must be 1-255 printable ASCII characters without spaces" })
    .optional()
    .meta({
      description:
        "1-255 printable ASCII characters without spaces. A retry with the same key returns the first successful answer and never sends a second transaction; concurrent duplicates wait for the first. The same key with another request: 409.",
    }),
});

export const errorBodySchema = z
  .object({ error: z.string().meta({ description: "human-readable description of what was wrong" }) })
  .meta({ id: "Error" });

export const isoTimestamp = z
  .string()
  .meta({ description: "ISO 8601 UTC timestamp", example: "2026-11-22T02:00:00.000Z" });

export const txHash = z.string().meta({ description: "transaction hash", example: "0x5c50...e1" });
export const hex = z.string().meta({ description: "0x-prefixed hex" });
export const decimalString = (description: string) => z.string().meta({ description });
