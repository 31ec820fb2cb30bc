import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ErrorFragment, Interface, isHexString, type JsonFragment, type Result } from "ethers";
import type { JsonValue } from "../errors";
import { PROJECT_ROOT } from "../projectRoot";

/**
 * Revert decoding: turns the revert data of a failed call into the custom error's name and values, using the
 * error declarations of every contract the project compiles (artifacts/contracts/**), plus Solidity's built-in
 * Error(string) and Panic(uint256).
 */

/** A decoded revert, ready for an error message or a JSON body (all values are strings, numbers or booleans). */
export interface DecodedRevert {
  /** Custom error name, or "Error" / "Panic" for the built-ins. */
  readonly name: string;
  /** Full signature, e.g. "TxProbeRejected(address,uint256,string)". */
  readonly signature: string;
  /** 4-byte selector, 0x-prefixed. */
  readonly selector: string;
  /** Arguments by name (or by position when unnamed); integers as decimal strings. */
  readonly args: Record<string, JsonValue>;
}

/** Default location of Hardhat's artifacts for the project's own contracts. */
export const DEFAULT_ARTIFACTS_DIR = path.join(PROJECT_ROOT, "artifacts/contracts");

const PANIC_REASONS: Record<number, string> = {
  0x01: "assertion failed",
  0x11: "arithmetic overflow or underflow",
  0x12: "division or modulo by zero",
  0x21: "invalid enum value",
  0x22: "invalid storage byte array",
  0x31: "pop on an empty array",
  0x32: "array index out of bounds",
  0x41: "out of memory",
  0x51: "call to an uninitialised function",
};

/** Reads every contract ABI under `dir` (Hardhat artifact JSON files, not *.dbg.json) and keeps the errors. */
export function loadErrorFragments(dir: string = DEFAULT_ARTIFACTS_DIR): ErrorFragment[] {
  const bySelector = new Map<string, ErrorFragment>();
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith(".json") && !entry.name.endsWith(".dbg.json")) {
        const artifact = JSON.parse(readFileSync(full, "utf8")) as { abi?: JsonFragment[] };
        for (const item of artifact.abi ?? []) {
          if (item.type !== "error") continue;
          const fragment = ErrorFragment.from(item);
          // The same error declared in an interface and its contract has one selector: keep the first.
          if (!bySelector.has(fragment.selector)) bySelector.set(fragment.selector, fragment);
        }
      }
    }
  };
  if (existsSync(dir)) visit(dir);
  return [...bySelector.values()];
}

/** Decodes revert data with one Interface built from all project errors. Construct once and share. */
export class RevertDecoder {
  readonly #iface: Interface;

  constructor(fragments: readonly ErrorFragment[] = loadErrorFragments()) {
    // Error(string) and Panic(uint256) are known to every ethers Interface as built-ins.
    this.#iface = new Interface([...fragments]);
  }

  /** Number of distinct custom errors known (the built-ins Error and Panic come on top). */
  get size(): number {
    let count = 0;
    this.#iface.forEachError(() => count++);
    return count;
  }

  /** Decodes `data` (0x-hex revert data); null when it is empty, too short or of an unknown selector. */
  decode(data: string | null | undefined): DecodedRevert | null {
    if (!data || !isHexString(data) || data.length < 10) return null;
    let parsed;
    try {
      parsed = this.#iface.parseError(data);
    } catch {
      return null;
    }
    if (!parsed) return null;
    const args: Record<string, JsonValue> = {};
    // ethers answers the built-ins with its own unnamed fragments; give their one value a name.
    const builtinName = parsed.name === "Error" ? "message" : parsed.name === "Panic" ? "code" : null;
    parsed.fragment.inputs.forEach((input, i) => {
      args[input.name || builtinName || String(i)] = toJson(parsed.args[i]);
    });
    return { name: parsed.name, signature: parsed.signature, selector: parsed.selector, args };
  }

  /** A one-line human description: `TxProbeRejected(sender=0xab.., value=7, reason="asked to fail")`. */
  describe(decoded: DecodedRevert): string {
    if (decoded.name === "Error") return `reverted: ${String(decoded.args.message)}`;
    if (decoded.name === "Panic") {
      const code = Number(decoded.args.code);
      return `panic 0x${code.toString(16).padStart(2, "0")}: ${PANIC_REASONS[code] ?? "unknown panic code"}`;
    }
    const parts = Object.entries(decoded.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    return `${decoded.name}(${parts.join(", ")})`;
  }
}

function toJson(value: unknown): JsonValue {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (value === null || value === undefined) return null;
  if (isResult(value)) {
    // Structs: keep names when the ABI gives them, else positions.
    const names = safeKeys(value);
    if (names.length > 0) return Object.fromEntries(names.map((k) => [k, toJson(value.getValue(k))]));
    return [...value].map(toJson);
  }
  if (Array.isArray(value)) return value.map(toJson);
  return String(value);
}

function isResult(value: unknown): value is Result {
  return Array.isArray(value) && typeof (value as Partial<Result>).toObject === "function";
}

function safeKeys(result: Result): string[] {
  try {
    return Object.keys(result.toObject());
  } catch {
    return [];
  }
}

/**
 * Finds revert data in an error thrown by ethers or by a provider (Hardhat's in-process provider, JSON-RPC
 * nodes): looks at `data`, `error.data`, `info.error.data` and the nested `cause` chain.
 */
export function findRevertData(err: unknown): string | null {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== "object" || seen.has(item)) continue;
    seen.add(item);
    const record = item as Record<string, unknown>;
    const data = record.data;
    if (typeof data === "string" && isHexString(data) && data.length >= 10) return data;
    if (data && typeof data === "object") {
      const nested = (data as Record<string, unknown>).data;
      if (typeof nested === "string" && isHexString(nested) && nested.length >= 10) return nested;
      stack.push(data);
    }
    for (const key of ["error", "info", "cause", "revert", "payload"]) stack.push(record[key]);
  }
  return null;
}
