/** Runs only the registry section of the gas benchmark: `npx hardhat run bench/gas-registry.ts`. */
import { formatSection } from "./gas/table";
import { run } from "./gas/registry";

run()
  .then((section) => {
    console.log(formatSection(section));
    for (const failure of section.failures) console.error(`FAIL registry: ${failure}`);
    if (section.failures.length > 0) process.exitCode = 1;
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
