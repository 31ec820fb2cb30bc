/**
 * `npm run rehearse:base-sepolia`: the Base Sepolia runbook rehearsed on a local node started as chain 84532, with
 * no internet (deploy/rehearsal.ts says what it runs). Prints the transcript; exits non-zero when a step does not
 * end as the runbook says.
 */
import { rehearseBaseSepolia } from "../deploy/rehearsal";

async function main(): Promise<void> {
  const started = Date.now();
  const report = await rehearseBaseSepolia({
    log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`),
  });
  const problems: string[] = [];
  if (report.drift.exitCode === 0) problems.push("the run with changed parameters was not refused");
  if (report.roleCheck.exitCode !== 0) problems.push("the role check found differences");
  if (report.verifyPlan.exitCode !== 0) problems.push("the verification plan failed");
  for (const step of report.journey) if (step.status !== 200) problems.push(`${step.request} answered ${step.status}`);
  const lastLines = (text: string, count: number) => text.trim().split("\n").slice(-count).join("\n");
  console.log(`\n--- refused run (changed parameters) ---\n${lastLines(report.drift.output, 6)}`);
  console.log(`\n--- role check ---\n${lastLines(report.roleCheck.output, 1)}`);
  console.log(`\n--- verification plan ---\n${report.verifyPlan.output.trim().split("\n").slice(0, 7).join("\n")}`);
  if (problems.length > 0) {
    console.error(`\nrehearsal FAILED:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
    process.exitCode = 1;
    return;
  }
  console.log(`\nrehearsal passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `rehearsal failed: ${error.message}` : error);
  process.exitCode = 1;
});
