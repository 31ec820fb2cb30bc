import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { NAP_PACKAGES_VERSION, validationMessage } from "@nap/wire";
import { NapApiError, NapClient, NapNetworkError } from "@nap/sdk";
import { inputJsonSchema, TOOLS } from "./tools";

/**
 * The NAP MCP server: the agent operations of the live API as Model Context Protocol tools, for any LLM framework
 * that speaks MCP. It acts for one agent (its API key); registration, which needs the owner's signature, is done
 * once beforehand (`nap register`). A refused call is a tool result with isError and the API's message (which names
 * the field and says what to do), so the model can correct itself.
 */
export function createNapMcpServer(nap: NapClient): Server {
  const server = new Server({ name: "nap", version: NAP_PACKAGES_VERSION }, { capabilities: { tools: {} } });
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJsonSchema(tool) as { type: "object" },
      annotations: { title: tool.title, readOnlyHint: !tool.writes, destructiveHint: false, openWorldHint: true },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return failure(`unknown tool ${request.params.name}`);
    const args = request.params.arguments ?? {};
    const checked = tool.input.safeParse(args);
    if (!checked.success) return failure(validationMessage(checked.error, "arguments", args));
    try {
      const answer = await tool.run(nap, args);
      return {
        content: [{ type: "text" as const, text: JSON.stringify(answer, null, 2) }],
        structuredContent: answer as Record<string, unknown>,
      };
    } catch (error) {
      if (error instanceof NapApiError) {
        const retry = error.retryAfterSeconds !== undefined ? ` (retry in ${error.retryAfterSeconds} s)` : "";
        return failure(`${error.status}: ${error.message}${retry}`);
      }
      if (error instanceof NapNetworkError) return failure(error.message);
      throw error;
    }
  });
  return server;
}

function failure(message: string) {
  return { content: [{ type: "text" as const, text: message }], isError: true };
}
