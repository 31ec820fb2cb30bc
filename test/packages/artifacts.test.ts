import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, homedir, loadavg, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { JsonRpcProvider, Wallet } from "ethers";
import { NapClient } from "@nap/sdk";
import { mintTestUsdc } from "../helpers/chainHand";
import { recordFigure } from "../helpers/figures";
import { environmentWithoutServices } from "../helpers/services";
import { DEV_MNEMONIC } from "../e2e/helpers";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "../e2e/processes";
import { mcpHostSnippets, readmeQuickstart } from "./docsCommands";

const ROOT = resolve(__dirname, "..", "..");
const PACKAGES = ["wire", "sdk", "cli", "mcp"] as const;
const NODE_MAJORS = [22, 24] as const;
/** The bound on `npx nap --help`, from the start of the process to its exit. */
const HELP_BOUND_MS = 500;
/** The TypeScript the consumers typecheck with: the repository's own. */
const TYPESCRIPT_VERSION = (
  JSON.parse(readFileSync(require.resolve("typescript/package.json"), "utf8")) as { version: string }
).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end, measuring its wall time from spawn to exit. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", fail);
    child.once("close", (code) => done({ code: code ?? 1, stdout, stderr, ms: performance.now() - started }));
  });
}

async function mustRun(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}

/**
 * The environment of a user's shell: no npm lifecycle variables of the `npm test` running this, no NAP_ settings,
 * no backing services; `nodeBin` (when given) first on PATH, so that `node`, `npm` and `npx` run on that Node.
 */
function userEnvironment(nodeBin?: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = environmentWithoutServices();
  for (const name of Object.keys(env)) {
    if (/^(npm_|NAP_|TS_NODE_)/i.test(name) || name === "INIT_CWD" || name === "NODE_OPTIONS") delete env[name];
  }
  if (nodeBin) env.PATH = `${nodeBin}${delimiter}${env.PATH ?? ""}`;
  return { ...env, ...extra };
}

/**
 * Node `major` from the npm registry's `node` package, installed once into ~/.cache/nap/node-<major> (the way
 * .ci/run gets Node 24); returns the folder of its `node` binary.
 */
async function nodeFromRegistry(major: number): Promise<string> {
  const prefix = join(homedir(), ".cache", "nap", `node-${major}`);
  const bin = join(prefix, "node_modules", "node", "bin");
  if (!existsSync(join(bin, "node"))) {
    mkdirSync(prefix, { recursive: true });
    const install = await run("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", `node@${major}`], {
      cwd: prefix,
      env: userEnvironment(),
    });
    if (install.code !== 0) {
      throw new Error(
        `could not install Node ${major} from the npm registry (npm install --prefix ${prefix} node@${major}); ` +
          `is the registry reachable?\n${install.stderr}`,
      );
    }
  }
  const version = await mustRun(join(bin, "node"), ["--version"], { cwd: prefix, env: userEnvironment() });
  expect(version.stdout.trim(), `${bin}/node`).to.match(new RegExp(`^v${major}\\.`));
  return bin;
}

interface TimedRun extends Run {
  /** CPU time (user and system) of the command and every process it started. */
  cpuMs: number;
}

/** `XmY.YYYs`, as bash's `times` prints a duration, in milliseconds. */
function bashDuration(text: string): number {
  const match = /^(\d+)m([\d.]+)s$/.exec(text);
  if (!match) throw new Error(`not a bash duration: ${text}`);
  return (Number(match[1]) * 60 + Number(match[2])) * 1000;
}

/** Runs a shell command line under bash, measuring its wall time and (bash's `times`) the CPU time it used. */
async function timed(commandLine: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<TimedRun> {
  const result = await run("bash", ["-c", `${commandLine}; status=$?; times >&2; exit $status`], options);
  const lines = result.stderr.trimEnd().split("\n");
  const [user, system] = lines.at(-1)!.trim().split(/\s+/).map(bashDuration);
  return { ...result, stderr: lines.slice(0, -2).join("\n"), cpuMs: user + system };
}

interface Packed {
  name: string;
  version: string;
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

/** Waits until `condition` holds, polling, or fails naming `what`. */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/**
 * A process whose output is collected as it comes (for `nap watch`), in a process group of its own: npx runs the
 * command under a shell, so Ctrl-C must reach the group, as a terminal sends it, not npx alone.
 */
function startStreaming(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child: ChildProcess = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const output = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | NodeJS.Signals>((done) =>
    child.once("exit", (code, signal) => done(code ?? signal!)),
  );
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, name);
  };
  return { child, output, exited, signal };
}

