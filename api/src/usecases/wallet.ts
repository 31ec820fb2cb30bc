import { getAddress } from "ethers";
import type { ChainAccess } from "../chain";
import { PerBlockCache } from "../chain/perBlock";
import { readChain } from "../chain/rpcErrors";
import { milestone } from "../chain/vocabulary";
import type { ServerWallets } from "../chain/wallets";
import type { Milestone } from "../domain/model";
import type { Logger } from "../logger";
import type { AgentRecord } from "./agents";
import type { Vaults, VaultPosition } from "./vaults";

/**
 * The agents' server wallets: which wallet an agent has (and that a new agent never gets one already used onchain),
 * what a wallet holds, and the NFT badges of any wallet. The counter store interface below is what the index
 * allocation needs; adapters in store/ implement it.
 */

/** `has_gas` is true when the wallet can pay this much gas at the current max fee (a deposit is two txs ~ 130k). */
export const HAS_GAS_UNITS = 300_000n;
/** Counter that allocates agent wallet indexes (HD path m/44'/60'/1'/0/i). */
export const AGENT_INDEX_SEQUENCE = "agent_index";

export interface CounterStore {
  /** Atomically returns the next value of the named sequence: 0, 1, 2, ... never twice the same. */
  next(name: string): Promise<number>;
  /** Makes every later `next(name)` return `value` or more (never lowers the sequence). */
  raise(name: string, value: number): Promise<void>;
}

export type WalletStatus = { network: string; chainId: number } & (
  | { configured: false }
  | {
      configured: true;
      address: string;
      /** The block every value was read at. */
      block: number;
      ethWei: bigint;
      hasGas: boolean;
      usdcRaw: bigint;
      napRaw: bigint;
      votesRaw: bigint;
      positions: VaultPosition[];
    }
);

export interface NftHolding {
  collection: "AgentBadges";
  contractAddress: string;
  tokenId: bigint;
  milestone: Milestone;
  name: string;
  mintedAt: bigint;
  tokenUri: string;
}

const TOKEN_URI_PREFIX = "data:application/json;base64,";

/** The `name` in a badge's data: URI JSON, or "" when it has none. */
function badgeName(uri: string): string {
  if (!uri.startsWith(TOKEN_URI_PREFIX)) return "";
  try {
    const json = JSON.parse(Buffer.from(uri.slice(TOKEN_URI_PREFIX.length), "base64").toString("utf8")) as {
      name?: unknown;
    };
    return typeof json.name === "string" ? json.name : "";
  } catch {
    return "";
  }
}

export class AgentWallets {
  readonly #reads = new PerBlockCache<WalletStatus>();

  constructor(
    private readonly chain: ChainAccess,
    readonly wallets: ServerWallets,
    private readonly vaults: Vaults,
  ) {}

  /** The agent's server wallet address (m/44'/60'/1'/0/i, i = the agent's stored index); NOT_CONFIGURED without SERVER_WALLET_MNEMONIC. */
  addressOf(agent: AgentRecord): string {
    return this.wallets.agentAddress(agent.agentIndex);
  }

  /** Balances, voting power and vault positions of the agent's wallet, read at one block (cached per block). */
  async status(agent: AgentRecord): Promise<WalletStatus> {
    if (!this.wallets.configured) return { ...this.#network(), configured: false };
    const address = this.addressOf(agent);
    const block = await this.chain.head.readBlock();
    return this.#reads.get(block, address, () => this.#read(address, block));
  }

  async #read(address: string, block: number): Promise<WalletStatus> {
    const { usdc, token } = this.chain.contracts;
    const [ethWei, fees, usdcRaw, napRaw, votesRaw, positions] = await readChain("the wallet", () =>
      Promise.all([
        this.chain.provider.getBalance(address, block),
        this.chain.head.fees(),
        usdc.balanceOf(address, { blockTag: block }),
        token.balanceOf(address, { blockTag: block }),
        token.getVotes(address, { blockTag: block }),
        this.vaults.positionsAt(address, block),
      ]),
    );
    const hasGas = ethWei > 0n && ethWei >= HAS_GAS_UNITS * fees.maxFeePerGas;
    return {
      ...this.#network(),
      configured: true,
      address,
      block,
      ethWei,
      hasGas,
      usdcRaw,
      napRaw,
      votesRaw,
      positions,
    };
  }

