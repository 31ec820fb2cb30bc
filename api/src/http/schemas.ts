import { getAddress, isAddress } from "ethers";
import { z } from "zod";

/** Building blocks shared by route schemas. */

/** A 0x-prefixed 20-byte address (42 characters); mixed case must be a valid EIP-55 checksum. Output: checksummed. */
export const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, { message: "must be a 0x-prefixed 42-character hex address", abort: true })
  .refine((value) => isAddress(value), { message: "has an invalid EIP-55 checksum" })
  .transform((value) => getAddress(value))
  .meta({
    description: "0x-prefixed 20-byte address (42 characters)",
    example: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  });

export const errorBodySchema = z
  .object({ error: z.string().meta({ description: "human-readable description of what was wrong" }) })
  .meta({ id: "Error" });

export const isoTimestamp = z
  .string()
  .meta({ description: "ISO 8601 UTC timestamp", example: "2026-11-22T02:00:00.000Z" });
