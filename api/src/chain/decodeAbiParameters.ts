import type { ParamType } from "ethers";
import { LRUCache } from "lru-cache";
import { checksumAddress } from "./keccak";

/**
 * ABI data read straight from its hex text, for the shapes the service decodes over and over (every log of the chain
 * the indexer follows, the lens view of every batch): one plan per parameter, built once, instead of ethers'
 * AbiCoder, which copies the data into bytes, builds a coder object per parameter and value on every call and a
 * sub-reader (another copy of the rest of the data) per dynamic value. It gives what `decodeLenient`
 * (chain/abiText.ts) gives through ethers for well-formed data: strings as text read leniently, tuples as objects
 * keyed by component name (by position when unnamed), arrays as arrays, addresses checksummed, integers as bigints,
 * bytes as lowercase hex. Anything unusual (data out of bounds, an offset or length past the data, more bytes read
 * than the data holds through offsets leading to the same bytes, an address word with high bits set) gives way:
 * `readHexAbi` answers `undefined` and the caller decodes through ethers, which gives its value or its error as before
 * (test/api/chain/abiText.test.ts holds the two to the same values).
 */

/** The data being read: its text, its size in bytes, and the bytes read so far. */
interface Source {
  readonly hex: string;
  readonly size: number;
  read: number;
}

/** How one parameter is read. */
interface Plan {
  /** Read through an offset in its parent's head (strings, bytes, dynamic arrays, and what holds them). */
  readonly dynamic: boolean;
  /** Bytes the value takes in its parent's head (32, a pointer, when dynamic). */
  readonly headSize: number;
  /** The value that starts at byte `at` of the data (for a dynamic value, where its pointer leads). */
  read(source: Source, at: number): unknown;
}

/** Thrown inside a read to give way to ethers' decoder; never leaves this module. */
const GIVE_WAY = new Error("give way to ethers' decoder");

const HEX_DATA = /^0x[0-9a-fA-F]*$/;
const ZERO_WORD = "0".repeat(64);
/** The high 12 bytes of an address word, and the high 24 of an offset or length that fits in a JavaScript number. */
const ADDRESS_PAD = "0".repeat(24);
const INDEX_PAD = "0".repeat(48);
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Checksummed addresses by their 40 hex digits (lowercase): the logs of a block range name the same few accounts and
 * contracts over and over, and a checksum (a keccak of the address) costs more than the rest of decoding an event.
 */
const checksummed = new LRUCache<string, string>({ max: 4_096 });

/** The checksummed address of 40 lowercase hex digits. */
export function checksummedAddress(digits: string): string {
  let address = checksummed.get(digits);
  if (address === undefined) {
    address = checksumAddress(`0x${digits}`);
    checksummed.set(digits, address);
  }
  return address;
}

/** The 64 hex digits of the word at byte `at`, counted as read. */
function wordAt(source: Source, at: number): string {
  if (at + 32 > source.size) throw GIVE_WAY;
  source.read += 32;
  if (source.read > source.size) throw GIVE_WAY;
  return source.hex.slice(2 + 2 * at, 66 + 2 * at);
}

/** An offset or length word: a number no larger than the data (a larger one is out of bounds wherever it leads). */
function indexAt(source: Source, at: number): number {
  const word = wordAt(source, at);
  if (!word.startsWith(INDEX_PAD)) throw GIVE_WAY;
  const index = Number.parseInt(word.slice(48), 16);
  if (index > source.size) throw GIVE_WAY;
  return index;
}

/** A value of one word, by the rules of ethers' NumberCoder, BooleanCoder, AddressCoder and FixedBytesCoder. */
function wordPlan(decode: (word: string) => unknown): Plan {
  return { dynamic: false, headSize: 32, read: (source, at) => decode(wordAt(source, at)) };
}

function integerPlan(signed: boolean, bits: number): Plan {
  if (signed) return wordPlan((word) => BigInt.asIntN(bits, BigInt(`0x${word}`)));
  if (bits === 256) return wordPlan((word) => BigInt(`0x${word}`));
  return wordPlan((word) => BigInt.asUintN(bits, BigInt(`0x${word}`)));
}

const ADDRESS_PLAN = wordPlan((word) => {
  if (!word.startsWith(ADDRESS_PAD)) throw GIVE_WAY;
  return checksummedAddress(word.slice(24).toLowerCase());
});
const BOOL_PLAN = wordPlan((word) => word !== ZERO_WORD);

