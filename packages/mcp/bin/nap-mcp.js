#!/usr/bin/env node
// The `nap-mcp` command: the NAP MCP server over stdio, compiled to dist/ by `tsc -b`.
"use strict";
// Node's on-disk cache of compiled code (Node 22.1 and later), so that a host's every start after the first is quick.
require("node:module").enableCompileCache?.();
require("../dist/main.js")
  .main()
  .catch((error) => {
    process.stderr.write(`nap-mcp: ${error.message}\n`);
    process.exitCode = 1;
  });
