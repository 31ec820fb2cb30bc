import { getAddress, isHexString, toQuantity } from "ethers";
import { AgentWalletUnavailableError, RemoteSignerUnavailableError, SignerAnswerRefusedError } from "./errors";
import { checkIndex, type Eip1559Transaction, type SignerBackend, type WalletRef } from "./refs";

/**
 * A signer in another process, over JSON-RPC (`eth_accounts`, `eth_signTransaction`: the interface Web3Signer and
 * Clef offer); this process holds no key. Its accounts, listed once at start-up, map to the wallets in order:
 * accounts[0] is the relayer, accounts[1 + i] agent i. Its answers are checked by the engine before broadcast
 * (signedTransaction.ts), since whatever holds the keys is outside this process's control.
 */
export class RemoteSigner implements SignerBackend {
  readonly #url: string;
  readonly #timeoutMs: number;
  #accounts: readonly string[] = [];
  #nextId = 1;

  constructor(url: string, options: { timeoutMs?: number } = {}) {
    this.#url = url;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** The accounts as listed at the last `listAccounts` (checksummed). */
  get accounts(): readonly string[] {
    return this.#accounts;
  }

  /** Reads the signer's accounts; at least one (the relayer) is required. */
  async listAccounts(): Promise<readonly string[]> {
    const answer = await this.#call("eth_accounts", []);
    if (!Array.isArray(answer) || !answer.every((a) => typeof a === "string" && isHexString(a, 20))) {
      throw new Error("REMOTE_SIGNER_URL: eth_accounts did not answer a list of addresses");
    }
    if (answer.length === 0)
      throw new Error("REMOTE_SIGNER_URL: the remote signer lists no account (none for the relayer)");
    this.#accounts = answer.map((a: string) => getAddress(a));
    return this.#accounts;
  }

  address(ref: WalletRef): string {
    const position = ref.kind === "relayer" ? 0 : checkIndex(ref.index) + 1;
    const address = this.#accounts[position];
    if (address === undefined) {
      if (ref.kind === "agent") throw new AgentWalletUnavailableError(ref.index, this.#accounts.length);
      throw new Error("internal: the remote signer's accounts were not listed before use");
    }
    return address;
  }

  async signTransaction(ref: WalletRef, tx: Eip1559Transaction): Promise<string> {
    const answer = await this.#call("eth_signTransaction", [
      {
        from: this.address(ref),
        to: tx.to,
        data: tx.data,
        value: toQuantity(tx.value),
        nonce: toQuantity(tx.nonce),
        gas: toQuantity(tx.gasLimit),
        maxFeePerGas: toQuantity(tx.maxFeePerGas),
        maxPriorityFeePerGas: toQuantity(tx.maxPriorityFeePerGas),
        chainId: toQuantity(tx.chainId),
        type: "0x2",
      },
    ]);
    // Web3Signer answers the raw bytes; Clef answers { raw, tx }.
    const raw = typeof answer === "object" && answer !== null && "raw" in answer ? answer.raw : answer;
    if (typeof raw !== "string" || !isHexString(raw)) {
      throw new SignerAnswerRefusedError("the signer answered eth_signTransaction without signed bytes", {
        reason: "undecodable",
      });
    }
    return raw;
  }

  toJSON(): { remoteSigner: true; accounts: number } {
    return { remoteSigner: true, accounts: this.#accounts.length };
  }

  async #call(method: string, params: unknown[]): Promise<unknown> {
    let body: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      const response = await fetch(this.#url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: this.#nextId++, method, params }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      body = (await response.json()) as typeof body;
    } catch {
      throw new RemoteSignerUnavailableError();
    }
    if (body.error) {
      // The signer said no (Clef's operator declined, Web3Signer has no such key): final for this transaction.
      throw new SignerAnswerRefusedError(`the service's signer refused ${method}: ${String(body.error.message)}`, {
        reason: "signer_refused",
        signer_code: body.error.code ?? null,
      });
    }
    return body.result;
  }
}
