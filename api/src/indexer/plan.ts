import type { ChainAccess } from "../chain";
import type { VaultAddress } from "../chain/contracts";
import type { IndexerCursor } from "../readmodel/records";

/** The next batch of blocks to index: `from`..`to`, whose first block's parent is `cursor` (hash "" at the start). */
export interface BatchRange {
  readonly cursor: IndexerCursor;
  readonly from: number;
  readonly to: number;
}

/**
 * The batch after `cursor` up to the newest block treated as final (`head - finalityDepth`; the unfinalized blocks
 * above it wait), at most `batchBlocks` long; null when the cursor is there already.
 */
export function planBatch(
  cursor: IndexerCursor,
  head: number,
  settings: { finalityDepth: number; batchBlocks: number },
): BatchRange | null {
  const finalized = head - settings.finalityDepth;
  if (cursor.height >= finalized) return null;
  const from = cursor.height + 1;
  return { cursor, from, to: Math.min(from + settings.batchBlocks - 1, finalized) };
}

/** The deployment as the indexer follows it: where to start, which addresses, which vaults the lens reads. */
export class IndexedContracts {
  constructor(private readonly chain: ChainAccess) {}

  /** The first block of any contract of the deployment. */
  startBlock(): number {
    const deployment = this.chain.deployment;
    if (!deployment) return 0;
    const blocks = [
      ...Object.values(deployment.contracts).map((c) => c.block),
      ...Object.values(deployment.vaults).map((v) => v?.block ?? Infinity),
    ];
    return Math.min(...blocks);
  }

  /** Every contract address of the deployment except the asset (its transfers are not the protocol's). */
  addresses(): string[] {
    const deployment = this.chain.deployment;
    if (!deployment) return [];
    return [
      ...Object.values(deployment.contracts).map((c) => c.address),
      ...this.chain.contracts.vaultList().map((v) => v.address),
    ];
  }

  /** Whether the VaultLens is deployed at `block` (samples are taken from then on). */
  lensAt(block: number): boolean {
    const lens = this.chain.deployment?.contracts.VaultLens;
    return lens !== undefined && lens.block <= block;
  }

  /** The vaults the lens can read at `block` (both deployed by then). */
  vaultsAt(block: number): VaultAddress[] {
    const deployment = this.chain.deployment;
    if (!deployment || !this.lensAt(block)) return [];
    return this.chain.contracts
      .vaultList()
      .filter((vault) => (deployment.vaults[vault.id]?.block ?? Infinity) <= block);
  }
}
