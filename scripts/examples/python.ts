/**
 * Runs examples/quickstart.py against a stack of its own and checks its output (scripts/examples/python.sh builds
 * the SDK's wheel, installs it into a fresh virtual environment and calls this): a Hardhat node on a free port with
 * the whole system deployed, the API on a free port, then `$NAP_PYTHON examples/quickstart.py` with NAP_API_URL
 * pointing at it. It must exit 0 and print its seven steps. Everything started here is stopped.
 * Env: NAP_PYTHON (the interpreter of the environment the wheel is installed in; default python3).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEV_SERVER_WALLET_MNEMONIC } from "../../deploy/devWallets";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "../../test/e2e/processes";

/** What each of the seven steps prints, in order. */
const EXPECTED = [
  /^registered python quickstart agent \([0-9a-f-]{36}\)$/,
  /^faucet: 0\.05 ETH and 1000 USDC$/,
  /^deposited 100 USDC \(tx 0x[0-9a-f]{64}\)$/,
  /^\/ws saw the deposit: seq \d+, DEPOSIT of 100 USDC \(tx 0x[0-9a-f]{64}\)$/,
  /^GraphQL resumed after seq \d+: seq \d+, the same deposit$/,
  /^strategy 0x[0-9a-f]{64} is shadow$/,
  /^withdrew \d+(\.\d{1,6})? USDC \(tx 0x[0-9a-f]{64}\)$/,
];

function python(apiUrl: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    // PYTHONPATH is left out: what the example imports comes from the interpreter's own environment.
    const { PYTHONPATH: _ignored, ...env } = process.env;
    void _ignored;
    const child = spawn(process.env.NAP_PYTHON ?? "python3", ["examples/quickstart.py"], {
      env: { ...env, NAP_API_URL: apiUrl },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    let rest = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) process.stdout.write(`  py | ${line}\n`);
    });
    child.stdout.on("end", () => {
      if (rest !== "") process.stdout.write(`  py | ${rest}\n`);
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? 1, stdout }));
  });
}

async function main(): Promise<number> {
  let node: Spawned | undefined;
  let api: Spawned | undefined;
  const outDir = mkdtempSync(join(tmpdir(), "nap-python-example-"));
  try {
    node = await spawnHardhatNode();
    await deployTo(node.url, outDir);
    api = await spawnApi({
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(outDir, "31337.json"),
      SERVER_WALLET_MNEMONIC: DEV_SERVER_WALLET_MNEMONIC,
    });
    console.log(`${process.env.NAP_PYTHON ?? "python3"} examples/quickstart.py against ${api.url}`);
    const { code, stdout } = await python(api.url);
    const lines = stdout.trim().split("\n");
    const wrong = EXPECTED.flatMap((pattern, i) =>
      pattern.test(lines[i] ?? "") ? [] : [`line ${i + 1}: ${lines[i]}`],
    );
    // The two subscriptions saw one log entry: the GraphQL one resumed right before the seq /ws gave the deposit.
    const seq = Number(/seq (\d+)/.exec(lines[3] ?? "")?.[1]);
    if (lines[4] !== `GraphQL resumed after seq ${seq - 1}: seq ${seq}, the same deposit`) {
      wrong.push(`line 5 does not resume right before seq ${seq}: ${lines[4]}`);
    }
    if (code !== 0 || lines.length !== EXPECTED.length || wrong.length > 0) {
      console.error(`the Python quickstart failed (exit ${code}): ${wrong.join("; ") || `${lines.length} lines`}`);
      return 1;
    }
    console.log("the Python quickstart ran from register to withdrawal, its deposit seen on /ws and over GraphQL");
    return 0;
  } finally {
    if (api) await kill(api.child);
    if (node) await kill(node.child);
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
