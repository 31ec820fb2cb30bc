import { readFileSync } from "node:fs";
import path from "node:path";
import type { Middleware } from "koa";
// The package's path only: its main module would load the whole Swagger UI bundle (10 MB of heap) into the API.
import absolutePath from "swagger-ui-dist/absolute-path";

/**
 * GET /docs: the API reference, rendered by Swagger UI (swagger-ui-dist, served from node_modules: nothing from the
 * internet) from /openapi.json, with request and response bodies resolved and "Try it out" with an API key
 * (Authorize, X-API-Key). The page and its start script are the service's own; the renderer's files are served
 * under /docs/assets/ from the package, read once.
 */

/** The files of swagger-ui-dist the page loads. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/** Starts Swagger UI on /openapi.json; a file (not inline) so that the CSP needs no 'unsafe-inline' for scripts. */
export const DOCS_START_SCRIPT = `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
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

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>NAP agent API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/start.js"></script>
</body>
</html>
`;

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
  files.set("start.js", { type: "text/javascript; charset=utf-8", body: Buffer.from(DOCS_START_SCRIPT) });
  return async (ctx, next) => {
    if (!ctx.path.startsWith("/docs/assets/") || (ctx.method !== "GET" && ctx.method !== "HEAD")) return next();
    const file = files.get(ctx.path.slice("/docs/assets/".length));
    if (!file) return next();
    ctx.type = file.type;
    ctx.set("Cache-Control", "public, max-age=86400");
    ctx.body = file.body;
  };
}
