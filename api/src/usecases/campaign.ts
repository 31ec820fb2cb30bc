import type { ChainAccess } from "../chain";
import { readChain } from "../chain/rpcErrors";
import type { ServerWallets } from "../chain/wallets";
import { tierAtLeast } from "../domain/tiers";
import { usdcNumber } from "../domain/units";
import type { AgentRecord } from "./agents";
import { CAMPAIGN_ID, type CampaignCriterion } from "../../../packages/wire/src/live/vocabulary";

/** Campaign eligibility: whether an agent meets the criteria of the quest campaign, each one measured. */

export interface Criterion {
  id: CampaignCriterion;
  description: string;
  met: boolean;
  /** The measured value. */
  value: string | number;
}

export interface Eligibility {
  campaignId: typeof CAMPAIGN_ID;
  agentAddress: string;
  eligible: boolean;
  criteria: Criterion[];
}

/** At least this much USDC (6-decimal units) deposited through the service. */
const MIN_DEPOSIT = 1_000_000n;

export class Campaign {
  constructor(
    private readonly chain: ChainAccess,
    private readonly wallets: ServerWallets,
  ) {}

  async eligibility(agent: AgentRecord): Promise<Eligibility> {
    const address = this.wallets.agentAddress(agent.agentIndex);
    const registry = this.chain.contracts.registry;
    const block = await this.chain.head.readBlock();
    const strategies = Number(
      await readChain("the strategy registry", () => registry.strategyCountOf(address, { blockTag: block })),
    );
    const deposits = BigInt(agent.depositsMicroUsdc);
    const criteria: Criterion[] = [
      {
        id: "registered",
        description: "The agent registered with a wallet signature",
        met: true,
        value: agent.createdAt.toISOString(),
      },
      {
        id: "tier_registered",
        description: "The agent's tier is registered or higher",
        met: tierAtLeast(agent.tier, "registered"),
        value: agent.tier,
      },
      {
        id: "strategy_submitted",
        description: "At least 1 strategy submitted onchain from the agent's wallet",
        met: strategies >= 1,
        value: strategies,
      },
      {
        id: "vault_deposit",
        description: "At least 1 USDC deposited into a NAP vault through the service",
        met: deposits >= MIN_DEPOSIT,
        value: usdcNumber(deposits),
      },
    ];
    return { campaignId: CAMPAIGN_ID, agentAddress: address, eligible: criteria.every((c) => c.met), criteria };
  }
}
