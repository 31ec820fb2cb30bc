/**
 * Issue 30's closing run through both SDKs, on a stack of its own: a Hardhat node with the whole system deployed and
 * the API; then a wallet that never registered and holds no ETH (a fresh key given TestUSDC only) deposits into a
 * synchronous vault and redeems, deposits into an ERC-7540 vault, requests, cancels, requests again and claims once
 * fulfilled, every write signed by the wallet and relayed by the service: once through the TypeScript SDK (an ethers
 * Wallet), once through the Python SDK (examples/signed_writes.py, with $NAP_PYTHON). The only hand on the chain
 * besides the relayer is the test harness's: it mints the USDC, moves time past the vault's fulfilment delay and
 * fulfils as a keeper. Prints the transcript; exits non-zero when a step fails.
 * Env: NAP_PYTHON (the interpreter with the SDK installed; default python3), NAP_SKIP_TS=1 (the Python run alone).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { JsonRpcProvider, Wallet } from "ethers";
import { NapDataClient, type RelayState, type RelaySubmitted } from "@nap/sdk";
import { DEV_SERVER_WALLET_MNEMONIC } from "../../deploy/devWallets";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "../../test/e2e/processes";
import { fulfilAsKeeper, mintTestUsdc } from "../../test/helpers/chainHand";

const USDC = 1_000_000n;

interface Stack {
  provider: JsonRpcProvider;
  apiUrl: string;
  syncVault: string;
  asyncVault: string;
  router: string;
  usdc: string;
}

const mint = (stack: Stack, to: string, amount: bigint) => mintTestUsdc(stack.provider, stack.usdc, to, amount);
const fulfil = (stack: Stack, controller: string) => fulfilAsKeeper(stack.provider, stack.asyncVault, controller);

async function typescriptRun(stack: Stack): Promise<void> {
  const data = new NapDataClient({ baseUrl: stack.apiUrl, router: stack.router });
  const owner = Wallet.createRandom();
  await mint(stack, owner.address, 40n * USDC);
  const say = (line: string) => console.log(`  ts | ${line}`);
  const relayed = async (what: string, submitted: Promise<RelaySubmitted>): Promise<RelayState> => {
    const relay = await data.waitForRelay((await submitted).relay_id, { intervalMs: 200 });
    const facts = Object.entries(relay.result ?? {})
      .map(([key, value]) => `${key} ${value}`)
      .join(", ");
    say(`${what}: ${relay.status}, ${facts} (relay ${relay.relay_id}, tx ${relay.tx_hash})`);
    return relay;
  };
  say(`wallet ${owner.address}: never registered, ${await stack.provider.getBalance(owner.address)} wei of ETH`);
  const deposited = await relayed(
    "deposited 20 USDC into the synchronous vault",
    data.deposit({ vault: stack.syncVault, amount: 20n * USDC }, owner),
  );
  const shares = BigInt(deposited.result!.shares!);
  await relayed("withdrew half by signature", data.redeem({ vault: stack.syncVault, shares: shares / 2n }, owner));
  const held = BigInt(
    (
      await relayed(
        "deposited 20 USDC into the ERC-7540 vault",
        data.deposit({ vault: stack.asyncVault, amount: 20n * USDC }, owner),
      )
    ).result!.shares!,
  );
  await relayed("requested a redemption", data.requestRedeem({ vault: stack.asyncVault, shares: held / 4n }, owner));
  await relayed("cancelled it", data.cancelRedeem({ vault: stack.asyncVault }, owner));
  await relayed("requested again", data.requestRedeem({ vault: stack.asyncVault, shares: held / 2n }, owner));
  await fulfil(stack, owner.address);
  say("(the harness moved the chain past the fulfilment delay and a keeper fulfilled)");
  await relayed("claimed once fulfilled", data.claim({ vault: stack.asyncVault, shares: held / 2n }, owner));
  const eth = await stack.provider.getBalance(owner.address);
  if (eth !== 0n) throw new Error(`the wallet holds ${eth} wei`);
  say(`done: every write signed by the wallet and relayed; it holds ${eth} wei of ETH`);
}

/** examples/signed_writes.py with a fresh funded key; its `fulfil` line is answered once the harness fulfilled. */
async function pythonRun(stack: Stack): Promise<void> {
  const owner = Wallet.createRandom();
  await mint(stack, owner.address, 40n * USDC);
  const { PYTHONPATH: _ignored, ...env } = process.env;
  void _ignored;
  const child = spawn(process.env.NAP_PYTHON ?? "python3", ["examples/signed_writes.py"], {
    env: {
      ...env,
      NAP_API_URL: stack.apiUrl,
      NAP_OWNER_KEY: owner.privateKey,
      NAP_SYNC_VAULT: stack.syncVault,
      NAP_ASYNC_VAULT: stack.asyncVault,
      NAP_FULFIL_ON_STDIN: "1",
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const closed = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code ?? 1));
  });
  let done = false;
  for await (const line of lines) {
    console.log(`  py | ${line}`);
    if (line === `fulfil ${owner.address}`) {
      await fulfil(stack, owner.address);
      console.log("  py | (the harness moved the chain past the fulfilment delay and a keeper fulfilled)");
      child.stdin.write("\n");
    }
    if (line.startsWith("done:")) done = true;
  }
  const code = await closed;
  if (code !== 0 || !done) throw new Error(`examples/signed_writes.py failed (exit ${code})`);
  const eth = await stack.provider.getBalance(owner.address);
  if (eth !== 0n) throw new Error(`the Python wallet holds ${eth} wei`);
}

async function main(): Promise<number> {
  let node: Spawned | undefined;
  let api: Spawned | undefined;
  const outDir = mkdtempSync(join(tmpdir(), "nap-signed-writes-"));
  try {
    node = await spawnHardhatNode();
    await deployTo(node.url, outDir);
    const deploymentFile = join(outDir, "31337.json");
    api = await spawnApi({
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: deploymentFile,
      SERVER_WALLET_MNEMONIC: DEV_SERVER_WALLET_MNEMONIC,
    });
    const deployment = JSON.parse(readFileSync(deploymentFile, "utf8")) as {
      usdc: { address: string };
      contracts: { NapRouter: { address: string } };
      vaults: Record<string, { address: string }>;
    };
    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, cacheTimeout: -1 });
    const stack: Stack = {
      provider,
      apiUrl: api.url,
      syncVault: deployment.vaults.moderate.address,
      asyncVault: deployment.vaults.aggressive.address,
      router: deployment.contracts.NapRouter.address,
      usdc: deployment.usdc.address,
    };
    console.log(`signed writes against ${api.url} (router ${stack.router}; no agent, no API key)`);
    if (!process.env.NAP_SKIP_TS) {
      console.log("TypeScript SDK (@nap/sdk), an ethers Wallet:");
      await typescriptRun(stack);
    }
    console.log(`Python SDK (nap), eth-account, ${process.env.NAP_PYTHON ?? "python3"} examples/signed_writes.py:`);
    await pythonRun(stack);
    provider.destroy();
    console.log("every write signed by a wallet without ETH and relayed by the service, through both SDKs");
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
