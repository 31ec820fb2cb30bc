import { readFileSync } from "node:fs";
import path from "node:path";

/** The service version reported by /health: the package version. */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as { version: string }
).version;