/**
 * The consumers: an ES module and a CommonJS module of a TypeScript project (moduleResolution nodenext) that import
 * the SDK by name, typechecked by tsc against the installed declarations, compiled, and run against the stack.
 */
const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    skipLibCheck: false,
    types: ["node"],
    outDir: "out",
  },
  files: ["esm.mts", "cjs.cts"],
};
const CONSUMER_BODY = `
  const baseUrl = process.env.NAP_API_URL!;
  const { vaults } = await new NapDataClient({ baseUrl }).vaults();
  const live = await new NapClient({ baseUrl }).vaults();
  let refused = "";
  try {
    await new NapDataClient({ baseUrl }).vault("0x000000000000000000000000000000000000dEaD");
  } catch (error) {
    refused = error instanceof NapApiError ? \`\${error.constructor.name} \${error.status}: \${error.message}\` : String(error);
  }
  const names: string[] = live.vaults.map((vault) => vault.name);
  console.log(JSON.stringify({ data_vaults: vaults.length, live_vaults: names.length, refused }));
`;
const ESM_CONSUMER = `import { NapApiError, NapClient, NapDataClient } from "@nap/sdk";
${CONSUMER_BODY}`;
const CJS_CONSUMER = `import { NapApiError, NapClient, NapDataClient } from "@nap/sdk";

async function main(): Promise<void> {${CONSUMER_BODY}}

void main();
`;

