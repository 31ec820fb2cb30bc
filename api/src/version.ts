import { readFileSync } from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "./projectRoot";

/** The service version reported by /health: the package version. */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }
).version;
