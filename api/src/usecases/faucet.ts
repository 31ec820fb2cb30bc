import type { ChainAccess } from "../chain";
import { readChain } from "../chain/rpcErrors";
import type { ServerWallets } from "../chain/wallets";
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

export class Faucet {
  constructor(
    private readonly chain: ChainAccess,
    private readonly engine: TxEngine,
    private readonly wallets: ServerWallets,
  ) {}

  /**
   * Drips to the agent's wallet through NapFaucet.drip, or answers the cooldown: checked against the faucet's
   * `nextEligibleAt` and the read block's time first, and taken from a FaucetCooldown revert when a drip raced it.
   */
  async drip(agent: AgentRecord, idempotencyKey: string | undefined): Promise<FaucetOutcome> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const faucet = this.chain.contracts.faucet;
    const intentKey = intentKeyFor(agent.agentId, "faucet.drip", idempotencyKey);
    const known = idempotencyKey ? await this.engine.lookup(intentKey) : null;
    if (!known) {
      const block = await this.chain.head.readBlock();
      const [next, now] = await readChain("the faucet", () =>
        Promise.all([faucet.nextEligibleAt(address, { blockTag: block }), this.#timeOf(block)]),
      );
      if (next > now) return cooldown(address, next, now);
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
      if (revert?.name !== "FaucetCooldown") throw error;
      const now = await readChain("the block time", async () => this.#timeOf(await this.chain.head.readBlock()));
      return cooldown(address, BigInt(String(revert.args.nextEligibleAt)), now);
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
