import type { Collection } from "mongodb";
import type { CounterStore } from "../../usecases/wallet";
import { isDuplicate } from "./duplicate";

/** Sequences in MongoDB: a value is owned by inserting its claim (store/mongo/index.ts). */

export interface SequenceClaimDocument {
  _id: string;
  name: string;
  seq: number;
}

export class MongoCounterStore implements CounterStore {
  /**
   * Highest value this process has reserved per sequence: the next candidate, never trusted for uniqueness (the
   * claim insert is). Reserving before the insert gives concurrent callers of one process distinct candidates, so
   * the highest claim is asked of the server only at the first call and after another process took a value: on
   * FerretDB that sorted query scans the whole collection, which made every registration slower than the last.
   */
  private readonly reserved = new Map<string, number>();

  constructor(private readonly claims: Collection<SequenceClaimDocument>) {}

  async init(): Promise<void> {
    await this.claims.createIndex({ name: 1, seq: -1 }, { name: "sequence_claims_by_name" });
  }

  async next(name: string): Promise<number> {
    if (!this.reserved.has(name)) this.raiseReservation(name, await this.highestClaimed(name));
    for (;;) {
      const candidate = this.reserved.get(name)! + 1;
      this.reserved.set(name, candidate);
      try {
        // The insert of `${name}:${n}` is the atomic step: only one caller can own n.
        await this.claims.insertOne({ _id: `${name}:${candidate}`, name, seq: candidate });
        return candidate;
      } catch (error) {
        if (!isDuplicate(error)) throw error;
        // Another process claimed it: go on past the highest claim of all processes.
        this.raiseReservation(name, await this.highestClaimed(name));
      }
    }
  }

  async raise(name: string, value: number): Promise<void> {
    if (value <= 0) return;
    // A claim of value - 1 makes every later `next` (in any process) go past it.
    try {
      await this.claims.insertOne({ _id: `${name}:${value - 1}`, name, seq: value - 1 });
    } catch (error) {
      if (!isDuplicate(error)) throw error;
    }
    this.raiseReservation(name, value - 1);
  }

  private raiseReservation(name: string, value: number): void {
    this.reserved.set(name, Math.max(value, this.reserved.get(name) ?? -1));
  }

  private async highestClaimed(name: string): Promise<number> {
    const [top] = await this.claims.find({ name }).sort({ seq: -1 }).limit(1).toArray();
    return top ? top.seq : -1;
  }
}
