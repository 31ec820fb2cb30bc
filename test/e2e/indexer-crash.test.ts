import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MaxUint256, NonceManager, Wallet } from "ethers";
import { jsonRpcProvider } from "../../api/src/chain";
import { loadDeployment, type Deployment } from "../../api/src/chain/deployment";
import { VAULT_IDS } from "../../api/src/domain/model";
import { connectMongoStore, type MongoStore } from "../../api/src/store/mongo";
import { NapVault__factory, TestUSDC__factory, VaultLens__factory } from "../../typechain-types";
import { request } from "../api/helpers/app";
import { uniqueDbName } from "../api/helpers/mongo";
import { recordFigure } from "../helpers/figures";
import { ensureMongo } from "../helpers/services";
import { deployTo, kill, spawnApi, spawnHardhatNode, type Spawned } from "./processes";

/**
 * The indexer across processes: two spawned API instances on one MongoDB database index a spawned Hardhat node. The
 * lease holder is killed with SIGKILL while it works through small batches; the other takes the lease over and
 * finishes. The killed one is restarted and stays a reader until the new holder is killed too. At the end the read
 * model equals the chain's own view (VaultLens) and holds every event exactly once, with an event log 1, 2, 3 ...
 */

/** Hardhat's first dev account (public test key): the local deployer, which may mint TestUSDC. */
const DEPLOYER_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

interface Status {
  indexer: { role: string; indexedBlock: number | null };
}

async function status(api: Spawned): Promise<Status["indexer"]> {
  return (await request<Status>(api.url, "GET", "/v1/status")).body.indexer;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 120_000, everyMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

describe("E2E: indexer killed with SIGKILL mid-run, lease taken over by a second instance (MongoDB)", function () {
  this.timeout(600_000);
  let node: Spawned;
  let work: string;
  let deployment: Deployment;
  let store: MongoStore;
  const apis: Spawned[] = [];
  let env: Record<string, string>;
  let depositCount = 0;

  async function deposits(count: number): Promise<void> {
    const provider = jsonRpcProvider(node.url, 31337);
    const signer = new NonceManager(new Wallet(DEPLOYER_KEY, provider));
    const owner = await signer.getAddress();
    const usdc = TestUSDC__factory.connect(deployment.usdc.address, signer);
    await (await usdc.mint(owner, BigInt(count) * 10_000_000n)).wait();
    const vaults = VAULT_IDS.map((id) => NapVault__factory.connect(deployment.vaults[id]!.address, signer));
    for (const vault of vaults) await (await usdc.approve(await vault.getAddress(), MaxUint256)).wait();
    for (let i = 0; i < count; i++) {
      await (await vaults[i % vaults.length].deposit(1_000_000n + BigInt(i), owner)).wait();
      depositCount += 1;
    }
    provider.destroy();
  }

  before(async function () {
    node = await spawnHardhatNode();
    work = mkdtempSync(join(tmpdir(), "nap-indexer-crash-"));
    await deployTo(node.url, work);
    deployment = await loadDeployment(join(work, "31337.json"), 31337);
    const uri = await ensureMongo();
    const dbName = uniqueDbName("indexer_crash");
    store = await connectMongoStore({ uri, dbName });
    env = {
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(work, "31337.json"),
      MONGODB_URI: uri,
      MONGODB_DB: dbName,
      RATE_LIMITS_DISABLED: "true",
      // Small batches, so that the range takes the writer many steps: it must still be part-way when both
      // instances answer (a faster indexer once finished the range before the second instance was up).
      INDEXER_BATCH_BLOCKS: "2",
      INDEXER_POLL_MS: "100",
      INDEXER_LEASE_TTL_MS: "2000",
    };
    await deposits(90);
  });

  after(async function () {
    for (const api of apis) await kill(api.child);
    if (node) await kill(node.child);
    if (store) {
      await store.db.dropDatabase();
      await store.close();
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("loses and doubles nothing, and the other instance finishes the work", async function () {
    const provider = jsonRpcProvider(node.url, 31337);
    const head = await provider.getBlockNumber();
    // Both started at once, so that the second is up while the first still indexes.
    const [first, second] = await Promise.all([spawnApi(env), spawnApi(env)]);
    apis.push(first, second);
    // Whichever took the lease is the writer; kill it once it is part-way through the range.
    const writer = await until(
      "a writer part-way",
      async () => {
        for (const api of [first, second]) {
          const s = await status(api);
          if (s.role === "writer" && (s.indexedBlock ?? 0) > 20 && (s.indexedBlock ?? 0) < head - 20) return api;
        }
        return undefined;
      },
      { everyMs: 20 },
    );
    const reader = writer === first ? second : first;
    await kill(writer.child);
    const killedMs = Date.now();
    let tookOverMs: number | undefined;
    const killedAt = (await store.readModel.cursor())!.height;
    expect(killedAt).to.be.lessThan(head);

    await until("the other instance writes and reaches the head", async () => {
      const s = await status(reader);
      if (s.role === "writer") tookOverMs ??= Date.now() - killedMs;
      return s.role === "writer" && s.indexedBlock === head ? s : undefined;
    });
    recordFigure(
      this.test!.title,
      `lease taken over ${tookOverMs} ms after the writer's SIGKILL (TTL 2 s, poll 100 ms)`,
    );

    // The killed instance comes back as a reader; then the writer dies too, and it finishes new blocks.
    const restarted = await spawnApi(env);
    apis.push(restarted);
    expect((await status(restarted)).role).to.equal("reader");
    await kill(reader.child);
    await deposits(12);
    const newHead = await provider.getBlockNumber();
    await until("the restarted instance takes over and reaches the new head", async () => {
      const s = await status(restarted);
      return s.role === "writer" && s.indexedBlock === newHead ? s : undefined;
    });

    // Every deposit once; the event log without gaps or repeats.
    const depositEvents = await store.readModel.events({ names: ["Deposit"] });
    expect(depositEvents).to.have.length(depositCount);
    const log = await store.readModel.eventLog(0, 1_000_000);
    expect(log.map((e) => e.seq)).to.deep.equal(log.map((_, i) => i + 1));
    const added = log.filter((e) => e.action === "added").map((e) => e.event.id);
    expect(new Set(added).size).to.equal(added.length);
    expect(added.sort()).to.deep.equal((await store.readModel.events({})).map((e) => e.id).sort());

    // The read model against the chain's own view at the indexed block, through the restarted instance's REST.
    const lens = VaultLens__factory.connect(deployment.contracts.VaultLens!.address, provider);
    const views = await lens.vaults(
      VAULT_IDS.map((id) => deployment.vaults[id]!.address),
      { blockTag: newHead },
    );
    const list = await request<{ vaults: { address: string; tvl: string }[] }>(restarted.url, "GET", "/v1/vaults");
    for (const view of views) {
      expect(list.body.vaults.find((v) => v.address === view.vault)?.tvl).to.equal(view.totalAssets.toString());
    }
    const owner = new Wallet(DEPLOYER_KEY).address;
    const txs = await request<{ total: number }>(restarted.url, "GET", `/v1/users/${owner}/transactions?type=DEPOSIT`);
    expect(txs.body.total).to.equal(depositCount);
    provider.destroy();
  });
});
