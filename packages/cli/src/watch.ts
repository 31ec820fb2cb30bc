import { vaultAddress, type NapDataClient, type Subscription } from "@nap/sdk";
import type { Output } from "./output";
import { usdc } from "./commands/reads";

/**
 * `nap watch`: a vault's updates (`vault VAULT`) or new transactions (`transactions [VAULT]`) from the data API's
 * GraphQL subscriptions, one line per event on stdout (`--json`: one JSON object per line, `{ seq, ...data }`).
 * Connection notes go to stderr. A dropped connection is resumed from the last seq received (the SDK's
 * subscription helper), so no event is missed or printed twice; Ctrl-C (SIGINT) or SIGTERM closes the socket and
 * exits 0, printing the last seq to resume from with --after-seq.
 */

export interface WatchOptions {
  target: "vault" | "transactions";
  vault: string | undefined;
  afterSeq: number | undefined;
}

export async function watch(data: NapDataClient, out: Output, options: WatchOptions): Promise<number> {
  const address = options.vault === undefined ? undefined : await vaultAddress(data, options.vault);
  const what =
    options.target === "vault" ? `updates of vault ${address}` : `transactions${address ? ` of vault ${address}` : ""}`;
  const note = (text: string, fields: Record<string, unknown>) => out.note(text, fields);
  let failure: Error | undefined;
  const handlers = {
    connected: ({ afterSeq, reconnects }: { afterSeq: number | undefined; reconnects: number }) =>
      note(
        `${reconnects === 0 ? "watching" : "reconnected, watching"} ${what}${afterSeq !== undefined ? ` after seq ${afterSeq}` : ""} (Ctrl-C to stop)`,
        { status: "connected", after_seq: afterSeq ?? null },
      ),
    reconnecting: ({ waitMs, reason, afterSeq }: { waitMs: number; reason: string; afterSeq: number | undefined }) =>
      note(`connection lost (${reason}); reconnecting in ${(waitMs / 1000).toFixed(1)} s`, {
        status: "reconnecting",
        reason,
        wait_ms: waitMs,
        after_seq: afterSeq ?? null,
      }),
    error: (error: Error) => {
      failure = error;
    },
  };
  let subscription: Subscription;
  if (options.target === "vault") {
    subscription = data.subscribe(
      "vaultUpdated",
      { address: address! },
      {
        ...handlers,
        next: ({ data: { vaultUpdated: v }, seq }) =>
          out.event({ seq, vaultUpdated: v }, [
            `#${seq} ${v.name}: TVL ${usdc(v.tvl)} USDC, price ${usdc(v.pricePerShare)} per share, APY ${v.apy.current}%`,
          ]),
      },
      { afterSeq: options.afterSeq },
    );
  } else {
    subscription = data.subscribe(
      "transactionCreated",
      { vaultAddress: address ?? null },
      {
        ...handlers,
        next: ({ data: { transactionCreated: t }, seq }) =>
          out.event({ seq, transactionCreated: t }, [
            `#${seq} ${t.timestamp} ${t.type} ${usdc(t.amount)} USDC ${t.vault.name} by ${t.user} (${t.status}, tx ${t.hash})`,
          ]),
      },
      { afterSeq: options.afterSeq },
    );
  }
  const stop = () => void subscription.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await subscription.done;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  if (failure) {
    out.error(failure.message, 0);
    return 1;
  }
  const last = subscription.lastSeq;
  note(`stopped${last !== undefined ? `; resume with --after-seq ${last}` : ""}`, {
    status: "stopped",
    last_seq: last ?? null,
  });
  return 0;
}
