import type { ChainAccess } from "../chain";
import { PerBlockCache } from "../chain/perBlock";
import { readChain } from "../chain/rpcErrors";
import { agentWallet, type ServerWallets } from "../chain/wallets";
import type { VaultId } from "../domain/model";
import { USDC_DECIMALS, usdcString } from "../domain/units";
import { ValidationError } from "../errors";
import { KeyedQueue } from "../keyedQueue";
import { intentKeyFor, stepKey, type TxEngine } from "../tx";
import type { AgentRecord, AgentService } from "./agents";

/**
 * The vaults: the list (public), positions of any wallet, and deposits from an agent's server wallet. Every read is
 * made at the chain head's read block (chain/head.ts) and cached per block.
 */

export interface VaultInfo {
  id: VaultId;
  address: string;
  name: string;
  assetSymbol: string;
  assetDecimals: number;
  totalAssets: bigint;
  /** VaultLens apyBps: the rate at which reported profit is unlocking now, per year, gross of fees. */
  apyBps: bigint;
  paused: boolean;
}

export interface VaultPosition {
  vaultId: VaultId;
  vaultAddress: string;
  vaultName: string;
  shareDecimals: number;
  shares: bigint;
  /** USDC value of the shares (convertToAssets, rounded down), 6 decimals. */
  valueMicroUsdc: bigint;
  pendingRedeemShares: bigint;
  /** Unix seconds from which the pending request can be filled (and then claimed); null when none is pending. */
  pendingRedeemReadyAt: number | null;
  claimableRedeemShares: bigint;
  claimableMicroUsdc: bigint;
  /** Shares of a canceled redemption request (ERC-7887) not yet claimed back. */
  claimableCancelShares: bigint;
}

export interface Deposit {
  agentAddress: string;
  vault: { id: VaultId; address: string; name: string };
  amountMicroUsdc: bigint;
  approveTx: string;
  depositTx: string;
  blockNumber: number;
  /** The wallet's shares after the deposit, read at its block. */
  sharesBalance: bigint;
}

