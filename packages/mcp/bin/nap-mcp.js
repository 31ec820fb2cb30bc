#!/usr/bin/env node
// The `nap-mcp` command: the NAP MCP server over stdio, compiled to dist/ by `tsc -b`.
"use strict";
require("../dist/main.js")
  .main()
  .catch((error) => {
    process.stderr.write(`nap-mcp: ${error.message}\n`);
    process.exitCode = 1;
  });
