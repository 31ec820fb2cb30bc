import fc from "fast-check";
import { getAddress, hexlify, Indexed, type ParamType, type Result } from "ethers";

/** fast-check values of any ABI type, and ethers' decoded values in the plain form decodeLenient gives. */

/** A value of `type` as ethers encodes it (text of valid UTF-8: ethers' encoder and decoder refuse the rest). */
export function valueOf(type: ParamType): fc.Arbitrary<unknown> {
  if (type.isTuple()) return fc.tuple(...type.components.map(valueOf));
  if (type.isArray()) {
    const child = valueOf(type.arrayChildren);
    const length = type.arrayLength;
    return length === -1
      ? fc.array(child, { maxLength: 3 })
      : fc.array(child, { minLength: length, maxLength: length });
  }
  const number = /^(u?)int(\d*)$/.exec(type.type);
  if (number) {
    const bits = BigInt(number[2] || 256);
    return number[1]
      ? fc.bigInt({ min: 0n, max: 2n ** bits - 1n })
      : fc.bigInt({ min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n });
  }
  const fixed = /^bytes(\d+)$/.exec(type.type);
  if (fixed) return fc.uint8Array({ minLength: Number(fixed[1]), maxLength: Number(fixed[1]) }).map((b) => hexlify(b));
  switch (type.type) {
    case "address":
      return fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(hexlify(b)));
    case "bool":
      return fc.boolean();
    case "bytes":
      return fc.uint8Array({ maxLength: 70 }).map((b) => hexlify(b));
    case "string":
      return fc.string({ unit: "grapheme", maxLength: 40 });
    default:
      throw new Error(`no arbitrary for ${type.type}`);
  }
}

/** ethers' decoded value of `type` as decodeLenient gives it: tuples keyed by name (by position when unnamed). */
export function plainOf(type: ParamType, value: unknown): unknown {
  if (value instanceof Indexed) return value.hash;
  if (type.isTuple()) {
    const tuple = value as Result;
    return Object.fromEntries(type.components.map((c, i) => [c.name || String(i), plainOf(c, tuple[i])]));
  }
  if (type.isArray()) return Array.from(value as Result, (item) => plainOf(type.arrayChildren, item));
  return value;
}

/** ABI type strings: elementary, string and bytes, arrays (fixed and dynamic) and tuples, named or not, nested. */
export function typeText(options: { strings: boolean }): fc.Arbitrary<string> {
  const leaf = fc.oneof(
    fc.constantFrom("address", "bool", "uint", "int", "bytes"),
    ...(options.strings ? [fc.constant("string")] : []),
    fc.integer({ min: 1, max: 32 }).map((n) => `uint${n * 8}`),
    fc.integer({ min: 1, max: 32 }).map((n) => `int${n * 8}`),
    fc.integer({ min: 1, max: 32 }).map((n) => `bytes${n}`),
  );
  const { type } = fc.letrec<{ type: string }>((tie) => ({
    type: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.tuple(tie("type"), fc.constantFrom("[]", "[1]", "[2]", "[3]")).map(([child, suffix]) => `${child}${suffix}`),
      fc
        .array(fc.tuple(tie("type"), fc.boolean()), { minLength: 1, maxLength: 3 })
        .map((parts) => `tuple(${parts.map(([child, named], i) => (named ? `${child} c${i}` : child)).join(",")})`),
    ),
  }));
  return type;
}
