import { parseUnits } from "ethers";
import { NapDataClient, vaultAddress, type RelayState, type RelaySubmitted } from "@nap/sdk";
import { UsageError } from "../commands/binding";
import { usdc } from "../commands/reads";
import type { Output } from "../output";
import type { Flags, Session } from "../session";
import { walletFromKeyFile } from "./keyFile";

/**
 * `nap wallet <action>`: a signed write by the key file's wallet through the data API (the SDK checks the typed
 * data the service prepares before signing), then, unless --no-wait, the relay followed until it is mined.
 */

const text = (value: string | boolean | undefined) => (typeof value === "string" ? value : undefined);
const RAW = /^(0|[1-9]\d*)$/;
const USDC_AMOUNT = /^\d+(\.\d{1,6})?$/;

function raw(flags: Flags, name: string, required: boolean): string | undefined {
  const value = text(flags[name]);
  if (value === undefined) {
    if (required) throw new UsageError(`--${name} RAW is required (base units, a whole number)`);
    return undefined;
  }
  if (!RAW.test(value)) throw new UsageError(`--${name} must be a whole number of base units, got ${value}`);
  return value;
}

function client(session: Session, flags: Flags): NapDataClient {
  const chain = text(flags["chain-id"]);
  if (chain !== undefined && !RAW.test(chain)) throw new UsageError(`--chain-id must be a number, got ${chain}`);
  const router = text(flags.router);
  return new NapDataClient({
    baseUrl: session.publicUrl(),
    apiKey: text(flags["data-key"]) ?? process.env.NAP_DATA_KEY,
    ...session.bounds(),
    ...(chain !== undefined ? { chainId: Number(chain) } : {}),
    ...(router !== undefined ? { router } : {}),
  });
}

/** What a person reads of a relay's outcome. */
function outcome(action: string, relay: RelayState): string {
  const where = `(relay ${relay.relay_id}, tx ${relay.tx_hash}, block ${relay.block_number})`;
  const shares = relay.result?.shares;
  const assets = relay.result?.assets;
  switch (action) {
    case "deposit":
      return `deposited by signature: ${shares ?? "?"} shares ${where}`;
    case "withdraw":
      return `withdrew by signature: ${assets === undefined ? "?" : usdc(assets)} USDC ${where}`;
    case "redeem-request":
      return `redemption requested by signature: ${shares ?? "?"} shares ${where}`;
    case "claim":
      return `claimed by signature: ${assets === undefined ? "?" : usdc(assets)} USDC ${where}`;
    default:
      return `redemption cancelled by signature: ${shares ?? "?"} shares back ${where}`;
  }
}

export async function wallet(positionals: string[], flags: Flags, session: Session, out: Output): Promise<number> {
  const [, action, vaultArg, amount, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`wallet ${action}: unexpected ${extra.join(" ")}`);
  const data = client(session, flags);
  if (action === "relay") {
    if (!vaultArg) throw new UsageError("wallet relay: RELAY_ID is required");
    const relay = await data.relay(vaultArg);
    out.result(relay, [
      `relay ${relay.relay_id}: ${relay.status}` +
        (relay.error ? ` (${relay.error.code}: ${relay.error.message})` : "") +
        (relay.tx_hash ? `, tx ${relay.tx_hash}` : "") +
        (relay.block_number !== null ? `, block ${relay.block_number}` : "") +
        (relay.result
          ? `, ${Object.entries(relay.result)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}`
          : ""),
    ]);
    return 0;
  }
  const writes = ["deposit", "withdraw", "redeem-request", "claim", "cancel"];
  if (!action || !writes.includes(action)) {
    throw new UsageError(`wallet: one of ${[...writes, "relay"].join(", ")}`);
  }
  if (!vaultArg) throw new UsageError(`wallet ${action}: VAULT is required`);
  if (action !== "deposit" && amount !== undefined) {
    throw new UsageError(`wallet ${action}: unexpected ${amount} (amounts of shares go in --shares RAW)`);
  }
  const file = text(flags["key-file"]) ?? process.env.NAP_KEY_FILE;
  if (!file) throw new UsageError(`wallet ${action}: --key-file FILE (or $NAP_KEY_FILE) is required`);
  const receiver = text(flags.receiver);
  const options = session.idempotencyKey !== undefined ? { idempotencyKey: session.idempotencyKey } : {};

  let send: (signer: Awaited<ReturnType<typeof walletFromKeyFile>>, vault: string) => Promise<RelaySubmitted>;
  if (action === "deposit") {
    if (!amount || !USDC_AMOUNT.test(amount)) {
      throw new UsageError("wallet deposit: AMOUNT_USDC is required (USDC, at most 6 decimals)");
    }
    const minShares = raw(flags, "min-shares", false);
    send = (signer, vault) =>
      data.deposit({ vault, amount: parseUnits(amount, 6), receiver, minShares }, signer, options);
  } else if (action === "withdraw" || action === "claim") {
    const shares = raw(flags, "shares", true)!;
    const minAssets = raw(flags, "min-assets", false);
    const call = action === "withdraw" ? data.redeem.bind(data) : data.claim.bind(data);
    send = (signer, vault) => call({ vault, shares, receiver, minAssets }, signer, options);
  } else if (action === "redeem-request") {
    const shares = raw(flags, "shares", true)!;
    send = (signer, vault) => data.requestRedeem({ vault, shares }, signer, options);
  } else {
    send = (signer, vault) => data.cancelRedeem({ vault, receiver }, signer, options);
  }

  const signer = await walletFromKeyFile(file);
  const vault = await vaultAddress(data, vaultArg);
  const what = `wallet ${action} ${vaultArg} by ${signer.address}`;
  const submitted = await out.progress(`${what}: signing and sending`, false, () => send(signer, vault));
  if (flags["no-wait"]) {
    out.result(submitted, [
      `sent by signature: relay ${submitted.relay_id}, tx ${submitted.tx_hash} (follow: nap wallet relay ${submitted.relay_id})`,
    ]);
    return 0;
  }
  const relay = await out.progress(what, true, () => data.waitForRelay(submitted.relay_id));
  out.result(relay, [outcome(action, relay)]);
  return 0;
}