export class Vaults {
  readonly #lists = new PerBlockCache<VaultInfo[]>();
  readonly #positions = new PerBlockCache<VaultPosition[]>();
  readonly #shareDecimals = new Map<string, number>();
  /** Deposits of one agent run one after another (see deposit). */
  readonly #deposits = new KeyedQueue();

  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
    private readonly agents: AgentService,
  ) {}

  /**
   * The vaults of the deployment at the read block: one VaultLens `vaults(address[])` call per block. The hottest
   * read of the service: while the block and its list are kept, it answers without waiting on anything.
   */
  async list(): Promise<VaultInfo[]> {
    const kept = this.keptList();
    if (kept) return kept;
    const now = this.chain.head.readBlockNow();
    // The lens first: without a deployment, or without a lens in it, this is NOT_CONFIGURED rather than "no vaults".
    const lens = this.chain.contracts.lens;
    const vaults = this.chain.contracts.vaultList();
    if (vaults.length === 0) return [];
    const block = now ?? (await this.chain.head.readBlock());
    return this.#lists.get(block, "all", () =>
      readChain("the vaults", async () => {
        const views = await lens.vaults(
          vaults.map((vault) => vault.address),
          { blockTag: block },
        );
        return views.map((view, i) => ({
          id: vaults[i].id,
          address: vaults[i].address,
          name: view.name,
          assetSymbol: view.assetSymbol,
          assetDecimals: Number(view.assetDecimals),
          totalAssets: view.totalAssets,
          apyBps: view.apyBps,
          paused: view.paused,
        }));
      }),
    );
  }

  /** The list at the read block when the block and its list are kept (no promise, for the hot path); else undefined. */
  keptList(): VaultInfo[] | undefined {
    const now = this.chain.head.readBlockNow();
    return now === undefined ? undefined : this.#lists.peek(now, "all");
  }

  /** Positions of any wallet (VaultLens.positions) at the read block. */
  async positionsOf(wallet: string): Promise<VaultPosition[]> {
    if (this.chain.contracts.vaultList().length === 0) return [];
    return this.positionsAt(wallet, await this.chain.head.readBlock());
  }

  /**
   * Positions of a wallet at one block: only vaults where it holds shares, has a pending or claimable redemption
   * request, or has shares of a canceled request to claim back (cached per block and wallet).
   */
  positionsAt(wallet: string, block: number): Promise<VaultPosition[]> {
    return this.#positions.get(block, wallet.toLowerCase(), async () => {
      const vaults = this.chain.contracts.vaultList();
      if (vaults.length === 0) return [];
      const addresses = vaults.map((v) => v.address);
      const [views, decimals] = await readChain("vault positions", () =>
        Promise.all([
          this.chain.contracts.lens.positions(addresses, wallet, { blockTag: block }),
          this.#shareDecimalsOf(addresses),
        ]),
      );
      // A copy: ethers' Result does not support flatMap (its species constructor is not an Array's).
      return Array.from(views).flatMap((view, i) => {
        const held = view.shares + view.pendingRedeemShares + view.claimableRedeemShares + view.claimableCancelShares;
        if (held === 0n) return [];
        return [
          {
            vaultId: vaults[i].id,
            vaultAddress: vaults[i].address,
            vaultName: view.name,
            shareDecimals: decimals[i],
            shares: view.shares,
            valueMicroUsdc: view.assets,
            pendingRedeemShares: view.pendingRedeemShares,
            pendingRedeemReadyAt: view.pendingRedeemShares > 0n ? Number(view.pendingRedeemReadyAt) : null,
            claimableRedeemShares: view.claimableRedeemShares,
            claimableMicroUsdc: view.claimableAssets,
            claimableCancelShares: view.claimableCancelShares,
          },
        ];
      });
    });
  }

  async #shareDecimalsOf(vaults: string[]): Promise<number[]> {
    const missing = vaults.filter((v) => !this.#shareDecimals.has(v));
    if (missing.length > 0) {
      const views = await this.chain.contracts.lens.vaults(missing);
      views.forEach((view, i) => this.#shareDecimals.set(missing[i], Number(view.shareDecimals)));
    }
    return vaults.map((v) => this.#shareDecimals.get(v) ?? USDC_DECIMALS);
  }

  /**
   * Deposits `amount` (6-decimal USDC units) from the agent's server wallet: approve, then deposit, each a journaled
   * step of the transaction engine. Each approval sets the vault's allowance to its own amount, so deposits of one
   * agent run one after another (in this process): concurrent ones would overwrite each other's allowance and all
   * but one would fail after paying for an approval.
   */
  /**
   * `beforeSend` runs once the balance is checked, right before the transactions are sent (a scoped key's daily USDC
   * reservation): a deposit the wallet cannot cover costs it nothing; what it throws stops the deposit.
   */
  deposit(
    agent: AgentRecord,
    vaultId: VaultId,
    amount: bigint,
    idempotencyKey: string | undefined,
    beforeSend?: () => Promise<void>,
  ): Promise<Deposit> {
    return this.#deposits.run(agent.agentId, () => this.#deposit(agent, vaultId, amount, idempotencyKey, beforeSend));
  }

  async #deposit(
    agent: AgentRecord,
    vaultId: VaultId,
    amount: bigint,
    idempotencyKey: string | undefined,
    beforeSend?: () => Promise<void>,
  ): Promise<Deposit> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const { contracts, head } = this.chain;
    const vault = contracts.vault(vaultId);
    const vaultAddress = vault.target as string;
    const usdc = contracts.usdc;
    const intentKey = intentKeyFor(agent.agentId, "vault.deposit", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(stepKey(intentKey, "approve")) : null;
    if (!known) {
      const block = await head.checkBlock();
      const balance = await readChain("the USDC balance", () => usdc.balanceOf(address, { blockTag: block }));
      if (balance < amount) {
        throw new ValidationError(
          `amount_usdc: the agent wallet ${address} holds ${usdcString(balance)} USDC ` +
            `(raw ${balance}), less than ${usdcString(amount)}; request test USDC with POST /api/v1/agent/faucet`,
        );
      }
    }
    await beforeSend?.();
    const wallet = agentWallet(agent.agentIndex);
    const meta = { vault_id: vaultId, amount_raw: amount.toString() };
    const [approve, deposit] = await this.engine.sendSteps(intentKey, [
      {
        step: "approve",
        wallet,
        to: usdc.target as string,
        data: usdc.interface.encodeFunctionData("approve", [vaultAddress, amount]),
        kind: "vault.deposit.approve",
        requestor: agent.agentId,
        meta,
      },
      {
        step: "deposit",
        wallet,
        to: vaultAddress,
        data: vault.interface.encodeFunctionData("deposit", [amount, address]),
        kind: "vault.deposit",
        requestor: agent.agentId,
        meta,
      },
    ]);
    // Counted once per transaction, so a retry answered from the journal (also after a crash) may report it again.
    await this.agents.recordDeposit(agent.agentId, deposit.hash, amount);
    const block = deposit.receipt.blockNumber;
    const [name, shares] = await readChain("the vault", () =>
      Promise.all([vault.name({ blockTag: block }), vault.balanceOf(address, { blockTag: block })]),
    );
    return {
      agentAddress: address,
      vault: { id: vaultId, address: vaultAddress, name },
      amountMicroUsdc: amount,
      approveTx: approve.hash,
      depositTx: deposit.hash,
      blockNumber: block,
      sharesBalance: shares,
    };
  }
}
