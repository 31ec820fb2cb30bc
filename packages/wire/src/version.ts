import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The version of the NAP client packages, which are released together: this package's own. Read from its
 * package.json, one folder above both the sources and the compiled files.
 */
export const NAP_PACKAGES_VERSION: string = (
  JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as { version: string }
).version;
