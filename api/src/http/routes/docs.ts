import type { Context } from "koa";
import { DOCS_PAGE } from "../docsPage";
import { defineRoute, type RouteDefinition } from "../route";

/** /openapi.json and /docs. The document is built once by the app from all routes (these included). */
export function docsRoutes(document: () => Record<string, unknown>): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/openapi.json",
      tag: "service",
      summary: "This OpenAPI 3.1 document",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "OpenAPI 3.1 document" } },
      handler: () => document(),
    }),
    defineRoute({
      method: "get",
      path: "/docs",
      tag: "service",
      summary: "Human-readable API documentation (renders /openapi.json, works offline)",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "HTML page" } },
      handler: ({ ctx }: { ctx: Context }) => {
        ctx.type = "text/html; charset=utf-8";
        ctx.set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'");
        return DOCS_PAGE;
      },
    }),
  ];
}
