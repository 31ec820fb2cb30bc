import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openApiDocumentFor } from "../api/src/doors/live";
import { createLogger } from "../api/src/logger";

/**
 * Writes the live API's OpenAPI document, as a server serves it at /openapi.json, to the file given (default
 * build/openapi.json), without starting anything: `npm run lint:openapi` lints it with Redocly's recommended rules.
 */
const out = process.argv[2] ?? "build/openapi.json";
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(openApiDocumentFor("http://127.0.0.1:3000", createLogger("silent")), null, 2)}\n`);
console.log(`wrote ${out}`);
