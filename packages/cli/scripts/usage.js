#!/usr/bin/env node
// Writes dist/usage.txt, the text `nap --help` prints, from the compiled CLI: the bin answers --help from it without
// loading the CLI, the SDK and ethers (`npx` itself takes most of the half second an answer may take). Run after
// every build (`tsc -b`): the package's build and prepack scripts, the repository's prepare and tests.
"use strict";
const { rmSync, writeFileSync } = require("node:fs");
const path = require("node:path");

const dist = path.join(__dirname, "..", "dist");
const target = path.join(dist, "usage.txt");
rmSync(target, { force: true });
const { USAGE } = require(path.join(dist, "main.js"));
const { safeText } = require(path.join(dist, "safeText.js"));
if (typeof USAGE === "string") {
  // What Output.info prints for --help, byte for byte.
  writeFileSync(target, `${safeText(USAGE)}\n`);
} else {
  process.stderr.write("packages/cli: dist/main.js exports no USAGE; nap --help will load the whole CLI\n");
}
