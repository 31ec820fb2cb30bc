import { getAddress, hexlify, randomBytes, toBigInt } from "ethers";
import type { ChainAccess } from "../../chain";
import { readChain } from "../../chain/rpcErrors";
import { ConflictError } from "../../errors";
import {
  intentDigest,
  intentTypedData,
  operatorAuthorizationTypedData,
  permitTypedData,
  routerDomain,
  type Intent,
  type TypedDataMessage,
} from "../../domain/signedWrites";
import type { Logger } from "../../logger";
import type { TxEngine, TxJournalEntry } from "../../tx";
import type { SignedAction, SignedBody } from "../../../../packages/wire/src/data/signedWrites";
import { NapVault__factory, TestUSDC__factory } from "../../../../typechain-types";
import type { Idempotency } from "../idempotency";
import { checkIntent, checkVaultKind, refusal } from "./checks";
import { declaredDomain, gatherFacts, routerAddress, type Attachments } from "./facts";
import { addressField, intentOf, uintField, type IntentFields } from "./input";
import { Relays, type RelayView } from "./relay";

/**
 * Signed writes (issue 30): a wallet that keeps its own keys deposits into and redeems from a vault by EIP-712
 * messages that the NapRouter verifies; the service prepares the typed data, checks a signed message before any gas
 * is spent, and its relayer submits it and pays the gas. No server wallet of an agent is involved, and the same
 * message works sent straight to the router.
 */

/** How long a prepared message stays valid. */
export const PREPARED_DEADLINE_SECONDS = 30 * 60;

export interface PreparedWrite {
  action: SignedAction;
  vault: string;
  chain_id: number;
  router: string;
  nonce: string;
  deadline: string;
  intent: TypedDataMessage;
  permit: TypedDataMessage | null;
  operator_authorization: TypedDataMessage | null;
}

export interface RelayAccepted {
  relay_id: string;
  status: RelayView["status"];
  tx_hash: string | null;
  status_url: string;
}

export class SignedWrites {
  readonly #relays: Relays;

  constructor(
    private readonly chain: ChainAccess,
    engine: TxEngine,
    private readonly idempotency: Idempotency,
    logger: Logger,
  ) {
    this.#relays = new Relays(chain, engine, logger);
  }

  /** Waits for the relays this process started. */
  settled(): Promise<void> {
    return this.#relays.settled();
  }

  /** The typed data to sign for `action`, with a fresh nonce, a deadline and the permit or authorisation needed. */
  async prepare(action: SignedAction, vaultParam: string, fields: IntentFields): Promise<PreparedWrite> {
    const vault = await this.#knownVault(vaultParam);
    const router = routerAddress(this.chain);
    const provider = this.chain.provider;
    const block = await this.chain.head.readBlock();
    const at = { blockTag: block };
    // The deadline counts from the chain's latest block, not the head this instance last read: a head behind the
    // chain's clock would date a message that the submit, reading a newer block, already finds expired.
    const [header, isAsync] = await readChain("the vault", () =>
      Promise.all([provider.getBlock("latest"), NapVault__factory.connect(vault, provider).isERC7540(at)]),
    );
    const now = BigInt(header?.timestamp ?? Math.floor(Date.now() / 1000));
    const deadline = now + BigInt(PREPARED_DEADLINE_SECONDS);
    const nonce = toBigInt(randomBytes(32));
    const intent = intentOf(action, vault, fields, nonce, deadline);
    checkVaultKind(intent, isAsync);
    const domain = routerDomain(this.chain.chainId, router);

    let permit: TypedDataMessage | null = null;
    let authorization: TypedDataMessage | null = null;
    if (action === "deposit") {
      const asset = getAddress(
        await readChain("the vault's asset", () => NapVault__factory.connect(vault, provider).asset(at)),
      );
      const token = TestUSDC__factory.connect(asset, provider);
      const allowance = await readChain("the router's allowance", () => token.allowance(intent.owner, router, at));
      if (allowance < (intent.amount ?? 0n)) {
        const [assetDomain, permitNonce] = await readChain("the asset's permit domain", () =>
          Promise.all([declaredDomain(provider, asset, this.chain.chainId, block), token.nonces(intent.owner, at)]),
        );
        permit = permitTypedData(assetDomain, {
          owner: intent.owner,
          spender: router,
          value: intent.amount ?? 0n,
          nonce: permitNonce,
          deadline,
        });
      }
    } else {
      const isOperator = await readChain("the vault's operators", () =>
        NapVault__factory.connect(vault, provider).isOperator(intent.owner, router, at),
      );
      if (!isOperator) {
        const vaultDomain = await readChain("the vault's EIP-712 domain", () =>
          declaredDomain(provider, vault, this.chain.chainId, block),
        );
        authorization = operatorAuthorizationTypedData(vaultDomain, {
          controller: intent.owner,
          operator: router,
          approved: true,
          nonce: hexlify(randomBytes(32)),
          deadline,
        });
      }
    }
    return {
      action,
      vault,
      chain_id: this.chain.chainId,
      router,
      nonce: nonce.toString(),
      deadline: deadline.toString(),
      intent: intentTypedData(domain, intent),
      permit,
      operator_authorization: authorization,
    };
  }

