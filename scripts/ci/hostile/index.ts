/**
 * Generated hostile input against every door schemathesis does not cover: GraphQL over HTTP, graphql-ws and /ws, on
 * a stack of its own (a Hardhat node with the system deployed, the API on free loopback ports, rate limits lifted so
 * that input reaches the handlers; the socket caps stay). GraphQL documents are generated with fast-check from the
 * schema the API serves (GET /graphql/schema.graphql); socket message sequences from the protocols.
 *
 * Every run checks the bounds of ./bounds.ts (docs/limits.md, "Generated hostile input in CI"): no 5xx and no
 * INTERNAL_ERROR, no exit of the API process, every answer within its bound, /health answering all through, the API's
 * RSS under its bound, sockets that answer or close with an allowed code. It prints the counts per door, the outcomes
 * by status and close code, the slowest request, peak RSS and every violation, and exits non-zero on any violation.
 * An API found exited or blocked is started again, so one finding does not hide the next.
 *
 * Env: HOSTILE_SEED (default 26, so that CI sends the same input every time; `random` picks one, printed),
 * HOSTILE_SCALE (multiplies the generated counts, default 1), HOSTILE_HUGE_BODY_MB (the chunked body, default 200),
 * HOSTILE_DOORS (comma-separated among graphql-http, graphql-ws, ws; default all). Everything started here is
 * stopped at the end.
 */
import { Wallet } from "ethers";
import { buildSchema } from "graphql";
import { BOUNDS, SCALE } from "./bounds";
import { attackGraphqlHttp, type Context } from "./graphqlHttp";
import { attackGraphqlWs } from "./graphqlWs";
import { send } from "./http";
import { Record } from "./record";
import { Stack } from "./stack";
import { attackWs } from "./wsChannel";

const SEED =
  process.env.HOSTILE_SEED === "random" ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.HOSTILE_SEED ?? 26);
const DOORS = new Set((process.env.HOSTILE_DOORS ?? "graphql-http,graphql-ws,ws").split(","));

async function getJson(
  url: string,
  init: { method?: "GET" | "POST"; body?: unknown } = {},
): Promise<{ status: number; body: { [k: string]: unknown } }> {
  const answer = await send({
    method: init.method ?? "GET",
    url,
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    timeoutMs: 30_000,
  });
  return { status: answer.status, body: JSON.parse(answer.body || "{}") as { [k: string]: unknown } };
}

async function issueKey(url: string, scopes?: string[]): Promise<string> {
  const wallet = Wallet.createRandom();
  const nonce = await getJson(`${url}/v1/auth/nonce?wallet=${wallet.address}`);
  const issued = await getJson(`${url}/v1/auth/keys`, {
    method: "POST",
    body: {
      wallet: wallet.address,
      nonce: nonce.body.nonce,
      signature: await wallet.signMessage(String(nonce.body.message)),
      name: "hostile",
      ...(scopes ? { scopes } : {}),
    },
  });
  if (issued.status !== 201)
    throw new Error(`data key issuance answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  return String(issued.body.key);
}

/** A data key with the default scopes, one with nodes:read only, and the vault addresses the API lists. */
async function endpoints(url: string): Promise<{ key: string; narrowKey: string; vaults: string[] }> {
  const key = await issueKey(url);
  const narrowKey = await issueKey(url, ["nodes:read"]);
  const vaults = await getJson(`${url}/graphql`, { method: "POST", body: { query: "{ vaults { address } }" } });
  const list = ((vaults.body.data as { vaults?: Array<{ address: string }> } | undefined)?.vaults ?? []).map(
    (v) => v.address,
  );
  return { key, narrowKey, vaults: list };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(`hostile input: seed ${SEED} (HOSTILE_SEED=${SEED} repeats this run), scale ${SCALE}`);
  const record = new Record();
  const stack = new Stack(record);
  try {
    console.log("starting a Hardhat node, deploying the system and starting the API ...");
    await stack.start();
    stack.setEndpoints(await endpoints(stack.url));
    stack.afterRestart = async () => stack.setEndpoints(await endpoints(stack.url));
    stack.baselineRssMb = stack.rssNowMb();
    console.log(
      `API at ${stack.url}, RSS ${Math.round(stack.baselineRssMb)} MB; ${stack.vaults.length} vaults; a data key issued`,
    );
    const sdl = await send({ method: "GET", url: `${stack.url}/graphql/schema.graphql`, timeoutMs: 10_000 });
    const ctx: Context = { stack, record, schema: buildSchema(sdl.body), seed: SEED };
    const attacking = Date.now();
    if (DOORS.has("graphql-http")) await attackGraphqlHttp(ctx);
    if (DOORS.has("graphql-ws")) await attackGraphqlWs(ctx);
    if (DOORS.has("ws")) await attackWs(ctx);
    stack.category = "end";
    if (!(await stack.answersHealth(BOUNDS.healthMs))) {
      record.violation({
        door: "process",
        category: "end",
        kind: "health",
        what: `/health did not answer within ${BOUNDS.healthMs} ms at the end`,
      });
    }
    const health = stack.health;
    console.log(
      `\nhostile input, seed ${SEED}: ${Math.round((Date.now() - attacking) / 1000)} s of attacks, ${Math.round((Date.now() - started) / 1000)} s in all`,
    );
    for (const line of record.summary()) console.log(`  ${line}`);
    console.log(
      `  /health: ${health.probes} probes, p50 ${Math.round(percentile(health.slowMs, 50))} ms, p95 ${Math.round(percentile(health.slowMs, 95))} ms, ` +
        `max ${Math.round(health.maxMs)} ms (bound ${BOUNDS.healthMs}), ${health.failures} not 200`,
    );
    console.log(
      `  API RSS: ${Math.round(stack.baselineRssMb)} MB at the start, peak ${Math.round(stack.peakRssMb)} MB (bound ${BOUNDS.rssMb}); API restarts after a finding: ${stack.restarts}`,
    );
    if (record.violations.length > 0) {
      console.log(`  ${record.violations.length} violations:`);
      for (const line of record.violationSummary()) console.log(`    ${line}`);
      process.exitCode = 1;
    } else console.log("  0 violations");
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
