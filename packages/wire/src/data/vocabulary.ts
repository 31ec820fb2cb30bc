/** The windows a client may ask the data API's history for. */
export const PERIODS = ["7d", "30d", "90d", "1y", "all"] as const;
export type Period = (typeof PERIODS)[number];
export const INTERVALS = ["1h", "4h", "1d", "1w"] as const;
export type Interval = (typeof INTERVALS)[number];
