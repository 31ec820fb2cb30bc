import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getAddress, Transaction, Wallet, type HDNodeWallet } from "ethers";

/**
 * A small remote signer for tests: an HTTP JSON-RPC server that holds keys and answers `eth_accounts` and
 * `eth_signTransaction` like Web3Signer (the raw signed bytes). Switches make it misbehave as a compromised or
 * confused signer would, so that the service's checks before broadcast can be tried.
 */

export type SignerBehaviour =
  /** Signs exactly what it is asked. */
  | "honest"
  /** Signs a transfer of the same call to another address (an attacker's). */
  | "other-transaction"
  /** Signs the same transaction for another chain (a replay elsewhere). */
  | "other-chain"
  /** Signs with a key that is not the asked account's. */
  | "wrong-key"
  /** Answers a JSON-RPC error, as Clef does when its operator declines. */
  | "refuse";

/** The address the "other-transaction" behaviour redirects to. */
export const ATTACKER = getAddress("0x000000000000000000000000000000000000a77a");

export interface TestRemoteSigner {
  readonly url: string;
  /** The listed accounts, in order (accounts[0] the relayer, then agents). */
  readonly accounts: readonly string[];
  /** How the next requests are answered. */
  behaviour: SignerBehaviour;
  /** Every eth_signTransaction request received, in order (the transaction objects as sent). */
  readonly signRequests: Record<string, string>[];
  close(): Promise<void>;
}

export async function startRemoteSigner(keys: readonly (Wallet | HDNodeWallet)[]): Promise<TestRemoteSigner> {
  const byAddress = new Map(keys.map((key) => [key.address.toLowerCase(), key]));
  const stranger = Wallet.createRandom();
  const signRequests: Record<string, string>[] = [];
  const state = { behaviour: "honest" as SignerBehaviour };

  const answer = (request: { id: unknown; method: string; params: unknown[] }): unknown => {
    if (request.method === "eth_accounts") return { result: keys.map((key) => key.address) };
    if (request.method !== "eth_signTransaction") return { error: { code: -32601, message: "method not found" } };
    const fields = request.params[0] as Record<string, string>;
    signRequests.push(fields);
    if (state.behaviour === "refuse") return { error: { code: -32000, message: "request denied" } };
    const key = byAddress.get(fields.from.toLowerCase());
    if (!key) return { error: { code: -32000, message: `no key for ${fields.from}` } };
    const tx = Transaction.from({
      type: 2,
      chainId: BigInt(fields.chainId) + (state.behaviour === "other-chain" ? 1n : 0n),
      nonce: Number(BigInt(fields.nonce)),
      to: state.behaviour === "other-transaction" ? ATTACKER : fields.to,
      data: fields.data,
      value: BigInt(fields.value),
      gasLimit: BigInt(fields.gas),
      maxFeePerGas: BigInt(fields.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(fields.maxPriorityFeePerGas),
    });
    const signingKey = state.behaviour === "wrong-key" ? stranger.signingKey : key.signingKey;
    tx.signature = signingKey.sign(tx.unsignedHash);
    return { result: tx.serialized };
  };

  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const request = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...(answer(request) as object) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    accounts: keys.map((key) => key.address),
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: SignerBehaviour) {
      state.behaviour = value;
    },
    signRequests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
