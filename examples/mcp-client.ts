/**
 * An MCP client using NAP's tools, as an LLM framework would: it starts `nap-mcp` over stdio with the official
 * MCP TypeScript SDK, lists the tools with their input schemas, and calls `nap_deposit`, then `nap_wallet`. The
 * agent is the one `nap register` saved (~/.nap/credentials.json, or NAP_CREDENTIALS / NAP_API_KEY).
 *
 *   npx ts-node --transpile-only examples/mcp-client.ts [VAULT] [AMOUNT_USDC]      # default: moderate 50
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import path from "node:path";

async function main(): Promise<void> {
  const [vault = "moderate", amount = "50"] = process.argv.slice(2);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(__dirname, "..", "packages", "mcp", "bin", "nap-mcp.js")],
    env: process.env as Record<string, string>,
  });
  const client = new Client({ name: "nap-example", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    console.log(`${tools.length} tools:`);
    for (const tool of tools) {
      const fields = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
      console.log(`  ${tool.name}(${fields.join(", ")}): ${tool.description}`);
    }
    for (const [name, args] of [
      ["nap_deposit", { vault_id: vault, amount_usdc: Number(amount) }],
      ["nap_wallet", {}],
    ] as const) {
      console.log(`\ncall ${name} ${JSON.stringify(args)}`);
      const result = (await client.callTool({ name, arguments: args })) as {
        content: { type: string; text: string }[];
        isError?: boolean;
      };
      console.log(`${result.isError ? "error" : "result"}: ${result.content.map((c) => c.text).join("\n")}`);
      if (result.isError) process.exitCode = 1;
    }
  } finally {
    await client.close();
  }
}

void main();
