#!/usr/bin/env node
// The `nap` command: the CLI compiled to dist/ by `tsc -b` (in the repository, `npm ci` and `npm test` build it).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const dist = path.join(__dirname, "..", "dist");

/** The help text the build wrote (scripts/usage.js), unless a compiled file is newer than it. */
function builtUsage() {
  try {
    const file = path.join(dist, "usage.txt");
    const written = fs.statSync(file).mtimeMs;
    const compiled = fs.readdirSync(dist, { recursive: true }).filter((name) => name.endsWith(".js"));
    if (compiled.some((name) => fs.statSync(path.join(dist, name)).mtimeMs > written)) return undefined;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
// `nap --help` answers without loading the CLI, the SDK and ethers.
const usage = args.length === 1 && (args[0] === "--help" || args[0] === "-h") ? builtUsage() : undefined;
if (usage !== undefined) {
  process.stdout.write(usage);
} else {
  // Node's on-disk cache of compiled code (Node 22.1 and later): every run after the first starts without compiling
  // the CLI and its dependencies again.
  require("node:module").enableCompileCache?.();
  require("../dist/main.js")
    .main(args)
    .then((code) => {
      process.exitCode = code;
    });
}
