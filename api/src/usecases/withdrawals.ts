import { NapVault__factory } from "../../../typechain-types";
import type { ChainAccess } from "../chain";
import { readChain } from "../chain/rpcErrors";
import { agentWallet, type ServerWallets } from "../chain/wallets";
import type { VaultId } from "../domain/model";
import { usdcString } from "../domain/units";
import { ConflictError, ValidationError } from "../errors";
import { KeyedQueue } from "../keyedQueue";
import { intentKeyFor, stepKey, type MinedReceipt, type TxEngine } from "../tx";
import type { AgentRecord } from "./agents";

/**
 * Exits from the vaults, from the agent's server wallet (always the owner, controller and receiver: the API has no
 * way to name another holder, so an agent can only move its own shares).
 *
 * - Synchronous vaults (ERC-4626): `withdraw` (an amount of USDC) or `redeem` (shares, or all of them), one
 *   transaction.
 * - Asynchronous vaults (ERC-7540): `requestRedeem` moves shares into a request that becomes fillable at its ready
 *   time (request time + the vault's fulfilment delay); `claim` has the request filled (by the relayer, which holds
 *   FULFILLER_ROLE, from the ready time; by the agent's own wallet once FULFILLMENT_GRACE_PERIOD more has passed,
 *   when the relayer lacks the role) and redeems every claimable share; `cancel` (ERC-7887) takes the pending
 *   shares back, or only claims them back when the request was canceled already.
 *
 * Every amount is checked against the wallet's position before anything is signed, so a request beyond it is a
 * clear 400 (409 for a request in the wrong state) and costs no gas. Exits of one agent run one after another (in
 * this process), like its deposits: each reads the position it spends.
 */

const VAULT_INTERFACE = NapVault__factory.createInterface();

export type SyncExit = { amountMicroUsdc: bigint } | { shares: bigint | "all" };

export interface VaultRef {
  id: VaultId;
  address: string;
  name: string;
}

export interface Withdrawal {
  agentAddress: string;
  vault: VaultRef;
  txHash: string;
  blockNumber: number;
  /** USDC paid to the wallet (6 decimals). */
  assets: bigint;
  /** Shares burnt (synchronous) or counted against the claim (asynchronous). */
  shares: bigint;
  shareDecimals: number;
  /** The wallet's shares after the exit, at its block. */
  sharesBalance: bigint;
}

export interface RedeemRequest {
  agentAddress: string;
  vault: VaultRef;
  txHash: string;
  blockNumber: number;
  shares: bigint;
  shareDecimals: number;
  /** All shares pending for this wallet after the request (a new request joins the pending one). */
  pendingShares: bigint;
  /** Unix seconds: from when the fulfiller (the service's relayer) may fill the request. */
  readyAt: number;
  /** Unix seconds: from when anyone may fill it (readyAt + FULFILLMENT_GRACE_PERIOD). */
  permissionlessAt: number;
}

export interface Claim extends Withdrawal {
  /** The fulfilment sent for this claim, if the request was still pending: who sent it and its hash. */
  fulfillment: { txHash: string; by: "relayer" | "agent" } | null;
}

export interface Cancelation {
  agentAddress: string;
  vault: VaultRef;
  /** Null when the request was canceled already (outside the service, or a claim that failed) and only claimed now. */
  cancelTx: string | null;
  claimTx: string;
  blockNumber: number;
  /** Shares returned to the wallet. */
  shares: bigint;
  shareDecimals: number;
  sharesBalance: bigint;
}

/** The redemption state of one wallet in one asynchronous vault, at one block. */
interface RedeemState {
  block: number;
  now: number;
  pending: bigint;
  readyAt: number;
  claimable: bigint;
  grace: number;
  relayerIsFulfiller: boolean;
}

