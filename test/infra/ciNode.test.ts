import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const SCRIPT = resolve(__dirname, "../../scripts/ci/node.sh");

/** A stand-in `node` of the given version: answers `--version` and the script's `-p` major-version probe. */
function fakeNode(file: string, version: string): void {
  mkdirSync(resolve(file, ".."), { recursive: true });
  writeFileSync(
    file,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo v${version}; else echo ${version.split(".")[0]}; fi\n`,
  );
  chmodSync(file, 0o755);
}

/**
 * A machine with a Node of `machineVersion` and an npm that logs each call and, for `install --prefix <dir>
 * node@<major>`, puts a Node of `installs` there as the registry's `node` package does.
 */
function machine(machineVersion: string, installs = "24.21.0") {
  const root = mkdtempSync(join(tmpdir(), "nap-ci-node-"));
  const bin = join(root, "bin");
  fakeNode(join(bin, "node"), machineVersion);
  writeFileSync(
    join(bin, "npm"),
    [
      "#!/bin/sh",
      `echo "$*" >> "${join(root, "npm.log")}"`,
      'if [ "$1" = "--version" ]; then echo 11.6.2; exit 0; fi',
      'if [ "$1" = "install" ] && [ "$2" = "--prefix" ]; then',
      '  mkdir -p "$3/node_modules/node/bin"',
      `  printf '#!/bin/sh\\nif [ "$1" = "--version" ]; then echo v${installs}; else echo ${installs.split(".")[0]}; fi\\n' > "$3/node_modules/node/bin/node"`,
      '  chmod +x "$3/node_modules/node/bin/node"',
      "fi",
    ].join("\n") + "\n",
  );
  chmodSync(join(bin, "npm"), 0o755);
  const tools = join(root, "tools");
  const run = () => {
    const result = spawnSync(
      "/bin/bash",
      ["-c", `set -euo pipefail; source "${SCRIPT}"; echo "node at $(command -v node)"`],
      { env: { PATH: `${bin}:/usr/bin:/bin`, HOME: root, NAP_TOOLS_DIR: tools }, encoding: "utf8" },
    );
    return { status: result.status, output: result.stdout + result.stderr };
  };
  const npmCalls = () =>
    existsSync(join(root, "npm.log")) ? readFileSync(join(root, "npm.log"), "utf8").trim().split("\n") : [];
  return { root, bin, tools, run, npmCalls, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

describe("CI's Node (scripts/ci/node.sh, sourced by .ci/run)", () => {
  it("installs Node 24 from the npm registry into the tools cache once when the machine's Node is older, and puts it first", () => {
    const box = machine("20.20.0");
    try {
      const cached = join(box.tools, "node-24", "node_modules", "node", "bin", "node");
      const first = box.run();
      expect(first.status).to.equal(0);
      expect(first.output).to.contain("[ci] node v24.21.0, npm 11.6.2");
      expect(first.output).to.contain(`node at ${cached}`);
      expect(box.npmCalls().filter((call) => call.startsWith("install"))).to.deep.equal([
        `install --prefix ${join(box.tools, "node-24")} --no-audit --no-fund --loglevel=error node@24`,
      ]);

      const second = box.run();
      expect(second.status).to.equal(0);
      expect(second.output).to.contain(`node at ${cached}`);
      expect(box.npmCalls().filter((call) => call.startsWith("install"))).to.have.length(1);
    } finally {
      box.cleanup();
    }
  });

  it("leaves a machine's Node 24 first on PATH and installs nothing", () => {
    const box = machine("24.3.0");
    try {
      const result = box.run();
      expect(result.status).to.equal(0);
      expect(result.output).to.contain("[ci] node v24.3.0, npm 11.6.2");
      expect(result.output).to.contain(`node at ${join(box.bin, "node")}`);
      expect(box.npmCalls().filter((call) => call.startsWith("install"))).to.deep.equal([]);
    } finally {
      box.cleanup();
    }
  });

  it("replaces a cached Node of another major", () => {
    const box = machine("20.20.0");
    try {
      fakeNode(join(box.tools, "node-24", "node_modules", "node", "bin", "node"), "22.23.3");
      const result = box.run();
      expect(result.status).to.equal(0);
      expect(result.output).to.contain("[ci] node v24.21.0");
      expect(box.npmCalls().filter((call) => call.startsWith("install"))).to.have.length(1);
    } finally {
      box.cleanup();
    }
  });

  it("stops CI when what it installed is not Node 24", () => {
    const box = machine("20.20.0", "22.23.3");
    try {
      const result = box.run();
      expect(result.status).to.equal(1);
      expect(result.output).to.contain("[ci] Node 24 is required, v22.23.3 is first on PATH");
      expect(result.output).not.to.contain("node at");
    } finally {
      box.cleanup();
    }
  });
});
