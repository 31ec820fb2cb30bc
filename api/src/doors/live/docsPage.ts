import { readFileSync } from "node:fs";
import path from "node:path";
import type { Middleware } from "koa";
// The package's path only: its main module would load the whole Swagger UI bundle (10 MB of heap) into the API.
import absolutePath from "swagger-ui-dist/absolute-path";

/**
 * GET /docs and GET /v1/docs: the live and data API references, rendered by Swagger UI (swagger-ui-dist, served from
 * node_modules: nothing from the internet) from /openapi.json and /v1/openapi.json, with request and response bodies
 * resolved, their examples, and "Try it out" with a key. The pages and their start scripts are the service's own;
 * the renderer's files are served under /docs/assets/ from the package, read once.
 */

/** The files of swagger-ui-dist the page loads. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/** A reference page: its title, the OpenAPI document it renders, and the start script's file under /docs/assets/. */
interface ReferencePage {
  title: string;
  documentUrl: string;
  startScript: string;
  /** The other reference, linked from the page's top. */
  seeAlso: { label: string; href: string };
}

/** The live API's reference (/docs) and the data API's (/v1/docs), linked to each other. */
export const LIVE_REFERENCE: ReferencePage = {
  title: "NAP agent API reference",
  documentUrl: "/openapi.json",
  startScript: "start.js",
  seeAlso: { label: "Data API reference (/v1/docs)", href: "/v1/docs" },
};

export const DATA_REFERENCE: ReferencePage = {
  title: "NAP data API reference",
  documentUrl: "/v1/openapi.json",
  startScript: "data-start.js",
  seeAlso: { label: "Agent API reference (/docs)", href: "/docs" },
};

/** Starts Swagger UI on a document; a file (not inline) so that the CSP needs no 'unsafe-inline' for scripts. */
function startScript(page: ReferencePage): string {
  return `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(page.documentUrl)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 3,
    displayRequestDuration: true,
  });
});
`;
}

/** The HTML of a reference page: Swagger UI's files, the page's start script, and a link to the other reference. */
export function referencePage(page: ReferencePage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<nav><a href="${page.seeAlso.href}">${page.seeAlso.label}</a> · <a href="/graphql">GraphQL (GraphiQL)</a></nav>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/${page.startScript}"></script>
</body>
</html>
`;
}

export const DOCS_PAGE = referencePage(LIVE_REFERENCE);
export const DATA_DOCS_PAGE = referencePage(DATA_REFERENCE);

/**
 * The page's content security policy: scripts and styles from its own origin only (Swagger UI also sets style
 * attributes, hence 'unsafe-inline' for styles, never for scripts), calls to its own origin only (/openapi.json and
 * the API itself for "Try it out"), nothing from another host, no framing.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
  "img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Serves /docs/assets/<file>: the renderer's files and the start script, cached for a day; anything else falls through. */
export function docsAssets(): Middleware {
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const [name, type] of Object.entries(ASSETS)) {
    files.set(name, { type, body: readFileSync(path.join(absolutePath(), name)) });
  }
  for (const page of [LIVE_REFERENCE, DATA_REFERENCE]) {
    files.set(page.startScript, { type: "text/javascript; charset=utf-8", body: Buffer.from(startScript(page)) });
  }
  return async (ctx, next) => {
    if (!ctx.path.startsWith("/docs/assets/") || (ctx.method !== "GET" && ctx.method !== "HEAD")) return next();
    const file = files.get(ctx.path.slice("/docs/assets/".length));
    if (!file) return next();
    ctx.type = file.type;
    ctx.set("Cache-Control", "public, max-age=86400");
    ctx.body = file.body;
  };
}