export class Withdrawals {
  readonly #queue = new KeyedQueue();

  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
  ) {}

  /** Withdraws USDC or redeems shares from a synchronous vault. */
  withdraw(agent: AgentRecord, vaultId: VaultId, exit: SyncExit, key: string | undefined): Promise<Withdrawal> {
    return this.#queue.run(agent.agentId, async () => {
      const { vault, ref, address, decimals } = await this.#open(agent, vaultId, "sync");
      const intentKey = intentKeyFor(agent.agentId, "vault.withdraw", key);
      let data: string;
      const known = key ? await this.engine.lookup(intentKey) : null;
      if (known) {
        data = known.data;
      } else {
        const block = await this.chain.head.checkBlock();
        if ("amountMicroUsdc" in exit) {
          const max = await readChain("the position", () => vault.maxWithdraw(address, { blockTag: block }));
          if (exit.amountMicroUsdc > max) {
            throw new ValidationError(
              `amount_usdc: the agent wallet ${address} can withdraw at most ${usdcString(max)} USDC from the ` +
                `${vaultId} vault (its shares' value, rounded down), less than ${usdcString(exit.amountMicroUsdc)}`,
            );
          }
          data = vault.interface.encodeFunctionData("withdraw", [exit.amountMicroUsdc, address, address]);
        } else {
          const balance = await readChain("the position", () => vault.balanceOf(address, { blockTag: block }));
          const shares = exit.shares === "all" ? balance : exit.shares;
          if (balance === 0n || shares > balance) {
            throw new ValidationError(
              `shares: the agent wallet ${address} holds ${balance} shares (raw) of the ${vaultId} vault` +
                (exit.shares === "all" ? "" : `, less than ${shares}`),
            );
          }
          // The whole position is what is left once the performance fee owed is settled, and that fee grows every
          // second while profit unlocks: redeemAll counts it in the block it is mined in (docs/vaults.md).
          data =
            exit.shares === "all"
              ? vault.interface.encodeFunctionData("redeemAll", [address, address])
              : vault.interface.encodeFunctionData("redeem", [shares, address, address]);
        }
      }
      const sent = await this.engine.send({
        wallet: agentWallet(agent.agentIndex),
        to: ref.address,
        data,
        kind: "vault.withdraw",
        intentKey,
        requestor: agent.agentId,
        meta: { vault_id: vaultId },
      });
      return this.#withdrawal(ref, address, decimals, sent.hash, sent.receipt);
    });
  }

  /** Moves shares of an asynchronous vault into a redemption request (ERC-7540 requestRedeem). */
  requestRedeem(
    agent: AgentRecord,
    vaultId: VaultId,
    sharesWanted: bigint | "all",
    key: string | undefined,
  ): Promise<RedeemRequest> {
    return this.#queue.run(agent.agentId, async () => {
      const { vault, ref, address, decimals } = await this.#open(agent, vaultId, "async");
      const intentKey = intentKeyFor(agent.agentId, "vault.redeem_request", key);
      const known = key ? await this.engine.lookup(intentKey) : null;
      let data = known?.data;
      if (!data) {
        const block = await this.chain.head.checkBlock();
        const balance = await readChain("the position", () => vault.balanceOf(address, { blockTag: block }));
        const shares = sharesWanted === "all" ? balance : sharesWanted;
        if (balance === 0n || shares > balance) {
          throw new ValidationError(
            `shares: the agent wallet ${address} holds ${balance} shares (raw) of the ${vaultId} vault` +
              (sharesWanted === "all" ? "" : `, less than ${shares}`),
          );
        }
        data = vault.interface.encodeFunctionData("requestRedeem", [shares, address, address]);
      }
      const sent = await this.engine.send({
        wallet: agentWallet(agent.agentIndex),
        to: ref.address,
        data,
        kind: "vault.redeem_request",
        intentKey,
        requestor: agent.agentId,
        meta: { vault_id: vaultId },
      });
      const event = this.#events(ref.address, sent.receipt, "RedeemRequest")[0];
      const blockTag = sent.receipt.blockNumber;
      const [pending, readyAt, grace] = await readChain("the redemption request", () =>
        Promise.all([
          vault.pendingRedeemRequest(0, address, { blockTag }),
          vault.pendingRedeemReadyAt(address, { blockTag }),
          vault.FULFILLMENT_GRACE_PERIOD(),
        ]),
      );
      return {
        agentAddress: address,
        vault: ref,
        txHash: sent.hash,
        blockNumber: blockTag,
        shares: event ? (event.args.getValue("shares") as bigint) : 0n,
        shareDecimals: decimals,
        pendingShares: pending,
        readyAt: Number(readyAt),
        permissionlessAt: Number(readyAt + grace),
      };
    });
  }

  /**
   * Claims the agent's redemption in an asynchronous vault: fills its pending request first when it is ready
   * (the relayer from the ready time; the agent's own wallet from the permissionless time if the relayer lacks
   * FULFILLER_ROLE), then redeems every claimable share to the wallet. 409 with Retry-After while nothing is
   * claimable yet.
   */
  claim(agent: AgentRecord, vaultId: VaultId, key: string | undefined): Promise<Claim> {
    return this.#queue.run(agent.agentId, async () => {
      const { vault, ref, address, decimals } = await this.#open(agent, vaultId, "async");
      const intentKey = intentKeyFor(agent.agentId, "vault.claim", key);
      const fillKey = stepKey(intentKey, "fulfill");
      const redeemKey = stepKey(intentKey, "redeem");
      const redeemed = key ? await this.engine.lookup(redeemKey) : null;
      const filled = key ? await this.engine.lookup(fillKey) : null;
      let fulfillment: Claim["fulfillment"] = null;
      let data = redeemed?.state === "mined" ? redeemed.data : undefined;
      if (filled) {
        // A retry of a claim whose fulfilment was already sent: the engine answers it from the journal.
        const sent = await this.#fulfill(vault.target as string, address, filled.wallet.kind, fillKey, agent);
        fulfillment = { txHash: sent.hash, by: filled.wallet.kind === "relayer" ? "relayer" : "agent" };
      }
      if (!data) {
        let state = await this.#redeemState(vaultId, address);
        if (state.pending > 0n && !filled) {
          const by = this.#fulfiller(state);
          if (by) {
            const sent = await this.#fulfill(vault.target as string, address, by, fillKey, agent);
            fulfillment = { txHash: sent.hash, by };
            state = await this.#redeemState(vaultId, address, sent.receipt.blockNumber);
          } else if (state.claimable === 0n) {
            const at = state.relayerIsFulfiller ? state.readyAt : state.readyAt + state.grace;
            throw new ConflictError(
              `vault_id: the redemption request of ${address} in the ${vaultId} vault can be filled from ` +
                `${new Date(at * 1000).toISOString()} (in ${at - state.now} s); claim again then`,
              { ready_at: at },
              at - state.now,
            );
          }
        }
        if (state.claimable === 0n) {
          throw new ConflictError(
            `vault_id: the agent wallet ${address} has nothing to claim in the ${vaultId} vault; ` +
              "request a redemption first with POST /api/v1/agent/vault/redeem-request",
          );
        }
        data = vault.interface.encodeFunctionData("redeem", [state.claimable, address, address]);
      }
      const sent = await this.engine.send({
        wallet: agentWallet(agent.agentIndex),
        to: ref.address,
        data,
        kind: "vault.claim",
        intentKey: redeemKey,
        requestor: agent.agentId,
        meta: { vault_id: vaultId },
      });
      return { ...(await this.#withdrawal(ref, address, decimals, sent.hash, sent.receipt)), fulfillment };
    });
  }

  /**
   * Cancels the pending redemption request (ERC-7887) and takes its shares back, in two transactions. A request that
   * is canceled already but whose shares were not claimed back (canceled outside the service, or a claim that
   * failed) is claimed, in one transaction, so that those shares are never stuck.
   */
  cancel(agent: AgentRecord, vaultId: VaultId, key: string | undefined): Promise<Cancelation> {
    return this.#queue.run(agent.agentId, async () => {
      const { vault, ref, address, decimals } = await this.#open(agent, vaultId, "async");
      const intentKey = intentKeyFor(agent.agentId, "vault.redeem_cancel", key);
      // A retry of the same key resumes what the first call journaled (both steps, or the claim alone).
      const known = key
        ? ((await this.engine.lookup(stepKey(intentKey, "cancel"))) ??
          (await this.engine.lookup(stepKey(intentKey, "claim"))))
        : null;
      let claimOnly = known !== null && known.intentKey === stepKey(intentKey, "claim");
      if (!known) {
        const state = await this.#redeemState(vaultId, address);
        if (state.pending === 0n) {
          const canceled = await readChain("the canceled request", () =>
            vault.claimableCancelRedeemRequest(0, address, { blockTag: state.block }),
          );
          if (canceled === 0n) {
            throw new ConflictError(
              `vault_id: the agent wallet ${address} has no pending redemption request, nor canceled shares to ` +
                `claim back, in the ${vaultId} vault`,
            );
          }
          claimOnly = true;
        }
      }
      const wallet = agentWallet(agent.agentIndex);
      const meta = { vault_id: vaultId };
      const claimStep = {
        step: "claim",
        wallet,
        to: ref.address,
        data: vault.interface.encodeFunctionData("claimCancelRedeemRequest", [0, address, address]),
        kind: "vault.redeem_cancel.claim",
        requestor: agent.agentId,
        meta,
      };
      const sent = await this.engine.sendSteps(
        intentKey,
        claimOnly
          ? [claimStep]
          : [
              {
                step: "cancel",
                wallet,
                to: ref.address,
                data: vault.interface.encodeFunctionData("cancelRedeemRequest", [0, address]),
                kind: "vault.redeem_cancel",
                requestor: agent.agentId,
                meta,
              },
              claimStep,
            ],
      );
      const claim = sent[sent.length - 1];
      const cancel = claimOnly ? null : sent[0];
      const event = this.#events(ref.address, claim.receipt, "CancelRedeemClaim")[0];
      const blockTag = claim.receipt.blockNumber;
      const balance = await readChain("the position", () => vault.balanceOf(address, { blockTag }));
      return {
        agentAddress: address,
        vault: ref,
        cancelTx: cancel?.hash ?? null,
        claimTx: claim.hash,
        blockNumber: blockTag,
        shares: event ? (event.args.getValue("shares") as bigint) : 0n,
        shareDecimals: decimals,
        sharesBalance: balance,
      };
    });
  }

  /** The vault, checked to be of the kind the operation needs (sync or async), and the agent's wallet address. */
  async #open(agent: AgentRecord, vaultId: VaultId, kind: "sync" | "async") {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const vault = this.chain.contracts.vault(vaultId);
    const [isAsync, name, decimals] = await readChain("the vault", () =>
      Promise.all([vault.isERC7540(), vault.name(), vault.decimals()]),
    );
    if (kind === "sync" && isAsync) {
      throw new ValidationError(
        `vault_id: the ${vaultId} vault redeems asynchronously (ERC-7540): ` +
          "POST /api/v1/agent/vault/redeem-request, then POST /api/v1/agent/vault/claim once it is ready",
      );
    }
    if (kind === "async" && !isAsync) {
      throw new ValidationError(
        `vault_id: the ${vaultId} vault redeems at once (ERC-4626): use POST /api/v1/agent/vault/withdraw`,
      );
    }
    const ref: VaultRef = { id: vaultId, address: vault.target as string, name };
    return { vault, ref, address, decimals: Number(decimals) };
  }

  async #redeemState(vaultId: VaultId, address: string, atLeast?: number): Promise<RedeemState> {
    const vault = this.chain.contracts.vault(vaultId);
    const head = await this.chain.head.readBlock();
    const block = atLeast === undefined ? head : Math.max(head, atLeast);
    const opts = { blockTag: block };
    return readChain("the redemption request", async () => {
      const [pending, readyAt, claimable, grace, role, header] = await Promise.all([
        vault.pendingRedeemRequest(0, address, opts),
        vault.pendingRedeemReadyAt(address, opts),
        vault.claimableRedeemRequest(0, address, opts),
        vault.FULFILLMENT_GRACE_PERIOD(),
        vault.FULFILLER_ROLE(),
        this.chain.provider.getBlock(block),
      ]);
      const relayerIsFulfiller = await vault.hasRole(role, this.wallets.relayerAddress(), opts);
      return {
        block,
        // The next block's timestamp is at least this one's + 1, which is what a transaction sent now would see.
        now: Number(header?.timestamp ?? 0) + 1,
        pending,
        readyAt: Number(readyAt),
        claimable,
        grace: Number(grace),
        relayerIsFulfiller,
      };
    });
  }

  /** Who may fill the pending request now: the relayer (fulfiller role) from readyAt, the agent after the grace. */
  #fulfiller(state: RedeemState): "relayer" | "agent" | null {
    if (state.relayerIsFulfiller && state.now >= state.readyAt) return "relayer";
    if (state.now >= state.readyAt + state.grace) return "agent";
    return null;
  }

  #fulfill(vaultAddress: string, controller: string, by: "relayer" | "agent", key: string, agent: AgentRecord) {
    return this.engine.send({
      wallet: by === "relayer" ? { kind: "relayer" } : agentWallet(agent.agentIndex),
      to: vaultAddress,
      data: VAULT_INTERFACE.encodeFunctionData("fulfillRedeem", [controller]),
      kind: "vault.fulfill",
      intentKey: key,
      requestor: agent.agentId,
      meta: { controller },
    });
  }

  async #withdrawal(
    ref: VaultRef,
    address: string,
    decimals: number,
    hash: string,
    receipt: MinedReceipt,
  ): Promise<Withdrawal> {
    const event = this.#events(ref.address, receipt, "Withdraw")[0];
    const vault = this.chain.contracts.vault(ref.id);
    const blockTag = receipt.blockNumber;
    const balance = await readChain("the position", () => vault.balanceOf(address, { blockTag }));
    return {
      agentAddress: address,
      vault: ref,
      txHash: hash,
      blockNumber: blockTag,
      assets: event ? (event.args.getValue("assets") as bigint) : 0n,
      shares: event ? (event.args.getValue("shares") as bigint) : 0n,
      shareDecimals: decimals,
      sharesBalance: balance,
    };
  }

  /** The vault's `name` events of a receipt. */
  #events(vaultAddress: string, receipt: MinedReceipt, name: string) {
    return receipt.logs
      .filter((log) => log.address.toLowerCase() === vaultAddress.toLowerCase())
      .map((log) => VAULT_INTERFACE.parseLog({ topics: [...log.topics], data: log.data }))
      .filter((parsed) => parsed?.name === name)
      .map((parsed) => parsed!);
  }
}
