import { AbiCoder, getBytes, ParamType, type BaseContract, type Result } from "ethers";

/**
 * Text read from the chain as it is, never as a reason to fail. The ABI encodes `string` exactly like `bytes`, so
 * values are decoded with every string read as bytes, then turned into text with the WHATWG UTF-8 decoder, which
 * replaces each invalid sequence with U+FFFD. Anyone can put bytes that are not UTF-8 into a string onchain (a
 * strategy submitted straight to the registry, a proposal description); ethers' own decoder throws on them, which
 * would turn one such value into an error on every read of the list that holds it.
 */

const coder = AbiCoder.defaultAbiCoder();
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Lenient forms already built, per ABI parameter (fragments live as long as their interfaces). */
const lenientForms = new WeakMap<ParamType, ParamType>();

/** The same parameter with each `string` (at any depth) declared as `bytes`. */
function readStringsAsBytes(type: ParamType): ParamType {
  let lenient = lenientForms.get(type);
  if (!lenient) {
    const json = type.format("json").replace(/"type":"string((?:\[\d*\])*)"/g, '"type":"bytes$1"');
    lenient = ParamType.from(JSON.parse(json) as Record<string, unknown>, true);
    lenientForms.set(type, lenient);
  }
  return lenient;
}

/**
 * Turns a value decoded with `readStringsAsBytes(type)` into a plain JavaScript value of `type`: text for strings,
 * objects keyed by component name (by position when unnamed) for tuples, arrays for arrays, and ethers' values
 * (bigint, checksummed address, hex) for the rest.
 */
function toPlain(type: ParamType, value: unknown): unknown {
  if (type.baseType === "string") return utf8.decode(getBytes(value as string));
  if (type.isArray()) return Array.from(value as Result, (item) => toPlain(type.arrayChildren, item));
  if (type.isTuple()) {
    const tuple = value as Result;
    return Object.fromEntries(
      type.components.map((component, i) => [component.name || String(i), toPlain(component, tuple[i])]),
    );
  }
  return value;
}

/** Decodes ABI `data` of `types`; strings are decoded leniently (above). Values come back as plain objects. */
export function decodeLenient(types: readonly ParamType[], data: string): unknown[] {
  const values = coder.decode(types.map(readStringsAsBytes), data);
  return types.map((type, i) => toPlain(type, values[i]));
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
