#!/usr/bin/env node
// The `nap` command: the CLI compiled to dist/ by `tsc -b` (in the repository, `npm ci` and `npm test` build it).
"use strict";
require("../dist/main.js")
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
