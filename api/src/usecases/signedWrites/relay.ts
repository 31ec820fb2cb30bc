import { Signature } from "ethers";
import { LRUCache } from "lru-cache";
import type { ChainAccess } from "../../chain";
import { getTransactionReceipt } from "../../chain/rpc/actions";
import { AppError, UnavailableError } from "../../errors";
import { intentStruct, type Intent } from "../../domain/signedWrites";
import type { Logger } from "../../logger";
import { TxRevertedError, type TxEngine, type TxJournalEntry } from "../../tx";
import type { RelayStatus, SignedAction } from "../../../../packages/wire/src/data/signedWrites";
import { NapVault__factory } from "../../../../typechain-types";
import { refusal } from "./checks";
import type { Attachments } from "./facts";
import { ROUTER_FUNCTION, ROUTER_INTERFACE } from "./routerAbi";

/**
 * The relayer's side of a signed write: the router call sent from the relayer wallet through the transaction engine
 * under the intent key `signed:<digest>`, so that one message is sent once across retries, restarts and instances
 * (the engine joins a second send of the key, or answers from its journal), and the relay's state read back from
 * that journal entry.
 */

/** How long a submit waits for the transaction's hash before answering without it. */
const HASH_WAIT_MS = 30_000;
const HASH_POLL_MS = 25;

export function relayKey(relayId: string): string {
  return `signed:${relayId.toLowerCase()}`;
}

export interface RelayView {
  relay_id: string;
  action: SignedAction;
  vault: string;
  owner: string;
  status: RelayStatus;
  tx_hash: string | null;
  block_number: number | null;
  result: { shares?: string; assets?: string } | null;
  error: { code: string; message: string } | null;
}

/** The router calldata of a signed message. */
export function routerCalldata(intent: Intent, attached: Attachments): string {
  const struct = intentStruct(intent);
  if (intent.action === "deposit") {
    const permit = attached.permit;
    const split = permit ? Signature.from(permit.signature) : null;
    const permitArg =
      permit && split
        ? { value: permit.value, deadline: permit.deadline, v: split.v, r: split.r, s: split.s }
        : { value: 0n, deadline: 0n, v: 0, r: `0x${"00".repeat(32)}`, s: `0x${"00".repeat(32)}` };
    return ROUTER_INTERFACE.encodeFunctionData("deposit", [struct, attached.signature, permitArg]);
  }
  const authorization = attached.authorization ?? { nonce: `0x${"00".repeat(32)}`, deadline: 0n, signature: "0x" };
  return ROUTER_INTERFACE.encodeFunctionData(ROUTER_FUNCTION[intent.action], [
    struct,
    attached.signature,
    authorization,
  ]);
}

/** The data API code of a router revert caught before signing (the checks missed a change that happened since). */
export function codeOfRevert(name: string | undefined): string {
  const known: Record<string, string> = {
    SignatureExpired: "SIGNATURE_EXPIRED",
    InvalidSignature: "INVALID_SIGNATURE",
    NonceAlreadyUsed: "NONCE_USED",
    InsufficientAllowance: "INSUFFICIENT_ALLOWANCE",
    InsufficientBalance: "INSUFFICIENT_BALANCE",
    ERC20InsufficientBalance: "INSUFFICIENT_BALANCE",
    WrongVaultKind: "WRONG_VAULT_KIND",
    NothingToClaim: "NOTHING_TO_CLAIM",
    NothingToCancel: "NOTHING_TO_CANCEL",
  };
  return (name && known[name]) ?? "TRANSACTION_REVERTED";
}

