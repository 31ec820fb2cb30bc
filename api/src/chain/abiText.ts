import { AbiCoder, getBytes, ParamType, toBeHex, type BaseContract, type Result } from "ethers";
import { checksummedAddress, readHexAbi } from "./decodeAbiParameters";

/**
 * Text read from the chain as it is, never as a reason to fail. The ABI encodes `string` exactly like `bytes`, so
 * values are decoded with every string read as bytes, then turned into text with the WHATWG UTF-8 decoder, which
 * replaces each invalid sequence with U+FFFD. Anyone can put bytes that are not UTF-8 into a string onchain (a
 * strategy submitted straight to the registry, a proposal description); ethers' own decoder throws on them, which
 * would turn one such value into an error on every read of the list that holds it.
 */

const coder = AbiCoder.defaultAbiCoder();
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Decoding forms already built, per ABI parameter (fragments live as long as their interfaces). */
const decodingForms = new WeakMap<ParamType, ParamType>();

/**
 * The same parameter with each `string` (at any depth) declared as `bytes`, and each `address` as `uint256`: ethers
 * checksums a decoded address with its JavaScript keccak, which costs more than the rest of decoding an event; the
 * word is turned into the same checksummed address in `toPlain` with the WebAssembly one (chain/keccak.ts).
 */
function decodingForm(type: ParamType): ParamType {
  let form = decodingForms.get(type);
  if (!form) {
    const json = type
      .format("json")
      .replace(/"type":"string((?:\[\d*\])*)"/g, '"type":"bytes$1"')
      .replace(/"type":"address((?:\[\d*\])*)"/g, '"type":"uint256$1"');
    form = ParamType.from(JSON.parse(json) as Record<string, unknown>, true);
    decodingForms.set(type, form);
  }
  return form;
}

/** An address word as ethers decodes it: checksummed, refused (by `toBeHex`) when bits above the low 160 are set. */
function addressOf(word: bigint): string {
  return checksummedAddress(toBeHex(word, 20).slice(2));
}

/**
 * Turns a value decoded with `decodingForm(type)` into a plain JavaScript value of `type`: text for strings,
 * objects keyed by component name (by position when unnamed) for tuples, arrays for arrays, and ethers' values
 * (bigint, checksummed address, hex) for the rest.
 */
function toPlain(type: ParamType, value: unknown): unknown {
  if (type.baseType === "string") return utf8.decode(getBytes(value as string));
  if (type.baseType === "address") return addressOf(value as bigint);
  if (type.isArray()) return Array.from(value as Result, (item) => toPlain(type.arrayChildren, item));
  if (type.isTuple()) {
    const tuple = value as Result;
    return Object.fromEntries(
      type.components.map((component, i) => [component.name || String(i), toPlain(component, tuple[i])]),
    );
  }
  return value;
}

/**
 * Decodes ABI `data` of `types`; strings are decoded leniently (above). Values come back as plain objects. Well-formed
 * data is read straight from its hex text (chain/decodeAbiParameters.ts); anything else goes to ethers' decoder, which also gives
 * the errors (data too short, not hex).
 */
export function decodeLenient(types: readonly ParamType[], data: string): unknown[] {
  const values = readHexAbi(types, data);
  if (values) return values;
  const decoded = coder.decode(types.map(decodingForm), data);
  return types.map((type, i) => toPlain(type, decoded[i]));
}

/**
 * Calls a view function at `blockTag` and decodes its first output with lenient text (above). The contract's runner
 * must have a provider.
 */
export async function callLenient(
  contract: BaseContract,
  method: string,
  args: readonly unknown[],
  blockTag: number,
): Promise<unknown> {
  const fragment = contract.interface.getFunction(method);
  const provider = contract.runner?.provider;
  if (!fragment || !provider) throw new Error(`internal: cannot call ${method} without its fragment and a provider`);
  const data = contract.interface.encodeFunctionData(fragment, args);
  const result = await provider.call({ to: contract.target, data, blockTag });
  return decodeLenient(fragment.outputs, result)[0];
}
