import { expect } from "chai";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * The rule of docs/architecture.md ("What may import what"), read from the imports of api/src: a floor imports only
 * the floors below it, and a door takes only types from the chain, the engine and the indexer. The composition at the
 * top of api/src (app.ts, readSide.ts, server.ts, main.ts) may import anything; so may the tests.
 */

const SRC = resolve(__dirname, "..", "..", "api", "src");

/** Top-level modules every floor may use: errors, logging, settings, caches, the version. */
const SHARED = ["errors.ts", "logger.ts", "config.ts", "ttlCache.ts", "keyedQueue.ts", "version.ts", "projectRoot.ts"];

/** What each floor may import at run time, and what only as types (`import type`). */
const RULE: Record<string, { imports: string[]; types?: string[] }> = {
  doors: { imports: ["usecases", "readmodel", "domain", "redis.ts"], types: ["chain", "tx", "indexer"] },
  usecases: { imports: ["tx", "chain", "domain"] },
  readmodel: { imports: ["chain", "domain"] },
  indexer: { imports: ["chain", "readmodel", "domain"] },
  tx: { imports: ["chain", "domain"] },
  chain: { imports: ["domain"] },
  domain: { imports: [] },
  // Adapters implement the interfaces their users declare.
  store: { imports: ["domain", "usecases", "readmodel", "tx"], types: ["doors"] },
};

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** The top-level entry of api/src an import resolves to (a floor's folder or a module), or null outside api/src. */
function entryOf(src: string, fromFile: string, specifier: string): string | null {
  const target = relative(src, resolve(dirname(fromFile), specifier));
  // Outside api/src every floor may import: the wire contract imports nothing of the service, so even domain/ takes
  // its vocabulary from it (packages/wire/src), and the contracts' generated bindings are no floor.
  if (target.startsWith("..")) return null;
  const [first, ...rest] = target.split(sep);
  if (rest.length > 0) return first;
  try {
    if (statSync(join(src, first)).isDirectory()) return first;
  } catch {
    // a module given without its extension
  }
  return first.endsWith(".ts") ? first : `${first}.ts`;
}

/** Every import or re-export of a relative specifier, with whether it takes types only. */
function importsOf(text: string): { specifier: string; typeOnly: boolean }[] {
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?from\s+"(\.[^"]*)"/gm)) {
    found.push({ specifier: match[2], typeOnly: match[1] !== undefined });
  }
  return found;
}

function breaches(src: string): string[] {
  const found: string[] = [];
  for (const [floor, rule] of Object.entries(RULE)) {
    for (const file of sourceFiles(join(src, floor))) {
      for (const { specifier, typeOnly } of importsOf(readFileSync(file, "utf8"))) {
        const entry = entryOf(src, file, specifier);
        if (entry === null || entry === floor || SHARED.includes(entry) || rule.imports.includes(entry)) continue;
        if (typeOnly && rule.types?.includes(entry)) continue;
        found.push(`${relative(src, file)} imports ${typeOnly ? "types of " : ""}${entry} ("${specifier}")`);
      }
    }
  }
  return found;
}

describe("api/src floors: what may import what (docs/architecture.md)", function () {
  it("every floor imports only what the rule allows: no import upward, a door takes only types from below the use cases", function () {
    expect(breaches(SRC)).to.deep.equal([]);
  });

  it("names an upward import and a door's run-time import of the engine, and lets type imports, shared modules and the wire contract by", function () {
    const src = mkdtempSync(join(tmpdir(), "nap-layers-"));
    try {
      for (const floor of Object.keys(RULE)) mkdirSync(join(src, floor));
      writeFileSync(
        join(src, "tx", "engine.ts"),
        'import { route } from "../doors/route";\nimport { x } from "../errors";\n',
      );
      writeFileSync(
        join(src, "doors", "route.ts"),
        'import { TxEngine } from "../tx";\nimport type { Head } from "../chain/head";\n',
      );
      writeFileSync(join(src, "chain", "head.ts"), 'export type { Cursor } from "../readmodel/records";\n');
      writeFileSync(
        join(src, "domain", "model.ts"),
        'export { TIERS } from "../../packages/wire/src/live/vocabulary";\n',
      );
      mkdirSync(join(src, "readmodel", "sub"));
      expect(breaches(src)).to.deep.equal([
        'doors/route.ts imports tx ("../tx")',
        'tx/engine.ts imports doors ("../doors/route")',
        'chain/head.ts imports types of readmodel ("../readmodel/records")',
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it("reads the floors that exist: each folder of the rule is in api/src and holds sources", function () {
    for (const floor of Object.keys(RULE)) expect(sourceFiles(join(SRC, floor)).length, floor).to.be.greaterThan(0);
  });
});