describe("client packages installed from their tarballs, outside the repository, on Node 22 and 24", function () {
  this.timeout(1_800_000);
  let workDir: string;
  let tarballs: string[] = [];
  let packed: Packed[] = [];
  let node: Spawned;
  let api: Spawned;
  let deploymentDir: string;

  before(async function () {
    workDir = mkdtempSync(join(tmpdir(), "nap-artifacts-"));
    const repo = { cwd: ROOT, env: userEnvironment() };
    await mustRun("npm", ["run", "build:packages"], repo);
    // Built just above (what the packages' prepack scripts do), so npm pack skips those.
    const pack = await mustRun(
      "npm",
      ["pack", "--json", "--ignore-scripts", "--pack-destination", workDir, ...PACKAGES.map((p) => `-w=packages/${p}`)],
      repo,
    );
    packed = JSON.parse(pack.stdout) as Packed[];
    tarballs = packed.map((p) => join(workDir, p.filename));

    node = await spawnHardhatNode();
    deploymentDir = join(workDir, "deployment");
    await deployTo(node.url, deploymentDir);
    api = await spawnApi({
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(deploymentDir, "31337.json"),
      SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
      SIGNATURE_WORKERS: "0",
      STRATEGY_SCREENING: "off",
    });
    await until(async () => (await fetch(`${api.url}/ready`)).status === 200, "the stack's /ready");
  });

  after(async function () {
    if (api) await kill(api.child);
    if (node) await kill(node.child);
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("npm pack: each package's tarball holds its compiled JavaScript, declarations and README, and no sources", function () {
    expect(packed.map((p) => p.name)).to.deep.equal(["@nap/wire", "@nap/sdk", "@nap/cli", "@nap/mcp"]);
    for (const tarball of packed) {
      const paths = tarball.files.map((file) => file.path);
      expect(tarball.version, tarball.name).to.equal("0.1.0");
      expect(paths, tarball.name).to.include.members(["package.json", "README.md"]);
      expect(
        paths.filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts")),
        tarball.name,
      ).to.deep.equal([]);
      expect(
        paths.filter((path) => path.startsWith("src/") || path.includes("tsbuildinfo")),
        tarball.name,
      ).to.deep.equal([]);
      const manifest = JSON.parse(
        readFileSync(join(ROOT, "packages", tarball.name.slice(5), "package.json"), "utf8"),
      ) as {
        exports: Record<string, string | { types: string; default: string }>;
        bin?: Record<string, string>;
      };
      for (const target of Object.values(manifest.exports)) {
        const entries = typeof target === "string" ? [target] : [target.types, target.default];
        for (const entry of entries) expect(paths, `${tarball.name}: ${entry}`).to.include(entry.replace(/^\.\//, ""));
      }
      for (const file of Object.values(manifest.bin ?? {})) expect(paths, tarball.name).to.include(file);
      if (tarball.name === "@nap/cli") expect(paths, "the help text nap --help prints").to.include("dist/usage.txt");
      recordFigure(
        "npm pack",
        `${tarball.name}@${tarball.version}: ${tarball.filename} ${tarball.size} bytes ` +
          `(${tarball.unpackedSize} unpacked, ${tarball.entryCount} files)`,
      );
    }
  });

  for (const major of NODE_MAJORS) {
    describe(`on Node ${major}`, function () {
      let consumer: string;
      let env: NodeJS.ProcessEnv;
      let credentials: string;
      let nodeVersion: string;

      before(async function () {
        const bin = await nodeFromRegistry(major);
        consumer = mkdtempSync(join(tmpdir(), `nap-consumer-node${major}-`));
        credentials = join(consumer, "home", ".nap", "credentials.json");
        env = userEnvironment(bin, { NAP_API_URL: api.url, NAP_CREDENTIALS: credentials });
        nodeVersion = (await mustRun("node", ["--version"], { cwd: consumer, env })).stdout.trim();
        expect(nodeVersion).to.match(new RegExp(`^v${major}\\.`));
        await mustRun("npm", ["init", "-y"], { cwd: consumer, env });
        const install = await run(
          "npm",
          [
            "install",
            "--no-audit",
            "--no-fund",
            ...tarballs,
            `typescript@${TYPESCRIPT_VERSION}`,
            `@types/node@${major}`,
          ],
          { cwd: consumer, env },
        );
        if (install.code !== 0) {
          throw new Error(
            `npm install of the tarballs (dependencies from the registry) failed on Node ${major}; ` +
              `is the registry reachable?\n${install.stderr}`,
          );
        }
        recordFigure(`Node ${major}`, `${nodeVersion}: installed the 4 tarballs in ${Math.round(install.ms)} ms`);
      });

      after(function () {
        if (consumer) rmSync(consumer, { recursive: true, force: true });
      });

      it("an ES module and a CommonJS module import the SDK, pass tsc (nodenext) against its types, and run", async function () {
        const liveVaults = (await new NapClient({ baseUrl: api.url }).vaults()).vaults.length;
        expect(liveVaults).to.be.greaterThan(0);
        writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
        writeFileSync(join(consumer, "esm.mts"), ESM_CONSUMER);
        writeFileSync(join(consumer, "cjs.cts"), CJS_CONSUMER);
        const typecheck = await run("npx", ["tsc", "--noEmit", "-p", "tsconfig.json"], { cwd: consumer, env });
        expect(typecheck.code, typecheck.stdout + typecheck.stderr).to.equal(0);
        await mustRun("npx", ["tsc", "-p", "tsconfig.json"], { cwd: consumer, env });
        for (const file of ["out/esm.mjs", "out/cjs.cjs"]) {
          const ran = await run("node", [file], { cwd: consumer, env });
          expect(ran.code, `${file}: ${ran.stderr}`).to.equal(0);
          const answer = JSON.parse(ran.stdout) as { data_vaults: number; live_vaults: number; refused: string };
          expect(answer.refused, `${file}: ${ran.stdout}`).to.match(/^NapNotFoundError 404: /);
          expect(answer.live_vaults, file).to.equal(liveVaults);
          expect(answer.data_vaults, file).to.be.greaterThan(0);
        }
        recordFigure(`Node ${major}`, "ESM and CommonJS consumers: tsc --noEmit clean, both ran against the stack");
      });

      it(`npx nap --help answers in under ${HELP_BOUND_MS} ms`, async function () {
        const runs: TimedRun[] = [];
        for (let i = 0; i < 5; i++) runs.push(await timed("npx nap --help", { cwd: consumer, env }));
        for (const help of runs) {
          expect(help.code, help.stderr).to.equal(0);
          expect(help.stdout).to.match(/^nap: the NAP agent CLI\n\nUsage: nap <command>/);
        }
        const wall = Math.min(...runs.map((help) => help.ms));
        const cpu = Math.min(...runs.map((help) => help.cpuMs));
        const load = loadavg()[0];
        const quiet = load <= availableParallelism();
        recordFigure(
          `Node ${major}`,
          `npx nap --help: wall ${runs.map((help) => Math.round(help.ms)).join(", ")} ms, CPU ` +
            `${runs.map((help) => Math.round(help.cpuMs)).join(", ")} ms (five runs; load average ${load.toFixed(1)} ` +
            `on ${availableParallelism()} CPUs${quiet ? "" : ": the CPU time held to the bound"})`,
        );
        // The bound is on the wall time where a CPU is free. On an oversubscribed machine the wall time measures the
        // queue for the CPUs, so there the CPU time of npx and all it starts is held to the bound instead.
        if (quiet) expect(wall, "wall time of npx nap --help").to.be.lessThan(HELP_BOUND_MS);
        else expect(cpu, "CPU time of npx nap --help").to.be.lessThan(HELP_BOUND_MS);
      });

      it("the README's CLI quickstart (register with the faucet, deposit, status, activity, withdraw, watch) runs with the installed nap", async function () {
        const commands = readmeQuickstart(readFileSync(join(ROOT, "README.md"), "utf8"));
        expect(commands.map((args) => args[0])).to.deep.equal([
          "register",
          "deposit",
          "status",
          "activity",
          "withdraw",
        ]);
        const transcript: string[] = [];
        const nap = async (args: string[]) => {
          const result = await run("npx", ["nap", ...args], { cwd: consumer, env });
          expect(result.code, `nap ${args.join(" ")}: ${result.stderr}`).to.equal(0);
          transcript.push(`nap ${args.join(" ")}: exit 0`);
          return result;
        };

        const [register, deposit, ...rest] = commands;
        const registered = await nap(register);
        const saved = JSON.parse(readFileSync(credentials, "utf8")) as { api_key: string; api_url: string };
        expect(saved.api_url).to.equal(api.url);
        expect(registered.stdout).not.to.include(saved.api_key);
        expect(registered.stdout).to.match(/received 0\.05 ETH and 1000 USDC \(tx 0x[0-9a-f]{64}, block \d+\)\n$/);

        const watch = startStreaming("npx", ["nap", "watch", "transactions", "moderate"], { cwd: consumer, env });
        try {
          await until(
            () => watch.output.stderr.includes("connected") || watch.output.stderr.includes("watching"),
            "nap watch",
          );
          const deposited = await nap(deposit);
          const depositTx = /deposit (0x[0-9a-f]{64})/.exec(deposited.stdout)?.[1];
          expect(depositTx, deposited.stdout).to.be.a("string");
          await until(() => watch.output.stdout.includes(`tx ${depositTx}`), "the deposit in nap watch");
          const line = watch.output.stdout.split("\n").find((l) => l.includes(`tx ${depositTx}`))!;
          expect(line).to.match(/^#\d+ \S+ DEPOSIT 100(\.0+)? USDC .+ \(FULFILLED, tx 0x[0-9a-f]{64}\)$/);
          transcript.push(`nap watch transactions moderate: ${line.replace(/ by 0x[0-9a-fA-F]+/, "")}`);
          // Ctrl-C: nap closes the subscription and says where to resume; npx and its shell end with the signal.
          watch.signal("SIGINT");
          expect(await watch.exited).to.be.oneOf([0, 130, "SIGINT"]);
          expect(watch.output.stderr).to.match(/^stopped; resume with --after-seq \d+$/m);
        } finally {
          watch.signal("SIGKILL");
        }

        for (const args of rest) {
          const result = await nap(args);
          if (args[0] === "status") expect(result.stdout).to.match(/shares worth 100(\.0+)? USDC/);
          if (args[0] === "withdraw") expect(result.stdout).to.match(/^withdrew [\d.]+ USDC from /m);
        }
        recordFigure(`Node ${major}`, `README quickstart: ${transcript.join("; ")}`);
      });

      it("nap wallet: a key file's wallet that never registered and holds no ETH deposits and withdraws by signature", async function () {
        const deployment = JSON.parse(readFileSync(join(deploymentDir, "31337.json"), "utf8")) as {
          usdc: { address: string };
          vaults: { moderate: { address: string } };
        };
        const owner = Wallet.createRandom();
        const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true });
        try {
          await mintTestUsdc(provider, deployment.usdc.address, owner.address, 5_000_000n);
          const keyFile = join(consumer, "owner.key");
          writeFileSync(keyFile, owner.privateKey, { mode: 0o600 });
          const vault = deployment.vaults.moderate.address;
          const nap = (args: string[]) =>
            run("npx", ["nap", "wallet", ...args, "--key-file", keyFile], { cwd: consumer, env });
          const deposited = await nap(["deposit", vault, "5", "--json"]);
          expect(deposited.code, deposited.stderr).to.equal(0);
          const relay = JSON.parse(deposited.stdout) as { status: string; result: { shares: string } };
          expect(relay.status).to.equal("confirmed");
          const withdrawn = await nap(["withdraw", vault, "--shares", relay.result.shares]);
          expect(withdrawn.code, withdrawn.stderr).to.equal(0);
          expect(withdrawn.stdout).to.match(/^withdrew by signature: [\d.]+ USDC \(relay 0x[0-9a-f]{64}, tx 0x/);
          expect(await provider.getBalance(owner.address)).to.equal(0n);
        } finally {
          provider.destroy();
        }
        recordFigure(`Node ${major}`, "nap wallet: deposit and withdraw by a key file's signature, relayed, no ETH");
      });

      it("the MCP server starts with each host's command line from the docs and completes a deposit", async function () {
        const snippets = mcpHostSnippets(readFileSync(join(ROOT, "docs", "developer-tools.md"), "utf8"));
        expect(snippets.map((s) => s.host)).to.deep.equal(["Claude Desktop", "Cursor", "VS Code"]);
        const { api_key: apiKey } = JSON.parse(readFileSync(credentials, "utf8")) as { api_key: string };
        const agent = new NapClient({ baseUrl: api.url, apiKey });
        for (const snippet of snippets) {
          // The host puts the API's address and the key into the server's environment, under the names it gives.
          expect(Object.keys(snippet.env).sort(), snippet.host).to.deep.equal(["NAP_API_KEY", "NAP_API_URL"]);
          const values: Record<string, string> = { NAP_API_URL: api.url, NAP_API_KEY: apiKey };
          const serverEnv = userEnvironment(undefined, values);
          serverEnv.PATH = env.PATH;
          const started = performance.now();
          const transport = new StdioClientTransport({
            command: snippet.command,
            args: snippet.args,
            cwd: consumer,
            env: serverEnv as Record<string, string>,
            stderr: "pipe",
          });
          const client = new Client({ name: `nap-artifacts-${snippet.host}`, version: "1.0.0" });
          await client.connect(transport);
          const initializeMs = Math.round(performance.now() - started);
          try {
            const usdc = async () => {
              const raw = (await agent.wallet()).usdc_balance_raw;
              expect(raw, "the wallet's usdc_balance_raw").to.be.a("string");
              return BigInt(raw!);
            };
            const before = await usdc();
            const result = (await client.callTool({
              name: "nap_deposit",
              arguments: { vault_id: "moderate", amount_usdc: 10 },
            })) as { content: { type: string; text: string }[]; isError?: boolean };
            expect(result.isError ?? false, result.content[0]?.text).to.equal(false);
            expect(JSON.parse(result.content[0].text)).to.include({ vault_id: "moderate", amount_usdc: 10 });
            const after = await usdc();
            expect(before - after, `${snippet.host}: USDC the deposit took`).to.equal(10_000_000n);
            recordFigure(
              `Node ${major}`,
              `MCP (${snippet.host}: ${snippet.command} ${snippet.args.join(" ")}): initialized in ${initializeMs} ms, ` +
                `nap_deposit of 10 USDC into moderate took ${before - after} raw USDC from the agent's wallet`,
            );
          } finally {
            await client.close();
          }
        }
      });
    });
  }
});
