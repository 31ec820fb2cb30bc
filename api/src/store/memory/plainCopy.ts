/**
 * A deep copy of a record tree: what `structuredClone` gives for the values the read model holds (strings, numbers,
 * booleans, null, undefined, bigints, arrays, plain objects and Dates), without its cost: `structuredClone`
 * serializes the whole value and reads it back, and the indexer copies every record it writes. Records are trees
 * (no value is shared or cyclic). Any other object (a Map, a class instance) is refused, never copied into something
 * else.
 */
export function plainCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const copied = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copied[i] = copyValue(value[i]);
    return copied;
  }
  if (value instanceof Date) return new Date(value.getTime());
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) throw new TypeError("only plain records are copied");
  const copied: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const inner = copyValue((value as Record<string, unknown>)[key]);
    // An own "__proto__" key (JSON.parse makes one) stays a key: assigning it would set the copy's prototype.
    if (key === "__proto__")
      Object.defineProperty(copied, key, { value: inner, enumerable: true, writable: true, configurable: true });
    else copied[key] = inner;
  }
  return copied;
}
