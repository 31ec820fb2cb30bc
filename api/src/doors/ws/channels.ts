import { getAddress, isAddress } from "ethers";
import { makesTransaction } from "../../readmodel/folds/transactions";
import type { DataQueries } from "../../readmodel/queries";
import type { EventLogEntry } from "../../readmodel/records";
import type { Scope } from "../data/access";
import { transactionItem, vaultDetail } from "../data/serializers";
import { WsError, type Channel, type SubscribeMessage } from "./protocol";

/**
 * The channels of /ws. Each turns a subscribe message into a filter over the event log and a message per entry it
 * keeps, made from the query layer's answers with REST's serializers (a vault in a message is GET /v1/vaults/:address,
 * a transaction an item of GET /v1/users/:address/transactions).
 *
 * | channel        | parameters                      | sent for each log entry                          | needs           |
 * |----------------|---------------------------------|--------------------------------------------------|-----------------|
 * | `vault`        | `vault` (address)               | of the vault, added or removed by a reorg        | nothing         |
 * | `transactions` | `vault`?, `user`? (addresses)   | that makes a transaction of the vault / the user | a key for `user`|
 */

export interface ChannelFilter {
  channel: Channel;
  /** The parameters as understood (checksummed addresses), echoed in `subscribed`. */
  params: Record<string, string>;
  /** The scope a key must hold to subscribe (a key is only required when `requiresKey`). */
  scope: Scope;
  /** Why a key is required, when it is. */
  requiresKey?: string;
  accept(entry: EventLogEntry): boolean;
  /** The message's fields besides type, id and seq; null: the entry turned out not to concern the subscription. */
  build(entry: EventLogEntry): Promise<Record<string, unknown> | null>;
}

function address(value: string, field: "vault" | "user"): string {
  if (!isAddress(value)) {
    const shown = String(value).slice(0, 80);
    throw new WsError("INVALID_ADDRESS", `${field}: '${shown}' is not an Ethereum address`, { field });
  }
  return getAddress(value);
}

async function knownVault(queries: DataQueries, value: string): Promise<string> {
  const given = address(value, "vault");
  const vault = await queries.vault(given);
  if (!vault) throw new WsError("VAULT_NOT_FOUND", `vault: no vault at ${given}`, { field: "vault" });
  return vault.address;
}

/** The filter a subscribe message asks for, or the WsError that says what is wrong with it. */
export async function channelFilter(queries: DataQueries, message: SubscribeMessage): Promise<ChannelFilter> {
  if (message.channel === "vault") {
    const vault = await knownVault(queries, message.vault);
    const lower = vault.toLowerCase();
    return {
      channel: "vault",
      params: { vault },
      scope: "vaults:read",
      accept: (entry) => entry.event.address === lower,
      async build(entry) {
        await queries.waitForBlock(entry.event.block);
        const view = await queries.vault(lower);
        if (!view) throw new Error(`vault ${vault} left the read model`);
        const { name, block, transactionHash, logIndex } = entry.event;
        return {
          event: { name, action: entry.action, block, transactionHash, logIndex },
          vault: vaultDetail(view),
        };
      },
    };
  }

  const vault = message.vault === undefined ? undefined : await knownVault(queries, message.vault);
  const user = message.user === undefined ? undefined : address(message.user, "user");
  const vaultLower = vault?.toLowerCase();
  const userLower = user?.toLowerCase();
  return {
    channel: "transactions",
    params: { ...(vault && { vault }), ...(user && { user }) },
    scope: user ? "users:read" : "vaults:read",
    requiresKey: user && "a user's transactions are pushed to authenticated connections only",
    accept: (entry) =>
      entry.action === "added" &&
      makesTransaction(entry.event) &&
      (vaultLower === undefined || entry.event.address === vaultLower) &&
      (userLower === undefined || entry.event.users.includes(userLower)),
    async build(entry) {
      await queries.waitForBlock(entry.event.block);
      const transaction = await queries.transactionOfEvent(entry.event);
      if (!transaction) throw new Error(`no transaction for event ${entry.event.id} at the indexed block`);
      // The event concerns the user (a sender, a receiver), but the transaction may be another's.
      if (userLower !== undefined && transaction.user !== userLower) return null;
      return { transaction: transactionItem(transaction) };
    },
  };
}