/** `bytes` as lowercase hex, `string` as text (invalid UTF-8 as U+FFFD): a length word, then the padded bytes. */
function bytesPlan(text: boolean): Plan {
  return {
    dynamic: true,
    headSize: 32,
    read(source, at) {
      const length = indexAt(source, at);
      const start = at + 32;
      if (start + Math.ceil(length / 32) * 32 > source.size) throw GIVE_WAY;
      source.read += length;
      if (source.read > source.size) throw GIVE_WAY;
      const digits = source.hex.slice(2 + 2 * start, 2 + 2 * (start + length));
      return text ? utf8.decode(Buffer.from(digits, "hex")) : `0x${digits.toLowerCase()}`;
    },
  };
}

/** The values of `plans` laid out from byte `at`: static ones in place, dynamic ones through offsets from `at`. */
function readSequence(source: Source, at: number, plans: readonly Plan[]): unknown[] {
  const values = new Array<unknown>(plans.length);
  let head = at;
  for (let i = 0; i < plans.length; i++) {
    const plan = plans[i];
    if (plan.dynamic) {
      values[i] = plan.read(source, at + indexAt(source, head));
      head += 32;
    } else {
      values[i] = plan.read(source, head);
      head += plan.headSize;
    }
  }
  return values;
}

function tuplePlan(components: readonly Plan[], keys: readonly string[]): Plan {
  const dynamic = components.some((component) => component.dynamic);
  return {
    dynamic,
    headSize: dynamic ? 32 : components.reduce((size, component) => size + component.headSize, 0),
    read(source, at) {
      const values = readSequence(source, at, components);
      const tuple: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) tuple[keys[i]] = values[i];
      return tuple;
    },
  };
}

/** `T[n]` (length n) or `T[]` (length -1: a count word, then n values laid out from the word after it). */
function arrayPlan(child: Plan, length: number): Plan {
  const dynamic = length === -1 || child.dynamic;
  return {
    dynamic,
    headSize: dynamic ? 32 : length * child.headSize,
    read(source, at) {
      if (length !== -1) return readSequence(source, at, new Array<Plan>(length).fill(child));
      const count = indexAt(source, at);
      // ethers refuses a count whose values could not have a word each in the data left.
      if (count * 32 > source.size - at) throw GIVE_WAY;
      return readSequence(source, at + 32, new Array<Plan>(count).fill(child));
    },
  };
}

/** Plans already built, per ABI parameter (null: a type read through ethers only). */
const plans = new WeakMap<ParamType, Plan | null>();

function planOf(type: ParamType): Plan | null {
  let plan = plans.get(type);
  if (plan === undefined) {
    plan = buildPlan(type);
    plans.set(type, plan);
  }
  return plan;
}

function buildPlan(type: ParamType): Plan | null {
  if (type.isTuple()) {
    const components = type.components.map(planOf);
    const keys = type.components.map((component, i) => component.name || String(i));
    // A component named "__proto__" would set the object's prototype when assigned: ethers' path keeps it a key.
    if (components.some((component) => component === null) || keys.includes("__proto__")) return null;
    return tuplePlan(components as Plan[], keys);
  }
  if (type.isArray()) {
    const child = planOf(type.arrayChildren);
    return child && arrayPlan(child, type.arrayLength);
  }
  // Sizes ethers' coders refuse (uint7, bytes33) are left to them.
  const number = /^(u?)int(\d*)$/.exec(type.type);
  const fixedBytes = /^bytes(\d+)$/.exec(type.type);
  if (number) {
    const bits = Number(number[2] || 256);
    return bits > 0 && bits <= 256 && bits % 8 === 0 ? integerPlan(number[1] === "", bits) : null;
  }
  if (fixedBytes) {
    const size = Number(fixedBytes[1]);
    return size > 0 && size <= 32 ? wordPlan((word) => `0x${word.slice(0, 2 * size).toLowerCase()}`) : null;
  }
  if (type.type === "address") return ADDRESS_PLAN;
  if (type.type === "bool") return BOOL_PLAN;
  if (type.type === "string") return bytesPlan(true);
  if (type.type === "bytes") return bytesPlan(false);
  return null;
}

/** Top-level plans per parameter list (the lists are a fragment's, kept as long as it). */
const sequences = new WeakMap<readonly ParamType[], readonly Plan[] | null>();

/** The values of ABI `data` of `types`, or undefined where ethers' decoder is to decide (above). */
export function readHexAbi(types: readonly ParamType[], data: string): unknown[] | undefined {
  let sequence = sequences.get(types);
  if (sequence === undefined) {
    const built = types.map(planOf);
    sequence = built.every((plan) => plan !== null) ? (built as Plan[]) : null;
    sequences.set(types, sequence);
  }
  if (!sequence || data.length % 2 !== 0 || !HEX_DATA.test(data)) return undefined;
  try {
    return readSequence({ hex: data, size: (data.length - 2) / 2, read: 0 }, 0, sequence);
  } catch (error) {
    if (error === GIVE_WAY) return undefined;
    throw error;
  }
}
