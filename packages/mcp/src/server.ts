import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { NAP_PACKAGES_VERSION } from "@nap/wire";
import {
  NapClient,
  NapDataClient,
  runOperation,
  toolFailure,
  toolFailureText,
  type MessageSigner,
  type ToolFailure,
} from "@nap/sdk";
import { listedTool, TOOLS } from "./tools";

/**
 * The NAP MCP server: the SDK's operations list as Model Context Protocol tools, for any LLM framework that
 * speaks MCP. It acts for one agent (its API key); registration, which needs the owner's signature, is done
 * once beforehand (`nap register`) unless an owner signer is given. A refused call is a tool result with isError,
 * the API's message (which names the field and says what to do), its status and code, so the model can correct
 * itself.
 */

export interface NapMcpServerOptions {
  /** The data API's client (default: one at the live client's address, without a data key). */
  data?: NapDataClient;
  /** The owner wallet that signs a registration through nap_register (default: none, the tool is refused). */
  signer?: MessageSigner;
}

export function createNapMcpServer(nap: NapClient, options: NapMcpServerOptions = {}): Server {
  const server = new Server({ name: "nap", version: NAP_PACKAGES_VERSION }, { capabilities: { tools: {} } });
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
  const context = {
    live: nap,
    data: options.data ?? new NapDataClient({ baseUrl: nap.baseUrl }),
    ...(options.signer ? { signer: options.signer } : {}),
  };
  // Rendered once, on the first tools/list rather than before `initialize` is answered.
  let listed: ReturnType<typeof listedTool>[] | undefined;

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (listed ??= TOOLS.map(listedTool)) }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return failure({ message: `unknown tool ${request.params.name}` });
    try {
      const answer = await runOperation(context, tool.operation, request.params.arguments ?? {});
      return {
        content: [{ type: "text" as const, text: JSON.stringify(answer, null, 2) }],
        structuredContent: answer as Record<string, unknown>,
      };
    } catch (error) {
      const told = toolFailure(error);
      if (!told) throw error;
      return failure(told);
    }
  });
  return server;
}

/** A refused call: the line the model reads, and the same as fields (`error`, `status`, `code`) in _meta. */
function failure(told: ToolFailure) {
  return {
    content: [{ type: "text" as const, text: toolFailureText(told) }],
    isError: true,
    _meta: { "nap/error": told },
  };
}
