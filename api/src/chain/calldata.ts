import { AbiCoder, type Interface } from "ethers";
import { StrategyRegistryV3__factory } from "../../../typechain-types";
import type { OnchainRiskParams } from "./events";
import { checksumAddress } from "./keccak";

/**
 * ABI encodings on the hot path of a strategy submission. ethers' ABI coder builds a tree of coder objects for every
 * call, the largest cost of a submission after signing, for layouts that are a few 32-byte words and two strings
 * (`bench/chain.ts` measures both). So the values ethers would take as they are (well-formed text, unsigned integers that fit, booleans,
 * 0x-hex of the right length, addresses it would accept) are written out here, and anything else goes to ethers'
 * coder, which encodes it or refuses it with its own error. test/api/chain/calldata.test.ts holds the two to the same
 * bytes and the same refusals for any input.
 */

type RiskWords = { [K in keyof OnchainRiskParams]: bigint | number | boolean };

// As a plain Interface: TypeChain's typed one takes function names only, not a fragment.
const registry: Interface = StrategyRegistryV3__factory.createInterface();
const submitFragment = registry.getFunction("submit")!;
// ethers computes a fragment's selector (a JavaScript keccak of its signature) on every read of `selector`.
const SUBMIT_SELECTOR = submitFragment.selector;
const coder = AbiCoder.defaultAbiCoder();
const STRING_ADDRESS_UINT = ["string", "address", "uint256"] as const;
const MAX_UINT256 = (1n << 256n) - 1n;

/** A lone UTF-16 surrogate (a pair is one code point under the u flag): text ethers' UTF-8 encoder refuses. */
const LONE_SURROGATE = /\p{Cs}/u;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MIXED_CASE = /([A-F].*[a-f])|([a-f].*[A-F])/;

/** A uint256 word as 64 hex digits, or null when ethers' NumberCoder would have to judge the value. */
function uintWord(value: unknown): string | null {
  if (typeof value === "bigint") {
    return value >= 0n && value <= MAX_UINT256 ? value.toString(16).padStart(64, "0") : null;
  }
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
    ? value.toString(16).padStart(64, "0")
    : null;
}

/** A bool word, or null for anything but a boolean (ethers takes any value by its truthiness). */
function boolWord(value: unknown): string | null {
  if (typeof value !== "boolean") return null;
  return value ? "0".repeat(63) + "1" : "0".repeat(64);
}

/** A bytes32 word from 0x + 64 hex digits (either case), or null. */
function bytes32Word(value: string): string | null {
  return BYTES32.test(value) ? value.slice(2).toLowerCase() : null;
}

/** An address word, or null unless ethers' getAddress takes it as is (one letter case, or a valid EIP-55 checksum). */
function addressWord(value: string): string | null {
  if (!ADDRESS.test(value)) return null;
  if (MIXED_CASE.test(value) && checksumAddress(value) !== value) return null;
  return value.slice(2).toLowerCase().padStart(64, "0");
}

/** A dynamic `string`: its byte length, then its UTF-8 bytes padded to whole words; null for a lone surrogate. */
function stringTail(text: string): { hex: string; words: number } | null {
  if (LONE_SURROGATE.test(text)) return null;
  const bytes = Buffer.from(text, "utf8");
  const words = Math.ceil(bytes.length / 32);
  return {
    hex: bytes.length.toString(16).padStart(64, "0") + bytes.toString("hex").padEnd(words * 64, "0"),
    words: words + 1,
  };
}

const word = (bytes: number) => bytes.toString(16).padStart(64, "0");

/** abi.encode(string text, address account, uint256 amount). */
export function encodeStringAddressUint(text: string, account: string, amount: bigint | number): string {
  const tail = stringTail(text);
  const accountWord = addressWord(account);
  const amountWord = uintWord(amount);
  if (tail === null || accountWord === null || amountWord === null) {
    return coder.encode(STRING_ADDRESS_UINT, [text, account, amount]);
  }
  return `0x${word(3 * 32)}${accountWord}${amountWord}${tail.hex}`;
}

/** Calldata of StrategyRegistryV3.submit(string name, string description, bytes32 dna, RiskParams params). */
export function encodeSubmit(name: string, description: string, dna: string, params: RiskWords): string {
  const nameTail = stringTail(name);
  const descriptionTail = stringTail(description);
  // The head: two offsets, the dna, and the seven words of the static RiskParams tuple (ten words).
  const fixed = [
    bytes32Word(dna),
    uintWord(params.maxPositionSizePercent),
    uintWord(params.maxLeverage),
    uintWord(params.stopLossPercent),
    uintWord(params.slippageToleranceBps),
    uintWord(params.correlationThreshold),
    uintWord(params.velocityLimit),
    boolWord(params.flashLoansEnabled),
  ];
  if (nameTail === null || descriptionTail === null || fixed.includes(null)) {
    return registry.encodeFunctionData(submitFragment, [name, description, dna, params]);
  }
  const head = word(10 * 32) + word((10 + nameTail.words) * 32) + fixed.join("");
  return `${SUBMIT_SELECTOR}${head}${nameTail.hex}${descriptionTail.hex}`;
}
