/**
 * Mocha's spec reporter followed by the run's counts in two closing forms: the summary block of node's test runner
 * (`ℹ tests N` ... `ℹ duration_ms N`), then one plain line, `tests: N passed, N failed, N skipped`, last.
 *
 * CI reads the closing lines of a run to learn how many tests ran, and it does not read mocha's own "N passing"
 * summary. Mocha marks a passing test with the same "✔" as node's test runner, so a reader that takes those lines for
 * node's runner looks for its summary block: it is given, with mocha's counts. The plain line is the runner-neutral
 * form and stays the last line. Hook failures count as failed, as in mocha's stats.
 */
import Mocha from "mocha";

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    // Registered after Spec's own end listener, so the lines come after mocha's summary and failure list.
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending, suites, duration } = this.stats;
      const block = [
        `ℹ tests ${passes + failures + pending}`,
        `ℹ suites ${suites}`,
        `ℹ pass ${passes}`,
        `ℹ fail ${failures}`,
        `ℹ cancelled 0`,
        `ℹ skipped ${pending}`,
        `ℹ todo 0`,
        `ℹ duration_ms ${duration ?? 0}`,
      ];
      process.stdout.write(`${block.join("\n")}\ntests: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

export = SpecWithSummary;
