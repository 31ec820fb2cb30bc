/**
 * Runs examples/quickstart.py against a stack of its own and checks its output (scripts/examples/python.sh installs
 * eth-account and calls this): a Hardhat node on a free port with the whole system deployed, the API on a free port,
 * then `python3 examples/quickstart.py` with NAP_API_URL pointing at it. It must exit 0 and print its five steps.
 * Env: ETH_ACCOUNT_PATH (a folder holding eth-account, put on PYTHONPATH). Everything started here is stopped.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEV_SERVER_WALLET_MNEMONIC } from "../../deploy/devWallets";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "../../test/e2e/processes";

/** What each of the five steps prints, in order. */
const EXPECTED = [
  /^registered python quickstart agent \([0-9a-f-]{36}\)$/,
  /^faucet: 0\.05 ETH and 1000 USDC$/,
  /^deposited 100 USDC \(tx 0x[0-9a-f]{64}\)$/,
  /^strategy 0x[0-9a-f]{64} is shadow$/,
  /^withdrew \d+(\.\d{1,6})? USDC \(tx 0x[0-9a-f]{64}\)$/,
];

function python(apiUrl: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const pythonPath = [process.env.ETH_ACCOUNT_PATH, process.env.PYTHONPATH].filter(Boolean).join(":");
    const child = spawn("python3", ["examples/quickstart.py"], {
      env: { ...process.env, NAP_API_URL: apiUrl, PYTHONPATH: pythonPath },
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
    console.log(`python3 examples/quickstart.py against ${api.url}`);
    const { code, stdout } = await python(api.url);
    const lines = stdout.trim().split("\n");
    const wrong = EXPECTED.flatMap((pattern, i) =>
      pattern.test(lines[i] ?? "") ? [] : [`line ${i + 1}: ${lines[i]}`],
    );
    if (code !== 0 || lines.length !== EXPECTED.length || wrong.length > 0) {
      console.error(`the Python quickstart failed (exit ${code}): ${wrong.join("; ") || `${lines.length} lines`}`);
      return 1;
    }
    console.log("the Python quickstart ran from register to withdrawal");
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
