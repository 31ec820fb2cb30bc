#!/usr/bin/env node
// The `nap` command: runs the CLI's TypeScript sources through ts-node (transpile only), the way the project runs
// its other scripts, so that a clone needs no build step.
"use strict";
const path = require("node:path");
require("ts-node").register({ transpileOnly: true, project: path.join(__dirname, "..", "..", "..", "tsconfig.json") });
require("../src/main")
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
