/**
 * Mocha's spec reporter followed by one plain closing line, `tests: N passed, N failed, N skipped`.
 *
 * CI reads the closing line of a run to learn how many tests ran, and it does not read mocha's own "N passing"
 * summary; this line is the runner-neutral form it does read. Hook failures count as failed, as in mocha's stats.
 */
import Mocha from "mocha";

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    // Registered after Spec's own end listener, so the line comes after mocha's summary and failure list.
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`tests: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

export = SpecWithSummary;