  #network(): { network: string; chainId: number } {
    return { network: this.chain.chainName, chainId: this.chain.chainId };
  }

  /** ERC-721 holdings of any wallet among the system's collections (AgentBadges), at the read block. */
  async nftsOf(wallet: string): Promise<NftHolding[]> {
    // ERC-721 balance queries revert for the zero address; nothing is ever minted to it.
    if (BigInt(wallet) === 0n) return [];
    const badges = this.chain.contracts.badges;
    const contractAddress = this.chain.contracts.address("AgentBadges");
    const block = await this.chain.head.readBlock();
    return readChain("the badges", async () => {
      const owned = await badges.badgesOf(getAddress(wallet), { blockTag: block });
      return Promise.all(
        owned.map(async (badge) => {
          const tokenUri = await badges.tokenURI(badge.tokenId, { blockTag: block });
          return {
            collection: "AgentBadges" as const,
            contractAddress,
            tokenId: badge.tokenId,
            milestone: milestone(badge.milestone),
            name: badgeName(tokenUri),
            mintedAt: badge.mintedAt,
            tokenUri,
          };
        }),
      );
    });
  }
}

/**
 * Allocates agent wallet indexes so that a new agent never gets a wallet already used onchain. Indexes come from a
 * counter in the store, but a counter can start again from 0 against a chain that remembers (the in-memory store
 * after a restart, a new database): an index whose wallet has sent a transaction, or holds ETH, USDC, NAP or a
 * badge, is skipped. At start-up `seedPastUsed` moves the counter past the used indexes at the start of the range in a few
 * reads (doubling, then bisecting), so that a restart does not probe them one by one.
 */
export class WalletIndexes {
  constructor(
    private readonly counters: CounterStore,
    private readonly chain: ChainAccess,
    private readonly wallets: ServerWallets,
    private readonly logger: Logger,
  ) {}

  /** The index of a new agent's wallet (without server wallets, simply the counter's next value). */
  async allocate(): Promise<number> {
    for (;;) {
      const index = await this.counters.next(AGENT_INDEX_SEQUENCE);
      if (!this.wallets.configured || !(await this.#used(index))) return index;
      this.logger.warn({ index }, "agent wallet index skipped: its wallet was already used onchain");
    }
  }

  /** Raises the counter past the used wallets at the start of the index range (start-up). */
  async seedPastUsed(): Promise<void> {
    if (!this.wallets.configured) return;
    if (!(await this.#used(0))) return;
    // Double until an unused index, then bisect between the last used and the first unused one.
    let used = 0;
    let unused = 1;
    while (await this.#used(unused)) {
      used = unused;
      unused *= 2;
    }
    while (unused - used > 1) {
      const middle = Math.floor((used + unused) / 2);
      if (await this.#used(middle)) used = middle;
      else unused = middle;
    }
    await this.counters.raise(AGENT_INDEX_SEQUENCE, unused);
    this.logger.info({ next: unused }, "agent wallet indexes: counter moved past the wallets used onchain");
  }

  /** True when wallet `index` has sent a transaction, or holds ETH, USDC, NAP or a badge, at the read block. */
  async #used(index: number): Promise<boolean> {
    const address = this.wallets.agentAddress(index);
    const { contracts, provider, head } = this.chain;
    const block = await head.readBlock();
    const reads: Promise<bigint | number>[] = [
      provider.getTransactionCount(address, block),
      provider.getBalance(address, block),
    ];
    if (contracts.deployment?.usdc) reads.push(contracts.usdc.balanceOf(address, { blockTag: block }));
    if (contracts.has("NapToken")) reads.push(contracts.token.balanceOf(address, { blockTag: block }));
    if (contracts.has("AgentBadges")) reads.push(contracts.badges.balanceOf(address, { blockTag: block }));
    const values = await readChain("the agent wallets", () => Promise.all(reads));
    return values.some((value) => BigInt(value) > 0n);
  }
}
