import type { ChainAccess } from "../chain";
import { readChain } from "../chain/rpcErrors";
import type { ServerWallets } from "../chain/wallets";
import { decimalString, usdcString } from "../domain/units";
import { UnavailableError } from "../errors";
import { intentKeyFor, TxRevertedError, type SendResult, type TxEngine } from "../tx";
import type { AgentRecord } from "./agents";

/** The faucet: the relayer sends testnet ETH (and test USDC where the deployment mints it) to an agent's wallet. */

export type FaucetOutcome =
  | {
      kind: "dripped";
      agentAddress: string;
      txHash: string;
      blockNumber: number;
      ethWei: bigint;
      usdcRaw: bigint;
      nextEligibleAt: bigint;
    }
  | { kind: "cooldown"; agentAddress: string; nextEligibleAt: bigint; secondsRemaining: number };

const ETH_DECIMALS = 18;

/** One asset of the faucet's budget per window, as NapFaucet names it in FaucetBudgetExceeded. */
export type BudgetAsset = "eth" | "usdc";

/**
 * The faucet's global budget for the current window is spent (for every agent, not this one's doing): 503 with
 * Retry-After until the window resets, so that a client waits for the reset rather than slowing down.
 */
export class FaucetBudgetSpentError extends UnavailableError {
  constructor(asset: BudgetAsset, amount: bigint, available: bigint, resetsAt: bigint, now: bigint) {
    const seconds = Math.max(1, Number(resetsAt - now));
    const show = (value: bigint) =>
      asset === "eth" ? `${decimalString(value, ETH_DECIMALS)} ETH` : `${usdcString(value)} USDC`;
    super(
      `faucet budget spent: the faucet's ${asset === "eth" ? "ETH" : "USDC"} budget for this window has ${show(available)} ` +
        `left, less than one drip of ${show(amount)}; it resets at ${new Date(Number(resetsAt) * 1000).toISOString()} (in ${seconds} s)`,
      {
        asset,
        amount: amount.toString(),
        available: available.toString(),
        resets_at: Number(resetsAt),
      },
      seconds,
    );
  }
}

export class Faucet {
  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
  ) {}

  /**
   * Drips to the agent's wallet through NapFaucet.drip, or answers the cooldown: checked against the faucet's
   * `nextEligibleAt` and the read block's time first, and taken from a FaucetCooldown revert when a drip raced it.
   * A spent window budget is checked the same way (`budgetLeft` against the drip amounts, then a
   * FaucetBudgetExceeded revert) and thrown as FaucetBudgetSpentError, without sending a transaction.
   */
  async drip(agent: AgentRecord, idempotencyKey: string | undefined): Promise<FaucetOutcome> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const faucet = this.chain.contracts.faucet;
    const intentKey = intentKeyFor(agent.agentId, "faucet.drip", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(intentKey) : null;
    if (!known) {
      const block = await this.chain.head.readBlock();
      const [next, now, [ethLeft, usdcLeft, resetsAt], ethAmount, usdcAmount] = await readChain("the faucet", () =>
        Promise.all([
          faucet.nextEligibleAt(address, { blockTag: block }),
          this.#timeOf(block),
          faucet.budgetLeft({ blockTag: block }),
          faucet.ethAmount({ blockTag: block }),
          faucet.usdcAmount({ blockTag: block }),
        ]),
      );
      if (next > now) return cooldown(address, next, now);
      // In the contract's order: ETH first, then USDC.
      if (ethLeft < ethAmount) throw new FaucetBudgetSpentError("eth", ethAmount, ethLeft, resetsAt, now);
      if (usdcLeft < usdcAmount) throw new FaucetBudgetSpentError("usdc", usdcAmount, usdcLeft, resetsAt, now);
    }
    let result: SendResult;
    try {
      result = await this.engine.send({
        wallet: { kind: "relayer" },
        to: faucet.target as string,
        data: faucet.interface.encodeFunctionData("drip", [address]),
        kind: "faucet.drip",
        intentKey,
        requestor: agent.agentId,
        meta: { recipient: address },
      });
    } catch (error) {
      const revert = error instanceof TxRevertedError ? error.revert : null;
      if (revert?.name !== "FaucetCooldown" && revert?.name !== "FaucetBudgetExceeded") throw error;
      const now = await readChain("the block time", async () => this.#timeOf(await this.chain.head.readBlock()));
      if (revert.name === "FaucetCooldown") return cooldown(address, BigInt(String(revert.args.nextEligibleAt)), now);
      const arg = (name: string) => BigInt(String(revert.args[name]));
      const asset = String(revert.args.asset) === "usdc" ? "usdc" : "eth";
      throw new FaucetBudgetSpentError(asset, arg("amount"), arg("available"), arg("resetsAt"), now);
    }
    const event = this.chain.events.first(result.receipt.logs, "Dripped");
    if (!event) throw new Error(`faucet drip ${result.hash} mined without a Dripped event`);
    return {
      kind: "dripped",
      agentAddress: address,
      txHash: result.hash,
      blockNumber: result.receipt.blockNumber,
      ethWei: event.ethAmount,
      usdcRaw: event.usdcAmount,
      nextEligibleAt: event.nextEligibleAt,
    };
  }

  async #timeOf(block: number): Promise<bigint> {
    const header = await this.chain.provider.getBlock(block);
    return BigInt(header?.timestamp ?? Math.floor(Date.now() / 1000));
  }
}

function cooldown(agentAddress: string, nextEligibleAt: bigint, now: bigint): FaucetOutcome {
  return { kind: "cooldown", agentAddress, nextEligibleAt, secondsRemaining: Number(nextEligibleAt - now) };
}
