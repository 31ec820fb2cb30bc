import { readFileSync } from "node:fs";
import path from "node:path";
import type { Context } from "koa";

/**
 * GraphiQL, the GraphQL IDE, for a browser that opens /graphql (or /v1/graphql): its UMD bundle and React's, served
 * from node_modules under /graphql/assets/ (nothing from the internet), started by a script file of the service's
 * own so that the page's CSP allows no inline script. Queries go over HTTP POST to the path the page was opened on,
 * subscriptions over graphql-ws on the same path.
 */

export const IDE_ASSETS_PREFIX = "/graphql/assets/";

/** The files the page loads, by the name it asks for: the package and its file, and the content type. */
const PACKAGE_FILES: Record<string, { pkg: string; file: string; type: string }> = {
  "react.production.min.js": { pkg: "react", file: "umd/react.production.min.js", type: "text/javascript" },
  "react-dom.production.min.js": {
    pkg: "react-dom",
    file: "umd/react-dom.production.min.js",
    type: "text/javascript",
  },
  "graphiql.min.js": { pkg: "graphiql", file: "graphiql.min.js", type: "text/javascript" },
  "graphiql.min.css": { pkg: "graphiql", file: "graphiql.min.css", type: "text/css" },
};

/** Starts GraphiQL on the page's own path: HTTP for queries, WebSocket (graphql-ws) for subscriptions. */
const START_SCRIPT = `"use strict";
(function () {
  var path = window.location.pathname.replace(/\\/$/, "");
  var url = window.location.origin + path;
  var socket = (window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + path;
  var fetcher = GraphiQL.createFetcher({ url: url, subscriptionUrl: socket });
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: "# The vaults at the indexed block; subscriptions work too (subscription { ... }).\\n" +
        "{\\n  vaults {\\n    address\\n    name\\n    riskLevel\\n    tvlUsd\\n    isERC7540\\n  }\\n}\\n",
      defaultEditorToolsVisibility: true,
      shouldPersistHeaders: false,
    }),
  );
})();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>NAP data API: GraphiQL</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="${IDE_ASSETS_PREFIX}graphiql.min.css">
<link rel="stylesheet" href="${IDE_ASSETS_PREFIX}page.css">
</head>
<body>
<div id="graphiql">Loading GraphiQL...</div>
<script src="${IDE_ASSETS_PREFIX}react.production.min.js"></script>
<script src="${IDE_ASSETS_PREFIX}react-dom.production.min.js"></script>
<script src="${IDE_ASSETS_PREFIX}graphiql.min.js"></script>
<script src="${IDE_ASSETS_PREFIX}start.js"></script>
</body>
</html>
`;

const PAGE_CSS = "html, body { height: 100%; margin: 0; } #graphiql { height: 100vh; }\n";

/**
 * Scripts from this origin only; styles and style attributes (GraphiQL's editors set them); the queries and the
 * subscription socket to this origin only; images and fonts inline in GraphiQL's CSS (data:); no framing.
 */
export const IDE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
  "img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A browser asking for a page (not a GraphQL client): GET without a query, accepting HTML. */
export function wantsIde(ctx: Context): boolean {
  if (ctx.method !== "GET" && ctx.method !== "HEAD") return false;
  if (ctx.query.query !== undefined) return false;
  const accept = ctx.get("Accept");
  return accept.includes("text/html") && !accept.includes("application/graphql-response+json");
}

export interface Ide {
  /** Answers the page. */
  page(ctx: Context): void;
  /** Answers one of the page's files; false when `path` is none of them. */
  asset(ctx: Context, path: string): boolean;
}

/** The page and its files, read once. */
export function graphiqlIde(): Ide {
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const [name, { pkg, file, type }] of Object.entries(PACKAGE_FILES)) {
    const root = path.dirname(require.resolve(`${pkg}/package.json`));
    files.set(name, { type: `${type}; charset=utf-8`, body: readFileSync(path.join(root, file)) });
  }
  files.set("start.js", { type: "text/javascript; charset=utf-8", body: Buffer.from(START_SCRIPT) });
  files.set("page.css", { type: "text/css; charset=utf-8", body: Buffer.from(PAGE_CSS) });
  return {
    page(ctx) {
      ctx.status = 200;
      ctx.type = "text/html; charset=utf-8";
      ctx.set("Content-Security-Policy", IDE_CSP);
      ctx.set("Cache-Control", "no-cache");
      ctx.body = PAGE;
    },
    asset(ctx, requested) {
      if (ctx.method !== "GET" && ctx.method !== "HEAD") return false;
      const file = requested.startsWith(IDE_ASSETS_PREFIX)
        ? files.get(requested.slice(IDE_ASSETS_PREFIX.length))
        : null;
      if (!file) return false;
      ctx.type = file.type;
      ctx.set("Cache-Control", "public, max-age=86400");
      ctx.body = file.body;
      return true;
    },
  };
}
