import type { VaultRecord } from "../readmodel/records";

/**
 * What this instance wrote last, which spares reads of the next batch. Forgotten on a rewind (the chain's branch
 * changed) and when the lease is taken (another instance may have written since).
 */
export class WrittenState {
  /**
   * The vault records written last, by address: a vault whose logs in a batch change only its figures keeps the rest
   * of its record (FIGURES_ONLY_EVENTS).
   */
  readonly records = new Map<string, VaultRecord>();
  /**
   * The vaults with a snapshot point written: each has its inception (its oldest snapshot) at or before that point, so
   * its first price-moving block of a later batch needs no point of its own (an hour's or the batch's last sample
   * covers it).
   */
  readonly pointed = new Set<string>();
  /** The height of the cursor written last. */
  height: number | null = null;

  remember(batch: { height: number; records: readonly VaultRecord[]; pointed: Iterable<string> }): void {
    for (const record of batch.records) this.records.set(record.address, record);
    for (const address of batch.pointed) this.pointed.add(address);
    this.height = batch.height;
  }

  forget(): void {
    this.records.clear();
    this.pointed.clear();
    this.height = null;
  }
}