export class Relays {
  readonly #results = new LRUCache<string, { result: RelayView["result"] }>({ max: 10_000 });
  readonly #background = new Set<Promise<unknown>>();

  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly logger: Logger,
  ) {}

  /** Waits for the relays this process started (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  /** The journal entry of a relay, or null. */
  entry(relayId: string): Promise<TxJournalEntry | null> {
    return this.engine.lookup(relayKey(relayId));
  }

  /**
   * Sends the router call from the relayer wallet (the engine estimates first: a revert is refused before a nonce is
   * used) and answers once the transaction has its hash; the receipt is awaited in the background.
   */
  async send(relayId: string, router: string, intent: Intent, attached: Attachments): Promise<TxJournalEntry | null> {
    const sending = this.engine.send({
      wallet: { kind: "relayer" },
      to: router,
      data: routerCalldata(intent, attached),
      kind: `signed.${intent.action}`,
      intentKey: relayKey(relayId),
      requestor: intent.owner.toLowerCase(),
      meta: { relay_id: relayId, action: intent.action, vault: intent.vault, owner: intent.owner },
    });
    let failure: unknown = null;
    let done = false;
    const tracked = sending.then(
      () => undefined,
      (error: unknown) => {
        failure = error;
        this.logger.info({ relayId, err: error }, "signed write: relay failed");
      },
    );
    const settled = tracked.finally(() => {
      done = true;
      this.#background.delete(settled);
    });
    this.#background.add(settled);

    const until = Date.now() + HASH_WAIT_MS;
    for (;;) {
      const entry = await this.entry(relayId);
      if (entry?.hash) return entry;
      if (done) {
        if (failure !== null && (entry === null || entry.hash === null)) throw translate(failure);
        return entry;
      }
      if (Date.now() > until) return entry;
      await new Promise((resolve) => setTimeout(resolve, HASH_POLL_MS));
    }
  }

  /** The relay as the status read answers it. */
  async view(relayId: string, entry: TxJournalEntry): Promise<RelayView> {
    const meta = entry.meta as { action: SignedAction; vault: string; owner: string };
    const status: RelayStatus =
      entry.state === "mined"
        ? entry.status === 1
          ? "confirmed"
          : "failed"
        : entry.state === "failed"
          ? "failed"
          : "submitted";
    const error =
      status !== "failed"
        ? null
        : entry.error
          ? { code: codeOfJournalError(entry.error.code, entry.error.details), message: entry.error.message }
          : { code: "TRANSACTION_REVERTED", message: "the router reverted onchain" };
    return {
      relay_id: relayId.toLowerCase(),
      action: meta.action,
      vault: meta.vault,
      owner: meta.owner,
      status,
      tx_hash: entry.hash,
      block_number: entry.state === "mined" ? entry.blockNumber : null,
      result: status === "confirmed" && entry.hash ? await this.#result(meta, entry.hash) : null,
      error,
    };
  }

  /** What the vault's events say the transaction did for the owner (kept: a mined result never changes). */
  async #result(meta: { action: SignedAction; vault: string }, hash: string): Promise<RelayView["result"]> {
    const kept = this.#results.get(hash);
    if (kept !== undefined) return kept.result;
    const receipt = await getTransactionReceipt(this.chain.rpc, hash).catch(() => null);
    if (!receipt) return null;
    const vault = NapVault__factory.createInterface();
    let result: RelayView["result"] = null;
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== meta.vault.toLowerCase()) continue;
      const parsed = (() => {
        try {
          return vault.parseLog({ topics: [...log.topics], data: log.data });
        } catch {
          return null;
        }
      })();
      if (!parsed) continue;
      if (meta.action === "deposit" && parsed.name === "Deposit") result = { shares: String(parsed.args.shares) };
      if ((meta.action === "redeem" || meta.action === "claim") && parsed.name === "Withdraw") {
        result = { assets: String(parsed.args.assets) };
      }
      if (meta.action === "request-redeem" && parsed.name === "RedeemRequest") {
        result = { shares: String(parsed.args.shares) };
      }
      if (meta.action === "cancel-redeem" && parsed.name === "CancelRedeemClaim") {
        result = { shares: String(parsed.args.shares) };
      }
    }
    this.#results.set(hash, { result });
    return result;
  }
}

function codeOfJournalError(code: string, details: unknown): string {
  if (code === "TX_REVERTED") {
    const revert = (details as { revert?: { name?: string } } | undefined)?.revert;
    return codeOfRevert(revert?.name);
  }
  return code;
}

/** An engine error before any hash, in the data API's codes. */
function translate(error: unknown): unknown {
  if (error instanceof TxRevertedError) {
    const name = error.revert?.name;
    return refusal(codeOfRevert(name), `the router would revert${name ? ` with ${name}` : ""}: ${error.message}`, {
      ...(error.revert ? { revert: error.details.revert } : {}),
    });
  }
  if (error instanceof AppError && error.code === "INSUFFICIENT_GAS") {
    return new UnavailableError(
      "the relayer cannot pay for gas now; send the same signed message to the router yourself, or retry later",
      {},
      { reason: "SERVICE_UNAVAILABLE", retryAfterSeconds: 60 },
    );
  }
  return error;
}
