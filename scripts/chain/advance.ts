/**
 * `npm run chain:advance -- <duration>`: moves the local Hardhat node's clock forward and mines a block, so that what
 * waits for time (an ERC-7540 redemption's fulfilment delay, a governance timelock) can be tried locally. The node is
 * the one `npm start` runs: LOCAL_RPC_URL, else 127.0.0.1 on LOCAL_RPC_PORT (8545). Durations: `90` (seconds), `30s`,
 * `15m`, `6h`, `1d`, `1w`, or several together (`1d2h`).
 */

/** Chain ids of development nodes (Hardhat, Anvil): the only ones whose clock this script moves. */
const DEVELOPMENT_CHAIN_IDS = new Set([31337n]);

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };

/** Seconds in a duration such as `1d`, `6h30m` or `90`; throws on anything else (and on zero). */
export function parseDuration(text: string): number {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+$/.test(trimmed)) return positive(Number(trimmed), text);
  if (!/^(\d+[smhdw])+$/.test(trimmed)) {
    throw new Error(`'${text}' is not a duration: write seconds (3600) or amounts with s, m, h, d, w (1d, 6h30m)`);
  }
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhdw])/g)) seconds += Number(amount) * UNIT_SECONDS[unit];
  return positive(seconds, text);
}

function positive(seconds: number, text: string): number {
  if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new Error(`'${text}' must be a positive whole duration`);
  return seconds;
}

/** The RPC address `npm start`'s node listens on. */
export function localRpcUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOCAL_RPC_URL ?? `http://127.0.0.1:${env.LOCAL_RPC_PORT ?? 8545}`;
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
  } catch {
    throw new Error(`no node answers at ${url}: start one with npm start (or set LOCAL_RPC_URL)`);
  }
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export interface Advanced {
  seconds: number;
  block: number;
  /** The new block's timestamp (Unix seconds). */
  timestamp: number;
}

/** evm_increaseTime then evm_mine: the next block, mined now, carries the later time. */
export async function advanceChain(url: string, seconds: number): Promise<Advanced> {
  const chainId = BigInt(await rpc<string>(url, "eth_chainId"));
  if (!DEVELOPMENT_CHAIN_IDS.has(chainId)) {
    throw new Error(`the node at ${url} is chain ${chainId}, not a local development chain (31337): nothing changed`);
  }
  await rpc(url, "evm_increaseTime", [seconds]);
  await rpc(url, "evm_mine");
  const block = await rpc<{ number: string; timestamp: string }>(url, "eth_getBlockByNumber", ["latest", false]);
  return { seconds, block: Number(block.number), timestamp: Number(block.timestamp) };
}

async function main(): Promise<void> {
  const [duration] = process.argv.slice(2);
  if (!duration || duration === "--help" || duration === "-h") {
    process.stdout.write("usage: npm run chain:advance -- <duration>   (e.g. 1d, 6h, 90m, 3600)\n");
    process.exitCode = duration ? 0 : 2;
    return;
  }
  const url = localRpcUrl();
  const advanced = await advanceChain(url, parseDuration(duration));
  process.stdout.write(
    `advanced ${url} by ${advanced.seconds} s: block ${advanced.block} at ` +
      `${new Date(advanced.timestamp * 1000).toISOString()}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`chain:advance: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
