import { subtask, vars, type HardhatUserConfig } from "hardhat/config";
import {
  TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD,
  TASK_TEST_GET_TEST_FILES,
  TASK_TEST_SETUP_TEST_ENVIRONMENT,
} from "hardhat/builtin-tasks/task-names";
import { spawnSync } from "node:child_process";
import { join, relative, sep } from "node:path";
import "@nomicfoundation/hardhat-toolbox";

/** The one compiler version of the project. It must match the exact version of the npm package `solc`. */
const SOLC_VERSION = "0.8.28";

// The Solidity download site is unreachable on our machines, so Hardhat must never try to fetch a compiler.
// For the project's version we hand it the solcjs build shipped in the npm package `solc` (pinned exactly).
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD).setAction(async (args: { solcVersion: string }, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper(args);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require("solc") as { version(): string };
  const longVersion = solc.version();
  if (!longVersion.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`npm package solc is ${longVersion}; install solc@${SOLC_VERSION} exactly`);
  }
  return { compilerPath: require.resolve("solc/soljson.js"), isSolcJs: true, version: SOLC_VERSION, longVersion };
});

/** Test folders in the order `npm test` runs them: contracts first, then deployment, the API, and end to end. */
const TEST_ORDER = ["contracts", "deploy", "api", "e2e"];

// `npm test` runs every `*.test.ts` file under test/ (other files are fixtures, models and child-process workers);
// without files named on the command line, run them in TEST_ORDER so that a broken contract fails before the slower
// API suites start.
subtask(TASK_TEST_GET_TEST_FILES).setAction(async (args: { testFiles: string[] }, hre, runSuper) => {
  const files: string[] = await runSuper(args);
  if (args.testFiles.length > 0) return files;
  const rank = (file: string) => {
    const top = relative(hre.config.paths.tests, file).split(sep)[0];
    const index = TEST_ORDER.indexOf(top);
    return index === -1 ? TEST_ORDER.length : index;
  };
  return files.filter((file) => file.endsWith(".test.ts")).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
});

// Tests load the client packages by name, that is from their compiled dist/ (and spawn their bins, which run it): build
// what changed first (`tsc -b` is incremental), so a test never runs a stale build of sources just edited. Type
// errors are shown but do not stop the run (tsc still emits, as ts-node's transpile-only did); `npm run lint:ts` and
// `npm ci` (its prepare script) fail on them.
subtask(TASK_TEST_SETUP_TEST_ENVIRONMENT).setAction(async (_args, _hre, runSuper) => {
  const build = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-b", "packages"], {
    cwd: __dirname,
    stdio: "inherit",
  });
  if (build.status !== 0) console.warn("tsc -b packages reported the errors above; the tests run what it emitted");
  const usage = spawnSync(process.execPath, ["packages/cli/scripts/usage.js"], { cwd: __dirname, stdio: "inherit" });
  if (usage.status !== 0) console.warn("packages/cli/scripts/usage.js failed: nap --help loads the whole CLI");
  return runSuper();
});

const config: HardhatUserConfig = {
  solidity: {
    version: SOLC_VERSION,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
    },
  },
  networks: {
    hardhat: {
      // Fixed start so that runs are reproducible; tests move time with the network helpers.
      chainId: Number(process.env.HARDHAT_CHAIN_ID ?? 31337),
      // Only for a node that runs coverage-instrumented bytecode, which outgrows the 24 KiB limit (EIP-170).
      allowUnlimitedContractSize: process.env.HARDHAT_ALLOW_UNLIMITED_CONTRACT_SIZE === "true",
      // Hardhat's own accounts, with more than its default 10,000 ETH each: every test that deploys the whole system
      // on the one in-process chain of `npm test` funds the faucet from the deployer, and the suite deploys it often.
      accounts: { accountsBalance: (1_000_000n * 10n ** 18n).toString() },
    },
    localhost: {
      url: process.env.LOCAL_RPC_URL ?? "http://127.0.0.1:8545",
    },
    // No `accounts`: the deployer's key is read from Hardhat's configuration variables by the deployment itself, at
    // the moment it signs (deploy/deployer.ts), so no other command ever holds it.
    baseSepolia: {
      chainId: 84532,
      // Base's public endpoint, unless the configuration variable names a provider's (`npx hardhat vars set ...`).
      url: vars.get("BASE_SEPOLIA_RPC_URL", "https://sepolia.base.org"),
    },
  },
  // One Etherscan key (a string, not a per-network map) makes hardhat-verify use Etherscan's API v2
  // (https://api.etherscan.io/v2/api?chainid=<id>), which serves Base Sepolia (84532) with the same key. Empty when
  // unset: verification then skips Etherscan and says so.
  etherscan: { apiKey: vars.get("ETHERSCAN_API_KEY", "") },
  sourcify: { enabled: true },
  typechain: { outDir: "typechain-types", target: "ethers-v6" },
  gasReporter: { enabled: process.env.REPORT_GAS === "true", offline: true },
  // The reporter adds the plain "tests: N passed, N failed, N skipped" line that CI reads after the run.
  mocha: { timeout: 120_000, reporter: join(__dirname, "test/helpers/summaryReporter.ts") },
};

export default config;
