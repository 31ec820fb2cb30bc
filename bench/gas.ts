/**
 * Gas benchmark entry: `npx hardhat run bench/gas.ts` (npm run bench:gas).
 * Each area adds a section module under bench/gas/<area>.ts exporting `run(): Promise<BenchSection>`;
 * register it in SECTIONS below. Sections run one after the other on the same Hardhat network.
 */
import { formatSection, type BenchSection } from "./gas/table";
import { run as runRegistry } from "./gas/registry";
import { run as runRouter } from "./gas/router";
import { run as runVaults } from "./gas/vaults";

const SECTIONS: ReadonlyArray<{ name: string; run: () => Promise<BenchSection> }> = [
  { name: "vaults", run: runVaults },
  { name: "registry", run: runRegistry },
  { name: "router", run: runRouter },
];

async function main(): Promise<void> {
  let failed = false;
  for (const section of SECTIONS) {
    const result = await section.run();
    console.log(formatSection(result));
    if (result.failures.length > 0) {
      failed = true;
      for (const failure of result.failures) console.error(`FAIL ${section.name}: ${failure}`);
    }
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
