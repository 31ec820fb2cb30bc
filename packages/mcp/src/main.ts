import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { defaultCredentialsFile, readCredentials } from "@nap/sdk/credentials";
import { NapClient } from "@nap/sdk";
import { createNapMcpServer } from "./server";

/**
 * `nap-mcp`: the MCP server over stdio. The agent is the one of NAP_API_KEY (with NAP_API_URL), or else of the
 * credentials file `nap register` wrote (NAP_CREDENTIALS, default ~/.nap/credentials.json). Either may hold a scoped
 * key (`nap keys create`): a tool call past its scope or daily USDC is the API's 403, returned as the tool's error.
 */
export async function main(): Promise<void> {
  let apiKey = process.env.NAP_API_KEY;
  let baseUrl = process.env.NAP_API_URL;
  if (!apiKey) {
    const saved = readCredentials(defaultCredentialsFile());
    apiKey = saved.api_key;
    baseUrl ??= saved.api_url;
  }
  const server = createNapMcpServer(new NapClient({ baseUrl: baseUrl ?? "http://127.0.0.1:3000", apiKey }));
  await server.connect(new StdioServerTransport());
}
