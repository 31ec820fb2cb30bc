import type { CounterStore } from "../../usecases/wallet";

export class MemoryCounterStore implements CounterStore {
  private readonly values = new Map<string, number>();

  async next(name: string): Promise<number> {
    const value = this.values.get(name) ?? 0;
    this.values.set(name, value + 1);
    return value;
  }

  async raise(name: string, value: number): Promise<void> {
    this.values.set(name, Math.max(value, this.values.get(name) ?? 0));
  }
}
