import { expect } from "chai";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const WIRE = path.resolve(__dirname, "../../packages/wire");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith(".ts") ? [full] : [];
  });
}

/** Every module a file imports: `from "x"` and `import("x")`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import\()\s*"([^"]+)"/g)].map((match) => match[1]);
}

/** The wire contract is a package a client installs: it stands alone, beside its declared dependencies. */
describe("wire package", () => {
  const manifest = JSON.parse(readFileSync(path.join(WIRE, "package.json"), "utf8")) as {
    name: string;
    type: string;
    exports: Record<string, { types: string; default: string } | string>;
    dependencies: Record<string, string>;
  };

  it("imports nothing outside its own sources but its declared dependencies and Node's modules", () => {
    const declared = Object.keys(manifest.dependencies);
    for (const file of sources(path.join(WIRE, "src"))) {
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith(".")) {
          const target = path.resolve(path.dirname(file), specifier);
          expect(target.startsWith(path.join(WIRE, "src")), `${file} imports ${specifier}`).to.equal(true);
        } else if (!specifier.startsWith("node:")) {
          expect(declared, `${file} imports ${specifier}`).to.include(specifier);
        }
      }
    }
  });

  it("publishes a scoped name with typed entry points for the whole contract and each part", () => {
    expect(manifest.name).to.equal("@nap/wire");
    expect(manifest.type).to.equal("commonjs");
    expect(Object.keys(manifest.exports)).to.deep.equal([".", "./live", "./data", "./codes", "./package.json"]);
    expect(manifest.exports["./live"]).to.deep.equal({
      types: "./dist/live/index.d.ts",
      default: "./dist/live/index.js",
    });
  });

  it("is the only place the clients take schemas and codes from", () => {
    const clients = ["sdk", "cli", "mcp"].map((name) => path.resolve(WIRE, "..", name));
    for (const file of clients.flatMap((dir) => sources(dir))) {
      for (const specifier of importsOf(file)) {
        expect(specifier, `${file} imports ${specifier}`).not.to.match(/api\/src/);
      }
    }
  });
});
