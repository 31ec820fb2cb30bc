import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const CLI = path.resolve(__dirname, "..", "..", "packages", "cli");

/**
 * `nap --help` is answered by the bin from dist/usage.txt, which the build writes from the compiled CLI
 * (packages/cli/scripts/usage.js), so that it does not load the CLI, the SDK and ethers first.
 */
describe("nap --help from the text the build wrote", () => {
  it("prints the same bytes as the CLI itself, for --help and -h", () => {
    const fromCli = execFileSync(
      process.execPath,
      ["-e", 'require("./dist/main.js").main(["--help"]).then((code) => (process.exitCode = code))'],
      { cwd: CLI, encoding: "utf8" },
    );
    expect(fromCli).to.match(/^nap: the NAP agent CLI\n/);
    expect(readFileSync(path.join(CLI, "dist", "usage.txt"), "utf8")).to.equal(fromCli);
    for (const flag of ["--help", "-h"]) {
      expect(execFileSync(process.execPath, [path.join(CLI, "bin", "nap.js"), flag], { encoding: "utf8" })).to.equal(
        fromCli,
      );
    }
  });

  it("leaves every other command line to the CLI (a usage error exits 2 with the usage on stderr)", () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [path.join(CLI, "bin", "nap.js"), "--help", "--no-such-flag"], {
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).to.equal(2);
    expect(failure?.stderr).to.include("Usage: nap <command>");
  });
});