  /**
   * Checks a signed message and has the relayer submit it: 202 with the relay (id = the intent's EIP-712 digest).
   * The same message again, or the same Idempotency-Key, answers the same relay and sends nothing again.
   */
  async submit<A extends SignedAction>(
    action: A,
    vaultParam: string,
    body: SignedBody<A>,
    idempotencyKey: string | undefined,
  ): Promise<RelayAccepted> {
    const vault = await this.#knownVault(vaultParam);
    const fields = body as IntentFields & { nonce: string; deadline: string };
    const intent = intentOf(
      action,
      vault,
      fields,
      uintField(fields.nonce, "nonce"),
      uintField(fields.deadline, "deadline"),
    );
    const attached = attachments(body);
    const router = routerAddress(this.chain);
    const relayId = intentDigest(routerDomain(this.chain.chainId, router), intent).toLowerCase();
    const run = () => this.#submit(relayId, router, intent, attached);
    try {
      return await this.idempotency.run(
        intent.owner.toLowerCase(),
        `data.${action}`,
        idempotencyKey,
        { vault, body },
        run,
      );
    } catch (error) {
      if (error instanceof ConflictError && error.reason === undefined) {
        throw new ConflictError(
          "Idempotency-Key: already used for a different signed message; use a new key for a new message",
          { field: "Idempotency-Key" },
          { reason: "IDEMPOTENCY_KEY_REUSED" },
        );
      }
      throw error;
    }
  }

  /** The relay's state (404 RELAY_NOT_FOUND for an id no relay has). */
  async relay(relayId: string): Promise<RelayView> {
    const entry = await this.#relays.entry(relayId);
    if (!entry || !entry.kind.startsWith("signed.")) {
      throw refusal("RELAY_NOT_FOUND", `relay_id: no relay ${relayId}`, { relay_id: relayId });
    }
    return this.#relays.view(relayId, entry);
  }

  async #submit(relayId: string, router: string, intent: Intent, attached: Attachments): Promise<RelayAccepted> {
    const existing = await this.#relays.entry(relayId);
    // A message already sent (or being sent) is answered by its relay: its nonce is taken, so the checks would refuse.
    let entry: TxJournalEntry | null = existing;
    if (!existing || (existing.state === "failed" && existing.hash === null)) {
      const isAsync = await readChain("the vault", () =>
        NapVault__factory.connect(intent.vault, this.chain.provider).isERC7540(),
      );
      checkIntent(intent, await gatherFacts(this.chain, intent, attached, isAsync));
      entry = await this.#relays.send(relayId, router, intent, attached);
    }
    const view = entry ? await this.#relays.view(relayId, entry) : null;
    return {
      relay_id: relayId,
      status: view?.status ?? "submitted",
      tx_hash: view?.tx_hash ?? null,
      status_url: `/v1/relays/${relayId}`,
    };
  }

  /** The vault of the path, among the deployment's vaults (VAULT_NOT_FOUND otherwise). */
  async #knownVault(param: string): Promise<string> {
    const address = addressField(param, "address");
    const known = this.chain.contracts
      .vaultList()
      .some((vault) => vault.address.toLowerCase() === address.toLowerCase());
    if (!known) throw refusal("VAULT_NOT_FOUND", `no vault at ${address}`, { address });
    return address;
  }
}

function attachments(body: {
  signature: string;
  permit?: { value: string; deadline: string; signature: string };
  operator_authorization?: { nonce: string; deadline: string; signature: string };
}): Attachments {
  return {
    signature: body.signature,
    ...(body.permit
      ? {
          permit: {
            value: uintField(body.permit.value, "permit.value"),
            deadline: uintField(body.permit.deadline, "permit.deadline"),
            signature: body.permit.signature,
          },
        }
      : {}),
    ...(body.operator_authorization
      ? {
          authorization: {
            nonce: body.operator_authorization.nonce.toLowerCase(),
            deadline: uintField(body.operator_authorization.deadline, "operator_authorization.deadline"),
            signature: body.operator_authorization.signature,
          },
        }
      : {}),
  };
}
