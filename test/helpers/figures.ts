/**
 * Figures a test measures beside its assertions (how many sequences a property test ran, what a crash left behind),
 * for a reader who wants to see what a run covered.
 *
 * They go to `build/test-figures.log` (started anew by each run), not to the run's output: CI reads the runner's
 * output for its closing line, and a line such as "150 sequences, 2184 steps, 104 fills" there reads like another
 * runner's summary. `TEST_FIGURES=1` prints them as well, indented under the test that measured them.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const LOG = join(__dirname, "..", "..", "build", "test-figures.log");
let started = false;

/** Records one figure line under `test` (the title of the test or suite that measured it). */
export function recordFigure(test: string, figure: string): void {
  if (!started) {
    mkdirSync(join(LOG, ".."), { recursive: true });
    writeFileSync(LOG, "");
    started = true;
  }
  appendFileSync(LOG, `${test}: ${figure}\n`);
  if (process.env.TEST_FIGURES === "1") console.log(`      ${figure}`);
}
