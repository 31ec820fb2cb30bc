import { expect } from "chai";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..", "..");
const PACKAGES = path.join(ROOT, "packages");

interface Manifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  type?: string;
  engines?: { node?: string };
  repository?: { type: string; url: string; directory: string };
  bin?: Record<string, string>;
  exports?: Record<string, string | { types: string; default: string }>;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function read<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** The npm packages of the workspace: every folder under packages/ with a package.json (packages/python is not one). */
const WORKSPACES = readdirSync(PACKAGES)
  .filter((name) => existsSync(path.join(PACKAGES, name, "package.json")))
  .sort();

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith(".ts") ? [full] : [];
  });
}

/**
 * Every module a file imports or re-exports (`import`, `export ... from`, `import()`, `require()`), as the TypeScript
 * compiler's pre-processor finds them: not text inside strings or comments.
 */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((imported) => imported.fileName);
}

/** The package a bare specifier names: `@scope/name/sub/path.js` is `@scope/name`, `name/sub` is `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const NODE_BUILTINS = new Set(builtinModules);

/**
 * What an import of `file` (a source of the package in `dir`) breaks, if anything: a relative path that leaves the
 * package's src/, or a package the manifest does not declare. Node's own modules are always there.
 */
function violation(dir: string, manifest: Manifest, file: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) {
    const target = path.resolve(path.dirname(file), specifier);
    return target.startsWith(path.join(dir, "src") + path.sep) || target === path.join(dir, "src")
      ? undefined
      : `leaves the package (${path.relative(ROOT, target)})`;
  }
  if (specifier.startsWith("node:") || NODE_BUILTINS.has(specifier)) return undefined;
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
  if (packageOf(specifier) === manifest.name) return "imports its own package by name";
  return packageOf(specifier) in declared ? undefined : `${packageOf(specifier)} is not a declared dependency`;
}

describe("client packages: boundaries and manifests", () => {
  const root = read<Manifest & { workspaces: string[]; devDependencies: Record<string, string> }>(
    path.join(ROOT, "package.json"),
  );
  const rootVersions: Record<string, string> = { ...root.dependencies, ...root.devDependencies };

  it("the workspace holds the wire contract, the SDK, the CLI and the MCP server", () => {
    expect(root.workspaces).to.deep.equal(["packages/*"]);
    expect(WORKSPACES).to.include.members(["cli", "mcp", "sdk", "wire"]);
    expect(WORKSPACES.map((name) => read<Manifest>(path.join(PACKAGES, name, "package.json")).name)).to.include.members(
      ["@nap/cli", "@nap/mcp", "@nap/sdk", "@nap/wire"],
    );
  });

  for (const name of WORKSPACES) {
    const dir = path.join(PACKAGES, name);
    const manifest = read<Manifest>(path.join(dir, "package.json"));

    describe(manifest.name, () => {
      it("imports nothing outside its own sources but its declared dependencies and Node's modules", () => {
        const found = sources(path.join(dir, "src")).flatMap((file) =>
          importsOf(file).flatMap((specifier) => {
            const problem = violation(dir, manifest, file, specifier);
            return problem ? [`${path.relative(ROOT, file)} imports "${specifier}": ${problem}`] : [];
          }),
        );
        expect(found).to.deep.equal([]);
      });

      it("is versioned with the others, for Node 22 and later, and ready to publish", () => {
        expect(manifest.version).to.equal(read<Manifest>(path.join(PACKAGES, "wire", "package.json")).version);
        expect(manifest.engines).to.deep.equal({ node: ">=22" });
        expect(manifest.license).to.equal("MIT");
        expect(manifest.description).to.be.a("string").and.not.equal("");
        expect(manifest.repository).to.deep.include({ type: "git", directory: `packages/${name}` });
        expect(manifest.files).to.include("dist");
        expect(existsSync(path.join(dir, "README.md")), `${manifest.name} has a README`).to.equal(true);
      });

      it("exports typed entry points of its compiled JavaScript only", () => {
        for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
          if (entry === "./package.json") continue;
          expect(target, entry).to.be.an("object");
          const { types, default: code } = target as { types: string; default: string };
          expect(types, entry).to.match(/^\.\/dist\/.+\.d\.ts$/);
          expect(code, entry).to.equal(types.replace(/\.d\.ts$/, ".js"));
        }
        for (const [command, file] of Object.entries(manifest.bin ?? {})) {
          const text = readFileSync(path.join(dir, file), "utf8");
          expect(text.startsWith("#!/usr/bin/env node\n"), command).to.equal(true);
          expect(text, command).to.match(/require\("\.\.\/dist\//);
          expect(text, command).not.to.match(/ts-node/);
        }
      });

      it("depends on the other client packages at their one version, and on the registry's at the root's ranges", () => {
        for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
          if (dependency.startsWith("@nap/")) {
            expect(range, dependency).to.equal(manifest.version);
          } else if (dependency in rootVersions) {
            expect(range, dependency).to.equal(rootVersions[dependency]);
          }
        }
      });
    });
  }

  it("the CLI and the MCP server install the commands the docs name", () => {
    expect(read<Manifest>(path.join(PACKAGES, "cli", "package.json")).bin).to.deep.equal({ nap: "bin/nap.js" });
    expect(read<Manifest>(path.join(PACKAGES, "mcp", "package.json")).bin).to.deep.equal({
      "nap-mcp": "bin/nap-mcp.js",
    });
  });

  it("a relative import out of a package or an undeclared one is a violation (the check itself)", () => {
    const dir = path.join(PACKAGES, "cli");
    const manifest: Manifest = { name: "@nap/cli", version: "0.1.0", dependencies: { "@nap/sdk": "0.1.0" } };
    const file = path.join(dir, "src", "main.ts");
    expect(violation(dir, manifest, file, "../../sdk/src")).to.equal("leaves the package (packages/sdk/src)");
    expect(violation(dir, manifest, file, "../../../api/src/config")).to.equal("leaves the package (api/src/config)");
    expect(violation(dir, manifest, file, "@nap/wire/live")).to.equal("@nap/wire is not a declared dependency");
    expect(violation(dir, manifest, file, "@nap/cli")).to.equal("imports its own package by name");
    expect(violation(dir, manifest, file, "./output")).to.equal(undefined);
    expect(violation(dir, manifest, file, "@nap/sdk")).to.equal(undefined);
    expect(violation(dir, manifest, file, "node:fs")).to.equal(undefined);
    expect(importsOf(path.join(PACKAGES, "mcp", "src", "server.ts"))).to.include(
      "@modelcontextprotocol/sdk/server/index.js",
    );
  });
});
