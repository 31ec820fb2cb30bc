/**
 * The command lines the documents give a reader, read from the documents themselves so that the artifact test runs
 * exactly what a reader copies: the README's CLI quickstart and each agent host's MCP configuration.
 */

/** The text of the section whose heading line starts with `heading`, up to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(start, end === -1 ? undefined : end).join("\n");
}

/** The fenced code blocks of `text`, in order: their language and body. */
function codeBlocks(text: string): { language: string; body: string; index: number }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    language: match[1],
    body: match[2],
    index: match.index,
  }));
}

/**
 * The `npx nap ...` lines of the README's quickstart (its first shell block), each as the arguments after `nap`,
 * comments dropped.
 */
export function readmeQuickstart(readme: string): string[][] {
  const block = codeBlocks(section(readme, "## Quickstart")).find((b) => b.language === "sh");
  if (!block) throw new Error("the README's quickstart has no sh block");
  return block.body
    .split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line.startsWith("npx nap "))
    .map((line) => line.split(/\s+/).slice(2));
}

export interface McpHostSnippet {
  host: string;
  command: string;
  args: string[];
  /** The environment the host gives the server: names and the values as written (placeholders or variables). */
  env: Record<string, string>;
}

interface ServerEntry {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * Each host's JSON configuration of the NAP MCP server in the "MCP server" section of docs/developer-tools.md: the
 * first `json` block after a paragraph that starts with the host's name in bold (`**Claude Desktop**`). Claude
 * Desktop and Cursor keep servers under `mcpServers`, VS Code under `servers`.
 */
export function mcpHostSnippets(markdown: string): McpHostSnippet[] {
  const text = section(markdown, "## MCP server");
  const blocks = codeBlocks(text).filter((block) => block.language === "json");
  return [...text.matchAll(/^\*\*([^*]+)\*\*/gm)].map((match) => {
    const block = blocks.find((b) => b.index > match.index);
    if (!block) throw new Error(`${match[1]}: no json block follows`);
    const config = JSON.parse(block.body) as {
      mcpServers?: Record<string, ServerEntry>;
      servers?: Record<string, ServerEntry>;
    };
    const server = (config.mcpServers ?? config.servers ?? {}).nap;
    if (!server) throw new Error(`${match[1]}: no "nap" server in its configuration`);
    return { host: match[1], command: server.command, args: server.args ?? [], env: server.env ?? {} };
  });
}
