import { DOCS_CSP, DOCS_PAGE } from "../docsPage";
import { defineRoute, type RouteDefinition } from "../route";
import { htmlPageResponse, openApiDocumentResponse } from "../../../../../packages/wire/src/live";

/**
 * /openapi.json and /docs. The document is built once by the door from all routes (these included). Neither spends
 * the public rate limit: they are static for the life of the process (the renderer's files, /docs/assets/, are
 * served by the door's docsAssets middleware, outside the routes).
 */
export function docsRoutes(document: () => Record<string, unknown>): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/openapi.json",
      tag: "service",
      summary: "This OpenAPI 3.1 document",
      auth: null,
      rateLimit: null,
      responses: { 200: { description: "OpenAPI 3.1 document", schema: openApiDocumentResponse } },
      handler: () => document(),
    }),
    defineRoute({
      method: "get",
      path: "/docs",
      tag: "service",
      summary:
        "API reference: Swagger UI over /openapi.json (served from the service, works offline; try calls with a key)",
      auth: null,
      rateLimit: null,
      responses: { 200: { description: "HTML page", schema: htmlPageResponse, contentType: "text/html" } },
      handler: ({ ctx }) => {
        ctx.type = "text/html; charset=utf-8";
        ctx.set("Content-Security-Policy", DOCS_CSP);
        return DOCS_PAGE;
      },
    }),
  ];
}
