/**
 * Yield and risk figures from a vault's share-price history (readmodel/records.ts VaultSnapshot), as written in
 * docs/data-api.md:
 *
 * - APY over a window of W seconds ending at `now`: the compounded annual rate of the share price,
 *   `((p_now / p_start) ^ (365 × 86400 / elapsed) − 1) × 100` (percent), where p_start is the last sample at or
 *   before now − W. A vault younger than the window has no such sample: its oldest sample is used and the elapsed
 *   time is what it really is (so a 3-day-old vault's 7d and 30d APY equal its inception APY). With less than
 *   MIN_ELAPSED_SECONDS between the two samples, or no sample at all, the APY is 0: a rate annualised from minutes
 *   would be noise.
 * - Sharpe ratio: mean / standard deviation (sample) of the returns between consecutive daily samples, × √365; the
 *   risk-free rate is taken as 0. Fewer than two returns, or no variation: 0.
 * - Max drawdown: the largest fall from a running peak of the share price, in percent of that peak (0 when it never
 *   fell).
 */

export interface PricePoint {
  /** Unix seconds. */
  timestamp: number;
  /** Assets per 10**shareDecimals shares. */
  price: bigint;
}

export const MIN_ELAPSED_SECONDS = 3_600;
const YEAR_SECONDS = 365 * 86_400;

/** Compounded annual rate in percent between two samples (0 when too close or undefined). */
export function annualised(start: PricePoint, end: PricePoint): number {
  const elapsed = end.timestamp - start.timestamp;
  if (elapsed < MIN_ELAPSED_SECONDS || start.price <= 0n || end.price <= 0n) return 0;
  const ratio = Number((end.price * 1_000_000_000_000n) / start.price) / 1e12;
  const rate = (Math.pow(ratio, YEAR_SECONDS / elapsed) - 1) * 100;
  return Number.isFinite(rate) ? rate : 0;
}

/**
 * APY over `windowSeconds` (null: since inception) ending at `end`, from `history` (oldest first, `end` excluded
 * or included alike).
 */
export function windowApy(history: readonly PricePoint[], end: PricePoint, windowSeconds: number | null): number {
  if (history.length === 0) return 0;
  let start = history[0];
  if (windowSeconds !== null) {
    const from = end.timestamp - windowSeconds;
    for (const point of history) {
      if (point.timestamp <= from) start = point;
      else break;
    }
  }
  return annualised(start, end);
}

export function sharpeRatio(daily: readonly PricePoint[]): number {
  const returns: number[] = [];
  for (let i = 1; i < daily.length; i++) {
    if (daily[i - 1].price <= 0n) continue;
    returns.push(Number((daily[i].price * 1_000_000_000_000n) / daily[i - 1].price) / 1e12 - 1);
  }
  if (returns.length < 2) return 0;
  const mean = returns.reduce((sum, r) => sum + r, 0) / returns.length;
  const variance = returns.reduce((sum, r) => sum + (r - mean) ** 2, 0) / (returns.length - 1);
  const deviation = Math.sqrt(variance);
  if (deviation === 0 || !Number.isFinite(deviation)) return 0;
  return (mean / deviation) * Math.sqrt(365);
}

export function maxDrawdown(series: readonly PricePoint[]): number {
  let peak = 0n;
  let worst = 0;
  for (const point of series) {
    if (point.price > peak) peak = point.price;
    else if (peak > 0n) {
      const fall = Number(((peak - point.price) * 1_000_000_000n) / peak) / 1e7;
      if (fall > worst) worst = fall;
    }
  }
  return worst;
}
