import { existsSync } from "node:fs";
import path from "node:path";

/**
 * The repository's root: the nearest folder above this file holding package.json. The service reads files there
 * (the package version, the contracts' artifacts) both from its sources (api/src) and from its compiled build
 * (dist/api/src), which sit at different depths.
 */
export const PROJECT_ROOT: string = findProjectRoot(__dirname);

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
