import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dataOpenApiDocumentFor } from "../api/src/doors/data";
import { openApiDocumentFor } from "../api/src/doors/live";
import { createLogger } from "../api/src/logger";

/**
 * Writes the API's two OpenAPI documents, as a server serves them, without starting anything: the live agent API's
 * (/openapi.json) to the first file given (default build/openapi.json) and the data API's (/v1/openapi.json) to the
 * second (default build/data-openapi.json). `npm run lint:openapi` lints both with Redocly's recommended rules.
 */
const SERVER = "http://127.0.0.1:3000";
const [live = "build/openapi.json", data = "build/data-openapi.json"] = process.argv.slice(2);
for (const [file, document] of [
  [live, openApiDocumentFor(SERVER, createLogger("silent"))],
  [data, dataOpenApiDocumentFor(SERVER)],
] as const) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
