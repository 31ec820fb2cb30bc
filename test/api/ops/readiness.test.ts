import { expect } from "chai";
import type { ChainAccess } from "../../../api/src/chain";
import { loadConfig } from "../../../api/src/config";
import { createLogger } from "../../../api/src/logger";
import { startServer } from "../../../api/src/server";
import { Health, type IndexerHealth, type StoreHealth } from "../../../api/src/usecases/health";
import { Readiness } from "../../../api/src/usecases/readiness";
import { ensureRedis } from "../../helpers/services";

/** A chain whose RPC answers or not, and a store that answers or not: all /ready reads of them. */
function healthOf(state: { rpc: boolean; store: boolean; indexer?: IndexerHealth }): Health {
  const chain = { chainId: 31337, chainName: "hardhat", isConnected: async () => state.rpc } as unknown as ChainAccess;
  const store = {
    kind: "memory" as const,
    health: async (): Promise<StoreHealth> => ({ kind: "memory", connected: state.store }),
  };
  const health = new Health(chain, store);
  const indexer = state.indexer;
  if (indexer) health.watchIndexer(async () => indexer);
  return health;
}

const indexerAt = (lagBlocks: number | null, halt: string | null = null): IndexerHealth => ({
  role: "writer",
  indexedBlock: lagBlocks === null ? null : 100 - lagBlocks,
  headBlock: 100,
  lagBlocks,
  halt,
});

describe("Ops: readiness apart from liveness", function () {
  describe("Readiness checks", function () {
    const settings = { maxLagBlocks: 20 };

    it("is ready when the store, the RPC, Redis and the indexer within its bound all answer", async function () {
      const readiness = new Readiness(healthOf({ rpc: true, store: true, indexer: indexerAt(20) }), settings);
      readiness.watchRedis(async () => "PONG");
      expect(await readiness.check()).to.deep.equal({
        ready: true,
        checks: { serving: true, store: true, rpc: true, redis: true, indexer: true },
      });
    });

    it("leaves Redis and the indexer out when the service runs without them", async function () {
      const readiness = new Readiness(healthOf({ rpc: true, store: true }), settings);
      expect(await readiness.check()).to.deep.equal({
        ready: true,
        checks: { serving: true, store: true, rpc: true },
      });
    });

    it("is not ready when the read model trails the head by more than the bound", async function () {
      const readiness = new Readiness(healthOf({ rpc: true, store: true, indexer: indexerAt(21) }), settings);
      expect(await readiness.check()).to.deep.equal({
        ready: false,
        checks: { serving: true, store: true, rpc: true, indexer: false },
      });
    });

    it("is not ready when the indexer is halted or its lag is unknown", async function () {
      const halted = new Readiness(
        healthOf({ rpc: true, store: true, indexer: indexerAt(0, "reorg deeper") }),
        settings,
      );
      expect((await halted.check()).checks.indexer).to.equal(false);
      const unknown = new Readiness(healthOf({ rpc: true, store: true, indexer: indexerAt(null) }), settings);
      expect((await unknown.check()).checks.indexer).to.equal(false);
    });

    it("is not ready when the store or the RPC is away", async function () {
      const noStore = new Readiness(healthOf({ rpc: true, store: false }), settings);
      expect(await noStore.check()).to.deep.equal({
        ready: false,
        checks: { serving: true, store: false, rpc: true },
      });
      const noRpc = new Readiness(healthOf({ rpc: false, store: true }), settings);
      expect(await noRpc.check()).to.deep.equal({
        ready: false,
        checks: { serving: true, store: true, rpc: false },
      });
    });

    it("is not ready when Redis refuses or does not answer within 500 ms", async function () {
      const refusing = new Readiness(healthOf({ rpc: true, store: true }), settings);
      refusing.watchRedis(() => Promise.reject(new Error("ECONNREFUSED")));
      expect((await refusing.check()).checks).to.deep.equal({ serving: true, store: true, rpc: true, redis: false });
      const hung = new Readiness(healthOf({ rpc: true, store: true }), settings);
      hung.watchRedis(() => new Promise(() => undefined));
      const started = Date.now();
      expect((await hung.check()).ready).to.equal(false);
      expect(Date.now() - started).to.be.within(450, 1_500);
    });

    it("is not ready from the start of a shutdown on", async function () {
      const readiness = new Readiness(healthOf({ rpc: true, store: true }), settings);
      readiness.stopServing();
      expect(await readiness.check()).to.deep.equal({
        ready: false,
        checks: { serving: false, store: true, rpc: true },
      });
    });
  });

  describe("GET /ready and GET /health on a running server", function () {
    it("answers /ready 503 with the failing check while /health stays 200, and 503 once the shutdown began", async function () {
      const redisUrl = await ensureRedis();
      const config = loadConfig({
        PORT: "0",
        REDIS_URL: redisUrl,
        CHAIN_ID: "31337",
        RPC_URL: "http://127.0.0.1:9",
        DEPLOYMENT_FILE: "/nonexistent/31337.json",
        LOG_LEVEL: "silent",
      });
      const running = await startServer(config, createLogger("silent"));
      try {
        const live = await fetch(`${running.url}/health`);
        expect(live.status).to.equal(200);
        expect(await live.json()).to.deep.include({ status: "degraded", rpc_connected: false });
        const ready = await fetch(`${running.url}/ready`);
        expect(ready.status).to.equal(503);
        expect(ready.headers.get("cache-control")).to.equal("no-store");
        expect(await ready.json()).to.deep.equal({
          ready: false,
          // Without the chain the read model's lag is unknown too.
          checks: { serving: true, store: true, rpc: false, redis: true, indexer: false },
        });
      } finally {
        const closing = running.close();
        expect((await running.app.useCases.readiness.check()).checks.serving).to.equal(false);
        await closing;
      }
    });
  });
});
