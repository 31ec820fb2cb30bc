import type { RouteDefinition } from "./route";

/**
 * Examples of a route's request body and answers, shown by the OpenAPI documents (and so by /docs and /v1/docs).
 * They are values a running stack answered (a registration, a deposit, a data key), kept in one table per door and
 * found by the route's method and path; test/api/doors/openapiExamples.test.ts holds each to its route's schemas.
 */
export interface RouteExamples {
  /** The JSON request body. */
  request?: unknown;
  /** The body of each declared answer, by status. */
  responses: Readonly<Record<number, unknown>>;
}

export type ExampleTable = Readonly<Record<string, RouteExamples>>;

/** The table's key of a route: `POST /api/v1/agent/auth/register`. */
export function exampleKey(route: Pick<RouteDefinition, "method" | "path">): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}
