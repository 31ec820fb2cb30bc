import { formatUnits } from "ethers";

/** Token amounts as the API shows them: decimal strings in whole units, without trailing zeros ("1250.5", "0"). */
export function decimalString(value: bigint, decimals: number): string {
  const text = formatUnits(value, decimals);
  if (!text.includes(".")) return text;
  const trimmed = text.replace(/0+$/, "").replace(/\.$/, "");
  return trimmed === "" ? "0" : trimmed;
}

export const USDC_DECIMALS = 6;
export const NAP_DECIMALS = 18;

/** 6-decimal USDC units as a decimal string ("899.5"). */
export function usdcString(units: bigint): string {
  return decimalString(units, USDC_DECIMALS);
}

/** 6-decimal USDC units as a JSON number (the spec's `usdc_balance`, `amount_usdc`). */
export function usdcNumber(units: bigint): number {
  return Number(formatUnits(units, USDC_DECIMALS));
}
