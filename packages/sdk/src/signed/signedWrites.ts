import { randomUUID } from "node:crypto";
import type { components } from "../dataOpenapi";
import type { HttpTransport } from "../transport";
import { ACTIONS, askedValues, isAddress, type ActionName, type ActionRequests } from "./actions";
import { checkPrepared, type PreparedWrite } from "./check";
import { NapRelayError, NapTypedDataMismatchError, type RelayState } from "./errors";
import { signTypedData, typedDataSignerAddress, type TypedDataSigner } from "./typedDataSigner";

/**
 * Writes by a wallet that keeps its own key (issue 30): prepare the typed data (a read), check it says what was
 * asked (check.ts), sign the intent and, when the service asks for them, the permit or the operator authorisation,
 * submit, and follow the relay. The service's relayer pays the gas; the wallet needs no ETH and no registration.
 */

export interface SignedWriteOptions {
  /** The chain the wallet means to act on; the service's typed data must name it (default: the service's). */
  chainId?: number;
  /** The router the wallet trusts; the service's typed data must name it (default: the one the service names). */
  router?: string;
  /** Sent as Idempotency-Key, the same on each retry of the submit (default: a new UUID per call). */
  idempotencyKey?: string;
}

export interface SignedWritesOptions {
  /** Defaults of every write's chainId and router. */
  chainId?: number;
  router?: string;
  /**
   * The longest deadline accepted from the service, in seconds from this machine's clock (the service gives 1,800
   * from the chain's). Default: no bound, for chains whose time is not the wall clock's (a test chain moved ahead).
   */
  maxValiditySeconds?: number;
  /** Unix seconds now (for tests). */
  now?: () => number;
}

/** The submit's answer (202). */
export type RelaySubmitted = components["schemas"]["RelayAccepted"];

export interface WaitOptions {
  /** How long to wait for the relay to be final, in milliseconds (default 120,000). */
  timeoutMs?: number;
  /** Between two reads of the relay, in milliseconds (default 1,000). */
  intervalMs?: number;
}

const RELAY_ID = /^0x[0-9a-fA-F]{64}$/;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SignedWrites {
  constructor(
    private readonly transport: HttpTransport,
    private readonly headers: () => Record<string, string>,
    private readonly options: SignedWritesOptions = {},
  ) {}

  async write<A extends ActionName>(
    action: A,
    request: ActionRequests[A],
    signer: TypedDataSigner,
    options: SignedWriteOptions = {},
  ): Promise<RelaySubmitted> {
    const spec = ACTIONS[action];
    const owner = await typedDataSignerAddress(signer);
    const asked = askedValues(spec, request, owner);
    const vault = isAddress(request.vault) ? request.vault : (await this.#vault(request.vault)).address;
    const path = `/v1/vaults/${encodeURIComponent(vault)}/${spec.segment}`;
    const query = Object.fromEntries([["owner", owner], ...[...asked].map(([param, value]) => [param.wire, value])]);
    const prepared = await this.transport.request<PreparedWrite>({
      method: "GET",
      path: `${path}/typed-data`,
      query,
      headers: this.headers(),
    });
    const amount = spec.extra === "permit" ? [...asked].find(([param]) => param.message === "assets")?.[1] : undefined;
    const checked = checkPrepared(prepared, {
      spec,
      owner,
      vault,
      asked: Object.fromEntries([...asked].map(([param, value]) => [param.message, value])),
      chainId: options.chainId ?? this.options.chainId,
      router: options.router ?? this.options.router,
      permitValue: amount,
      nowSeconds: this.options.now?.() ?? Math.floor(Date.now() / 1000),
      maxValiditySeconds: this.options.maxValiditySeconds,
    });
    if ("problems" in checked) throw new NapTypedDataMismatchError(`GET ${path}/typed-data`, checked.problems);

    const signature = await signTypedData(signer, checked.intent, owner);
    const body: Record<string, unknown> = {
      owner,
      ...Object.fromEntries([...asked].map(([param, value]) => [param.wire, value])),
      nonce: checked.intent.message.nonce,
      deadline: checked.intent.message.deadline,
      signature,
    };
    if (checked.permit) {
      body.permit = {
        value: checked.permit.message.value,
        deadline: checked.permit.message.deadline,
        signature: await signTypedData(signer, checked.permit, owner),
      };
    }
    if (checked.operatorAuthorization) {
      body.operator_authorization = {
        nonce: checked.operatorAuthorization.message.nonce,
        deadline: checked.operatorAuthorization.message.deadline,
        signature: await signTypedData(signer, checked.operatorAuthorization, owner),
      };
    }
    return this.transport.request<RelaySubmitted>({
      method: "POST",
      path,
      body,
      headers: this.headers(),
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
    });
  }

  /** A relay's state (GET /v1/relays/{relayId}). */
  async relay(relayId: string): Promise<RelayState> {
    if (!RELAY_ID.test(relayId))
      throw new TypeError(`relayId must be a 0x-prefixed 32-byte hex digest, got ${relayId}`);
    return this.transport.request<RelayState>({
      method: "GET",
      path: `/v1/relays/${relayId}`,
      headers: this.headers(),
    });
  }

  /** Reads the relay until it is confirmed (answered) or failed (NapRelayError), at most `timeoutMs`. */
  async waitForRelay(relayId: string, options: WaitOptions = {}): Promise<RelayState> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const intervalMs = options.intervalMs ?? 1000;
    const until = Date.now() + timeoutMs;
    for (;;) {
      const relay = await this.relay(relayId);
      if (relay.status === "confirmed") return relay;
      if (relay.status === "failed") {
        const why = relay.error ? `${relay.error.code}: ${relay.error.message}` : "no reason given";
        throw new NapRelayError(`relay ${relayId} failed (${why})`, "failed", relay);
      }
      if (Date.now() + intervalMs > until) {
        throw new NapRelayError(`relay ${relayId} still ${relay.status} after ${timeoutMs} ms`, "timeout", relay);
      }
      await sleep(intervalMs);
    }
  }

  async #vault(vault: string): Promise<{ address: string }> {
    return this.transport.request<{ address: string }>({
      method: "GET",
      path: `/v1/vaults/${encodeURIComponent(vault)}`,
      headers: this.headers(),
    });
  }
}
