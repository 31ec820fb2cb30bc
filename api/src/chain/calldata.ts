import { hexlify, toUtf8Bytes } from "ethers";
import { StrategyRegistryV3__factory } from "../../../typechain-types";
import type { OnchainRiskParams } from "./events";

/**
 * ABI encodings on the hot path of a strategy submission, written out: ethers' AbiCoder builds a tree of coders and
 * result objects for every call (about 1 ms of CPU for one `submit` here), for layouts that are a few 32-byte words.
 * test/api/chain/calldata.test.ts checks each against ethers' encoding, byte for byte, for any input.
 */

type RiskWords = { [K in keyof OnchainRiskParams]: bigint | number | boolean };

const SUBMIT_SELECTOR = StrategyRegistryV3__factory.createInterface().getFunction("submit").selector;

/** One 32-byte word of an unsigned integer (or a bool), as 64 hex digits. */
function word(value: bigint | number | boolean): string {
  const n = typeof value === "boolean" ? (value ? 1n : 0n) : BigInt(value);
  if (n < 0n || n >= 1n << 256n) throw new RangeError(`${n} does not fit in a uint256`);
  return n.toString(16).padStart(64, "0");
}

/** A dynamic `string`: its byte length, then its UTF-8 bytes padded to whole words. */
function dynamicString(text: string): { hex: string; words: number } {
  const bytes = hexlify(toUtf8Bytes(text)).slice(2);
  const words = Math.ceil(bytes.length / 64);
  return { hex: word(bytes.length / 2) + bytes.padEnd(words * 64, "0"), words: words + 1 };
}

/** abi.encode(string text, address account, uint256 amount). */
export function encodeStringAddressUint(text: string, account: string, amount: bigint | number): string {
  const head = word(3 * 32) + account.slice(2).toLowerCase().padStart(64, "0") + word(amount);
  return `0x${head}${dynamicString(text).hex}`;
}

/** Calldata of StrategyRegistryV3.submit(string name, string description, bytes32 dna, RiskParams params). */
export function encodeSubmit(name: string, description: string, dna: string, params: RiskWords): string {
  const nameEncoded = dynamicString(name);
  const descriptionEncoded = dynamicString(description);
  // The head: two offsets, the dna, and the seven words of the static RiskParams tuple (ten words).
  const head =
    word(10 * 32) +
    word((10 + nameEncoded.words) * 32) +
    dna.slice(2).toLowerCase().padStart(64, "0") +
    word(params.maxPositionSizePercent) +
    word(params.maxLeverage) +
    word(params.stopLossPercent) +
    word(params.slippageToleranceBps) +
    word(params.correlationThreshold) +
    word(params.velocityLimit) +
    word(params.flashLoansEnabled);
  return `${SUBMIT_SELECTOR}${head}${nameEncoded.hex}${descriptionEncoded.hex}`;
}
