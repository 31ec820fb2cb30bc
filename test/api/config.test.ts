import { expect } from "chai";
import { availableParallelism } from "node:os";
import { ConfigError, loadConfig } from "../../api/src/config";

describe("API configuration", function () {
  it("applies the documented defaults", function () {
    const config = loadConfig({});
    expect(config).to.deep.equal({
      port: 3000,
      host: "127.0.0.1",
      metrics: undefined,
      readyMaxLagBlocks: 20,
      shutdownTimeoutMs: 10000,
      mongodbUri: undefined,
      mongodbDb: "nap",
      redisUrl: undefined,
      rpcUrl: "http://127.0.0.1:8545",
      chainId: undefined,
      deploymentFile: undefined,
      publicUrl: "http://127.0.0.1:3000",
      serviceDomain: "127.0.0.1:3000",
      operatorApiKeys: [],
      trustedProxyCount: 0,
      rateLimitsDisabled: false,
      logLevel: "info",
      serverWalletMnemonic: undefined,
      serverWalletKeystore: undefined,
      remoteSignerUrl: undefined,
      bodyLimitBytes: 65536,
      corsAllowedOrigins: [],
      // One worker per core beyond the HTTP thread, at most 2: 1 on the 2-core CI machine, 0 on a single core.
      signatureWorkers: Math.min(2, availableParallelism() - 1),
      strategyScreening: "auto",
      indexer: {
        enabled: true,
        finalityDepth: undefined,
        batchBlocks: 2_000,
        minBlockInterval: 1,
        pollMs: 1_000,
        reorgWindow: 128,
        leaseTtlMs: 3_000,
      },
      ws: {
        idleTimeoutMs: 90_000,
        heartbeatMs: 30_000,
        maxConnectionsPerIp: 20,
        maxConnectionsPerKey: 50,
        maxSubscriptions: 50,
        maxBufferedBytes: 8_388_608,
        maxReplay: 2_000,
        maxMessagesPerSecond: 10,
        maxMessageBurst: 100,
        maxBacklog: 16,
      },
      subscriptionCaps: {
        connectionsPerIp: 100,
        connectionsPerKey: 50,
        subscriptionsPerIp: 100,
        subscriptionsPerKey: 500,
      },
      subscriptionMessages: { maxMessagesPerSecond: 20, maxMessageBurst: 250, maxBacklog: 16 },
    });
  });

  it("reads every setting", function () {
    const config = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      MONGODB_URI: "mongodb://127.0.0.1:27017/",
      MONGODB_DB: "nap_prod",
      REDIS_URL: "redis://127.0.0.1:6379",
      RPC_URL: "https://sepolia.base.org",
      CHAIN_ID: "84532",
      DEPLOYMENT_FILE: "deployments/84532.json",
      PUBLIC_URL: "https://api.nap.example/",
      AGENT_API_KEYS: "abcdefghijklmnop, qrstuvwxyz012345",
      TRUSTED_PROXY_COUNT: "2",
      RATE_LIMITS_DISABLED: "1",
      LOG_LEVEL: "warn",
      SERVER_WALLET_MNEMONIC: " myth like bonus scare over problem client lizard pioneer submit female collect ",
      STRATEGY_SCREENING: "off",
      INDEXER_ENABLED: "false",
      INDEXER_FINALITY_DEPTH: "10",
      INDEXER_BATCH_BLOCKS: "500",
      INDEXER_MIN_BLOCK_INTERVAL: "2",
      INDEXER_POLL_MS: "250",
      INDEXER_REORG_WINDOW: "64",
      INDEXER_LEASE_TTL_MS: "5000",
      WS_IDLE_TIMEOUT_MS: "60000",
      WS_HEARTBEAT_MS: "15000",
      WS_MAX_CONNECTIONS_PER_IP: "5",
      WS_MAX_CONNECTIONS_PER_KEY: "10",
      WS_MAX_SUBSCRIPTIONS: "8",
      WS_MAX_BUFFERED_BYTES: "65536",
      WS_MAX_REPLAY: "100",
      WS_MAX_MESSAGES_PER_SECOND: "4",
      WS_MAX_MESSAGE_BURST: "12",
      WS_MAX_BACKLOG: "3",
      GRAPHQL_WS_CONNECTIONS_PER_IP: "10",
      GRAPHQL_WS_CONNECTIONS_PER_KEY: "20",
      GRAPHQL_WS_SUBSCRIPTIONS_PER_IP: "30",
      GRAPHQL_WS_SUBSCRIPTIONS_PER_KEY: "40",
      GRAPHQL_WS_MAX_MESSAGES_PER_SECOND: "5",
      GRAPHQL_WS_MAX_MESSAGE_BURST: "50",
      GRAPHQL_WS_MAX_BACKLOG: "6",
    });
    expect(config.ws).to.deep.equal({
      idleTimeoutMs: 60_000,
      heartbeatMs: 15_000,
      maxConnectionsPerIp: 5,
      maxConnectionsPerKey: 10,
      maxSubscriptions: 8,
      maxBufferedBytes: 65_536,
      maxReplay: 100,
      maxMessagesPerSecond: 4,
      maxMessageBurst: 12,
      maxBacklog: 3,
    });
    expect(config.subscriptionCaps).to.deep.equal({
      connectionsPerIp: 10,
      connectionsPerKey: 20,
      subscriptionsPerIp: 30,
      subscriptionsPerKey: 40,
    });
    expect(config.subscriptionMessages).to.deep.equal({ maxMessagesPerSecond: 5, maxMessageBurst: 50, maxBacklog: 6 });
    expect(config.indexer).to.deep.equal({
      enabled: false,
      finalityDepth: 10,
      batchBlocks: 500,
      minBlockInterval: 2,
      pollMs: 250,
      reorgWindow: 64,
      leaseTtlMs: 5_000,
    });
    expect(config.strategyScreening).to.equal("off");
    expect(config.port).to.equal(8080);
    expect(config.chainId).to.equal(84532);
    expect(config.publicUrl).to.equal("https://api.nap.example");
    expect(config.serviceDomain).to.equal("api.nap.example");
    expect(config.operatorApiKeys).to.deep.equal(["abcdefghijklmnop", "qrstuvwxyz012345"]);
    expect(config.trustedProxyCount).to.equal(2);
    expect(config.rateLimitsDisabled).to.equal(true);
    expect(config.serverWalletMnemonic).to.equal(
      "myth like bonus scare over problem client lizard pioneer submit female collect",
    );
  });

  for (const [env, message] of [
    [{ PORT: "70000" }, "PORT"],
    [{ PORT: "http" }, "PORT"],
    [{ MONGODB_URI: "postgres://x" }, "MONGODB_URI: must use mongodb or mongodb+srv"],
    [{ REDIS_URL: "not a url" }, "REDIS_URL"],
    [{ RPC_URL: "ftp://x" }, "RPC_URL"],
    [{ CHAIN_ID: "-1" }, "CHAIN_ID"],
    [{ TRUSTED_PROXY_COUNT: "x" }, "TRUSTED_PROXY_COUNT"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ RATE_LIMITS_DISABLED: "maybe" }, "RATE_LIMITS_DISABLED"],
    [{ SERVER_WALLET_MNEMONIC: "one two three" }, "SERVER_WALLET_MNEMONIC: must be a BIP-39 mnemonic"],
    [{ AGENT_API_KEYS: "good-key-0123456789,short" }, "AGENT_API_KEYS: key number 2"],
    [{ STRATEGY_SCREENING: "manual" }, "STRATEGY_SCREENING"],
    [{ INDEXER_FINALITY_DEPTH: "-1" }, "INDEXER_FINALITY_DEPTH"],
    [{ INDEXER_BATCH_BLOCKS: "0" }, "INDEXER_BATCH_BLOCKS"],
    [{ INDEXER_ENABLED: "perhaps" }, "INDEXER_ENABLED"],
    [{ WS_IDLE_TIMEOUT_MS: "10" }, "WS_IDLE_TIMEOUT_MS"],
    [{ WS_MAX_CONNECTIONS_PER_IP: "0" }, "WS_MAX_CONNECTIONS_PER_IP"],
    [{ WS_MAX_SUBSCRIPTIONS: "many" }, "WS_MAX_SUBSCRIPTIONS"],
    [{ GRAPHQL_WS_CONNECTIONS_PER_IP: "0" }, "GRAPHQL_WS_CONNECTIONS_PER_IP"],
    [{ GRAPHQL_WS_SUBSCRIPTIONS_PER_KEY: "many" }, "GRAPHQL_WS_SUBSCRIPTIONS_PER_KEY"],
  ] as Array<[Record<string, string>, string]>) {
    it(`fails fast naming ${Object.keys(env)[0]}`, function () {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as Error).message).to.include(message);
      if (env.AGENT_API_KEYS) expect((error as Error).message).to.not.include("short");
      if (env.SERVER_WALLET_MNEMONIC) expect((error as Error).message).to.not.include("three");
    });
  }
});
