import { getAddress, isAddress } from "ethers";
import { invalidField } from "../../errors";
import type { Intent } from "../../domain/signedWrites";
import { UINT_MESSAGE, type SignedAction } from "../../../../packages/wire/src/data/signedWrites";

/**
 * A signed write's fields as the wire gives them (strings of the right shape, checked by the route's schema) turned
 * into an intent: addresses checksummed (a mixed-case address with a wrong checksum is refused), integers as bigint
 * within uint256. Each refusal is INVALID_<FIELD> with a message naming the field.
 */

const UINT256_LIMIT = 1n << 256n;

export function addressField(value: string, field: string): string {
  if (!isAddress(value)) throw invalidField(field, `'${String(value).slice(0, 80)}' is not an address (bad checksum?)`);
  return getAddress(value);
}

export function uintField(value: string, field: string, options: { positive?: boolean } = {}): bigint {
  if (!/^(0|[1-9][0-9]*)$/.test(value)) throw invalidField(field, UINT_MESSAGE);
  const parsed = BigInt(value);
  if (parsed >= UINT256_LIMIT) throw invalidField(field, "must be below 2**256");
  if (options.positive && parsed === 0n) throw invalidField(field, "must be above 0");
  return parsed;
}

/** The fields every action's message and prepare query may carry (absent ones are undefined). */
export interface IntentFields {
  owner: string;
  amount?: string;
  shares?: string;
  receiver?: string;
  min_shares?: string;
  min_assets?: string;
}

/**
 * The intent of `action` on `vault` from its fields; `nonce` and `deadline` are the message's (prepare passes the ones
 * it chose). The receiver defaults to the owner and the slippage bound to 0, as the prepare read documents.
 */
export function intentOf(
  action: SignedAction,
  vault: string,
  fields: IntentFields,
  nonce: bigint,
  deadline: bigint,
): Intent {
  const owner = addressField(fields.owner, "owner");
  const receiver =
    action === "request-redeem"
      ? null
      : fields.receiver === undefined
        ? owner
        : addressField(fields.receiver, "receiver");
  let amount: bigint | null = null;
  let minimum: bigint | null = null;
  if (action === "deposit") {
    amount = uintField(fields.amount ?? "", "amount", { positive: true });
    minimum = fields.min_shares === undefined ? 0n : uintField(fields.min_shares, "min_shares");
  } else if (action !== "cancel-redeem") {
    amount = uintField(fields.shares ?? "", "shares", { positive: true });
    if (action !== "request-redeem") {
      minimum = fields.min_assets === undefined ? 0n : uintField(fields.min_assets, "min_assets");
    }
  }
  return { action, owner, vault, amount, receiver, minimum, nonce, deadline };
}
