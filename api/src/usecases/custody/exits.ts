import { getAddress } from "ethers";
import { IERC20__factory } from "../../../../typechain-types";
import type { ChainAccess } from "../../chain";
import { readChain } from "../../chain/rpcErrors";
import { agentWallet, type ServerWallets } from "../../chain/wallets";
import type { VaultId } from "../../domain/model";
import { ValidationError, type JsonValue } from "../../errors";
import { KeyedQueue } from "../../keyedQueue";
import { intentKeyFor, type TxEngine } from "../../tx";
import type { AgentRecord, AgentService } from "../agents";

/**
 * The way out of a server wallet: USDC, ETH or a vault's shares move from the agent's wallet to its operator address,
 * and only there. The destination is never part of a request; it is read from the agent's record when the exit is
 * signed, so a leaked API key can send the agent's funds to the operator and nowhere else, and an operator change
 * (which needs the current operator's signature: operatorChange.ts) takes effect on the next exit.
 */

const ERC20 = IERC20__factory.createInterface();

/** Operation name of an exit in the journal and the idempotency store. */
export const EXIT_OPERATION = "custody.exit";

/**
 * ETH kept back by an exit of "all" ETH, in units of the transfer's estimated gas at the current max fee: the engine
 * signs with the estimate plus a margin and checks the balance against it, so the whole balance can never be sent.
 */
const ETH_ALL_GAS_RESERVE_FACTOR = 2n;

/** What leaves the wallet: a raw amount in the asset's smallest unit, or everything. */
export type ExitAsset =
  | { asset: "usdc"; amount: bigint | "all" }
  | { asset: "eth"; amount: bigint | "all" }
  | { asset: "shares"; vaultId: VaultId; amount: bigint | "all" };

export interface Exit {
  agentAddress: string;
  operatorAddress: string;
  asset: ExitAsset["asset"];
  vaultId: VaultId | null;
  /** Token (USDC or the vault's shares) or null for ETH. */
  tokenAddress: string | null;
  amount: bigint;
  txHash: string;
  blockNumber: number;
}

export class Exits {
  readonly #queue = new KeyedQueue();

  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
    private readonly agents: AgentService,
  ) {}

  /**
   * Sends `what` from the agent's server wallet to its operator, through the engine (journaled, idempotent by `key`).
   * Exits of one agent run one after another, each reading the balance it spends; amounts beyond it are a 400
   * before anything is signed. `beforeSend` runs with the planned amount right before the transaction is sent (a
   * scoped key's daily USDC reservation); what it throws stops the exit.
   */
  toOperator(
    agent: AgentRecord,
    what: ExitAsset,
    key: string | undefined,
    beforeSend?: (amount: bigint) => Promise<void>,
  ): Promise<Exit> {
    return this.#queue.run(agent.agentId, async () => {
      // The record of now, not the one the API key was checked against: an operator change just made counts.
      const current = await this.agents.getById(agent.agentId);
      const operator = current.operatorAddress;
      const address = this.wallets.agentAddress(current.agentIndex);
      const intentKey = intentKeyFor(current.agentId, EXIT_OPERATION, key);
      const known = key ? await this.engine.lookup(intentKey) : null;
      const planned = known
        ? { to: getAddress(known.to), data: known.data, value: BigInt(known.value), amount: amountOf(known.meta) }
        : await this.#plan(address, operator, what);
      await beforeSend?.(planned.amount);
      const sent = await this.engine.send({
        wallet: agentWallet(current.agentIndex),
        to: planned.to,
        data: planned.data,
        value: planned.value,
        kind: EXIT_OPERATION,
        intentKey,
        requestor: current.agentId,
        meta: {
          asset: what.asset,
          operator,
          amount: planned.amount.toString(),
          ...(what.asset === "shares" ? { vault_id: what.vaultId } : {}),
        },
      });
      // A retry answers with the operator its first call paid, which the journal holds.
      const recipient = known && typeof known.meta.operator === "string" ? known.meta.operator : operator;
      return {
        agentAddress: address,
        operatorAddress: recipient,
        asset: what.asset,
        vaultId: what.asset === "shares" ? what.vaultId : null,
        tokenAddress: what.asset === "eth" ? null : planned.to,
        amount: planned.amount,
        txHash: sent.hash,
        blockNumber: sent.receipt.blockNumber,
      };
    });
  }

  /** The transaction of an exit: an ERC-20 transfer to the operator, or ETH sent to it. */
  async #plan(address: string, operator: string, what: ExitAsset) {
    const block = await this.chain.head.checkBlock();
    if (what.asset === "eth") {
      const balance = await readChain("the wallet", () => this.chain.provider.getBalance(address, block));
      let amount = what.amount;
      if (amount === "all") {
        const [gas, fees] = await readChain("the transfer's gas", () =>
          Promise.all([
            this.chain.provider.estimateGas({ from: address, to: operator, value: 1n }),
            this.chain.head.fees(),
          ]),
        );
        amount = balance - gas * fees.maxFeePerGas * ETH_ALL_GAS_RESERVE_FACTOR;
        if (amount <= 0n) {
          throw new ValidationError(
            `amount: the agent wallet ${address} holds ${balance} wei, not more than the gas of sending it; ` +
              "nothing can leave",
          );
        }
      } else if (amount > balance) {
        throw new ValidationError(`amount: the agent wallet ${address} holds ${balance} wei, less than ${amount}`);
      }
      return { to: operator, data: "0x", value: amount, amount };
    }
    const token = what.asset === "usdc" ? this.chain.contracts.usdc : this.chain.contracts.vault(what.vaultId);
    const unit = what.asset === "usdc" ? "raw USDC (6 decimals)" : `raw shares of the ${what.vaultId} vault`;
    const balance = await readChain("the wallet", () => token.balanceOf(address, { blockTag: block }));
    const amount = what.amount === "all" ? balance : what.amount;
    if (balance === 0n || amount > balance) {
      throw new ValidationError(
        `amount: the agent wallet ${address} holds ${balance} ${unit}` +
          (what.amount === "all" ? "" : `, less than ${amount}`),
      );
    }
    const to = token.target as string;
    return { to, data: ERC20.encodeFunctionData("transfer", [operator, amount]), value: 0n, amount };
  }
}

function amountOf(meta: Record<string, JsonValue>): bigint {
  return typeof meta.amount === "string" ? BigInt(meta.amount) : 0n;
}
