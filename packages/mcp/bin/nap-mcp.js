#!/usr/bin/env node
// The `nap-mcp` command: the NAP MCP server over stdio (TypeScript sources through ts-node, transpile only).
"use strict";
const path = require("node:path");
require("ts-node").register({ transpileOnly: true, project: path.join(__dirname, "..", "..", "..", "tsconfig.json") });
require("../src/main")
  .main()
  .catch((error) => {
    process.stderr.write(`nap-mcp: ${error.message}\n`);
    process.exitCode = 1;
  });
