import type { ExampleTable } from "../examples";
import { SIGNED_WRITE_ERROR_EXAMPLES, SIGNED_WRITE_EXAMPLES } from "./signedWriteExamples";
import { dataError, type DataErrorExample } from "./errorExample";

/**
 * The data API's examples (doors/examples.ts): its answers on a local stack after one agent's session (two deposits,
 * a withdrawal, an ERC-7540 request, claim and cancel, a strategy), a data key issued to that agent, and a Node
 * Operator key's heartbeat. Lists are cut to their first entries.
 */
export const DATA_EXAMPLES: ExampleTable = {
  ...SIGNED_WRITE_EXAMPLES,
  "GET /v1/vaults": {
    responses: {
      200: {
        vaults: [
          {
            address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
            name: "NAP Aggressive USDC",
            symbol: "napAGG",
            tvl: "49997261",
            tvlUsd: 49.997261,
            apy: -1.987287514733782,
            riskLevel: "aggressive",
            strategies: 0,
            isERC7540: true,
            fulfillmentDelay: 86400,
          },
          {
            address: "0xc3e53F4d16Ae77Db1c982e75a937B9f60FE63690",
            name: "NAP Configurable USDC",
            symbol: "napCFG",
            tvl: "0",
            tvlUsd: 0,
            apy: 0,
            riskLevel: "moderate",
            strategies: 0,
            isERC7540: true,
            fulfillmentDelay: 3600,
          },
        ],
        totalTvl: "249741788",
        totalTvlUsd: 249.741788,
        indexedBlock: 60,
      },
    },
  },
  "POST /v1/vaults/batch": {
    request: { vaultIds: ["moderate", "aggressive"] },
    responses: {
      200: {
        vaults: [
          {
            address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
            name: "NAP Moderate USDC",
            symbol: "napMOD",
            asset: "0x0165878A594ca255338adfa4d48449f69242Eb8F",
            tvl: "199744527",
            tvlUsd: 199.744527,
            totalShares: "199750000000000",
            pricePerShare: "999972",
            shareDecimals: 12,
            apy: {
              current: -1.016680710258988,
              "7d": -1.0166338899084915,
              "30d": -1.0166338899084915,
              inception: -1.0166338899084915,
            },
            fees: { management: 1, performance: 15, hurdle: 5 },
            riskLevel: "moderate",
            strategies: [],
            isERC7540: false,
            fulfillmentDelay: 0,
            paused: false,
            createdAt: "2026-11-26T16:22:01.000Z",
            indexedBlock: 60,
          },
          {
            address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
            name: "NAP Aggressive USDC",
            symbol: "napAGG",
            asset: "0x0165878A594ca255338adfa4d48449f69242Eb8F",
            tvl: "49997261",
            tvlUsd: 49.997261,
            totalShares: "50000000000000",
            pricePerShare: "999945",
            shareDecimals: 12,
            apy: {
              current: -1.987287514733782,
              "7d": -1.9872419797033802,
              "30d": -1.9872419797033802,
              inception: -1.9872419797033802,
            },
            fees: { management: 2, performance: 20, hurdle: 8 },
            riskLevel: "aggressive",
            strategies: [],
            isERC7540: true,
            fulfillmentDelay: 86400,
            paused: false,
            createdAt: "2026-11-26T16:21:56.000Z",
            indexedBlock: 60,
          },
        ],
        notFound: [],
      },
    },
  },
  "GET /v1/vaults/:address": {
    responses: {
      200: {
        address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
        name: "NAP Aggressive USDC",
        symbol: "napAGG",
        asset: "0x0165878A594ca255338adfa4d48449f69242Eb8F",
        tvl: "49997261",
        tvlUsd: 49.997261,
        totalShares: "50000000000000",
        pricePerShare: "999945",
        shareDecimals: 12,
        apy: {
          current: -1.987287514733782,
          "7d": -1.9872419797033802,
          "30d": -1.9872419797033802,
          inception: -1.9872419797033802,
        },
        fees: { management: 2, performance: 20, hurdle: 8 },
        riskLevel: "aggressive",
        strategies: [],
        isERC7540: true,
        fulfillmentDelay: 86400,
        paused: false,
        createdAt: "2026-11-26T16:21:56.000Z",
        indexedBlock: 60,
      },
    },
  },
  "GET /v1/vaults/:address/history": {
    responses: {
      200: {
        address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
        period: "30d",
        interval: "1d",
        points: [
          {
            timestamp: "2026-11-26T16:22:36.000Z",
            block: 50,
            tvl: "100000000",
            tvlUsd: 100,
            totalShares: "100000000000000",
            pricePerShare: "1000000",
            apy: 0,
          },
          {
            timestamp: "2026-11-27T16:22:47.000Z",
            block: 60,
            tvl: "49997261",
            tvlUsd: 49.997261,
            totalShares: "50000000000000",
            pricePerShare: "999945",
            apy: -1.987287514733782,
          },
        ],
      },
    },
  },
  "GET /v1/strategies": {
    responses: {
      200: {
        strategies: [
          {
            id: "0x755bfa63f4f413d9e27872c5f5e2fcd8d5293550aadc6bd930c8b818d22cb2b7",
            name: "USDC basis carry",
            owner: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
            status: "SHADOW",
            stage: "shadow",
            allocation: 0,
            apy: 0,
            riskScore: 0,
            sharpeRatio: 0,
            maxDrawdown: 0,
            createdAt: "2026-11-27T16:22:44.000Z",
          },
        ],
      },
    },
  },
  "GET /v1/strategies/:id/performance": {
    responses: {
      200: {
        id: "0x755bfa63f4f413d9e27872c5f5e2fcd8d5293550aadc6bd930c8b818d22cb2b7",
        name: "USDC basis carry",
        owner: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        status: "SHADOW",
        stage: "shadow",
        allocation: 0,
        apy: 0,
        riskScore: 0,
        sharpeRatio: 0,
        maxDrawdown: 0,
        createdAt: "2026-11-27T16:22:44.000Z",
        description: "Holds USDC in the moderate vault and rotates to conservative when funding turns negative.",
        vaults: [],
        transitions: [],
      },
    },
  },
  "GET /v1/users/:address/positions": {
    responses: {
      200: {
        address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        positions: [
          {
            vault: {
              address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
              name: "NAP Aggressive USDC",
              symbol: "napAGG",
            },
            shares: "50000000000000",
            pendingRedeemShares: "0",
            claimableAssets: "0",
            value: "49997250",
            costBasis: "50000000",
            realizedPnl: "-2740",
            pnl: "-5490",
            pnlPercent: -0.00549,
            depositedAt: "2026-11-26T16:22:34.000Z",
          },
          {
            vault: {
              address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
              name: "NAP Moderate USDC",
              symbol: "napMOD",
            },
            shares: "199750000000000",
            pendingRedeemShares: "0",
            claimableAssets: "0",
            value: "199744407",
            costBasis: "199750000",
            realizedPnl: "0",
            pnl: "-5593",
            pnlPercent: -0.0022372,
            depositedAt: "2026-11-26T16:22:32.000Z",
          },
        ],
        indexedBlock: 60,
      },
    },
  },
  "GET /v1/users/:address/transactions": {
    responses: {
      200: {
        address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        transactions: [
          {
            hash: "0xf5e99f0483b5664f17c7b71958b5655477addf1238b37a30ae6f6a811d181d77",
            type: "REDEEM_REQUEST",
            vault: {
              address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
              name: "NAP Aggressive USDC",
              symbol: "napAGG",
            },
            user: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
            amount: "0",
            shares: "50000000000000",
            status: "FAILED",
            timestamp: "2026-11-27T16:22:41.000Z",
            block: 54,
          },
          {
            hash: "0x8843de97d763c2c4893c0d15afd17437070171c2d1bbd47373bc0bbeee7453f5",
            type: "CLAIM",
            vault: {
              address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
              name: "NAP Aggressive USDC",
              symbol: "napAGG",
            },
            user: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
            amount: "49997260",
            shares: "50000000000000",
            status: "CLAIMED",
            timestamp: "2026-11-27T16:22:40.000Z",
            block: 53,
          },
        ],
        total: 6,
        limit: 50,
        offset: 0,
        indexedBlock: 60,
      },
    },
  },
  "GET /v1/protocol/stats": {
    responses: {
      200: {
        totalTvl: "249741788",
        totalTvlUsd: 249.741788,
        vaultCount: 6,
        userCount: 1,
        transactionCount: 6,
        depositVolume: "350000000",
        withdrawVolume: "100247260",
        feesAccrued: "0",
        strategyCount: 1,
        liveStrategyCount: 0,
        proposalCount: 0,
        voteCount: 0,
        indexedBlock: 60,
        indexedAt: "2026-11-27T16:22:47.000Z",
      },
    },
  },
  "GET /v1/status": {
    responses: {
      200: {
        status: "ok",
        version: "0.1.0",
        chainId: 31337,
        chainName: "hardhat",
        indexer: {
          role: "writer",
          indexedBlock: 60,
          indexedHash: "0x33bd0637a654c7eda3d15286c22c807327cf606918cb9c3d5cc59eb835360cb3",
          headBlock: 60,
          lagBlocks: 0,
          finalityDepth: 0,
          halt: null,
          lastError: null,
        },
      },
    },
  },
  "GET /v1/rate-limit-status": {
    responses: {
      200: {
        tier: "public",
        counted_by: "ip",
        key_id: null,
        enforced: true,
        limits: {
          minute: { limit: 60, remaining: 47, reset: 1795710180 },
          day: { limit: 10000, remaining: 9987, reset: 1795737600 },
        },
        headers_window: "minute",
      },
    },
  },
  "GET /v1/auth/token-info": {
    responses: {
      200: {
        key_id: "dk_6652b3dc9506eac7",
        key_prefix: "napd-hPVYDIG",
        name: "dashboard",
        owner: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        tier: "authenticated",
        scopes: ["vaults:read", "users:read"],
        issued_by: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        created_at: "2026-11-26T16:22:02.262Z",
        expires_at: "2027-02-24T16:22:02.262Z",
        revoked_at: null,
        state: "active",
        permissions: ["vaults:read", "users:read"],
        expires_in_seconds: 7775999,
        limits: {
          minute: { limit: 300, remaining: 299, reset: 1795710180 },
          day: { limit: 100000, remaining: 99999, reset: 1795737600 },
        },
      },
    },
  },
  "GET /v1/auth/nonce": {
    responses: {
      200: {
        nonce: "16be8f3ce23555f10cf62ee55b27bc02",
        message:
          "127.0.0.1:33153 wants you to sign in with your Ethereum account:\n0xc57A1C06B39b37D147A68629f3A58757478A6a8d\n\nI authorize the NAP data API to issue an API key for this wallet.\n\nURI: http://127.0.0.1:33153\nVersion: 1\nChain ID: 31337\nNonce: 16be8f3ce23555f10cf62ee55b27bc02\nIssued At: 2026-11-26T16:22:02Z\nExpiration Time: 2026-11-26T16:32:02Z\nRequest ID: 1795710122",
        expires_in_seconds: 600,
      },
    },
  },
  "POST /v1/auth/keys": {
    request: { name: "dashboard", scopes: ["vaults:read", "users:read"], expires_in_days: 90 },
    responses: {
      201: {
        key: "napd-hPVYDIGHygMl9z29cxps5cWGfBxewG2N",
        key_id: "dk_6652b3dc9506eac7",
        key_prefix: "napd-hPVYDIG",
        name: "dashboard",
        owner: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        tier: "authenticated",
        scopes: ["vaults:read", "users:read"],
        issued_by: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        created_at: "2026-11-26T16:22:02.262Z",
        expires_at: "2027-02-24T16:22:02.262Z",
        revoked_at: null,
        state: "active",
      },
    },
  },
  "GET /v1/auth/keys": {
    responses: {
      200: {
        owner: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        keys: [
          {
            key_id: "dk_6652b3dc9506eac7",
            key_prefix: "napd-hPVYDIG",
            name: "dashboard",
            owner: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
            tier: "authenticated",
            scopes: ["vaults:read", "users:read"],
            issued_by: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
            created_at: "2026-11-26T16:22:02.262Z",
            expires_at: "2027-02-24T16:22:02.262Z",
            revoked_at: null,
            state: "active",
          },
        ],
      },
    },
  },
  "DELETE /v1/auth/keys/:id": {
    responses: {
      200: {
        key_id: "dk_6652b3dc9506eac7",
        key_prefix: "napd-hPVYDIG",
        name: "dashboard",
        owner: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        tier: "authenticated",
        scopes: ["vaults:read", "users:read"],
        issued_by: "agent:543b502e-26a6-4137-b660-90cc7df8b857",
        created_at: "2026-11-26T16:22:02.262Z",
        expires_at: "2027-02-24T16:22:02.262Z",
        revoked_at: "2026-11-26T16:22:02.385Z",
        state: "revoked",
      },
    },
  },
  "GET /v1/nodes": {
    responses: {
      200: {
        nodes: [
          {
            node_id: "acme-eu-1",
            role: "external",
            version: "0.1.0",
            url: "https://nap.acme-nodes.example/",
            status: "up",
            started_at: "2026-11-26T16:22:02.331Z",
            last_heartbeat_at: "2026-11-26T16:22:02.342Z",
            external: true,
          },
          {
            node_id: "c103656b-eefd-47c7-aa5e-e25aa40ac2c1",
            role: "api+indexer",
            version: "0.1.0",
            url: "http://127.0.0.1:33153",
            status: "up",
            started_at: "2026-11-26T16:21:52.750Z",
            last_heartbeat_at: "2026-11-26T16:21:52.750Z",
            external: false,
          },
        ],
        summary: { total: 2, up: 2, stale: 0, down: 0 },
        heartbeat_interval_seconds: 15,
      },
    },
  },
  "POST /v1/nodes/heartbeat": {
    request: {
      node_id: "acme-eu-1",
      version: "0.1.0",
      url: "https://nap.acme-nodes.example/",
      started_at: "2026-11-26T16:22:02.331Z",
    },
    responses: {
      200: {
        node_id: "acme-eu-1",
        role: "external",
        version: "0.1.0",
        url: "https://nap.acme-nodes.example/",
        status: "up",
        started_at: "2026-11-26T16:22:02.331Z",
        last_heartbeat_at: "2026-11-26T16:22:02.342Z",
        external: true,
      },
    },
  },
};

const AGENT_WALLET = "0x733A2AEfbfF542fF6130628bbC96fE5d38597095";
const STRATEGY_ID = "0x755bfa63f4f413d9e27872c5f5e2fcd8d5293550aadc6bd930c8b818d22cb2b7";

/** The example body of each error code the document lists: the message and details this service sends with it. */
export const DATA_ERROR_EXAMPLES: Readonly<Record<string, DataErrorExample>> = {
  ...SIGNED_WRITE_ERROR_EXAMPLES,
  INVALID_ADDRESS: dataError("INVALID_ADDRESS", "address: '0x1234' is not an Ethereum address", { field: "address" }),
  INVALID_BODY: dataError("INVALID_BODY", "vaultIds: Too small: expected array to have >=1 items", {
    field: "vaultIds",
  }),
  INVALID_INTERVAL: dataError("INVALID_INTERVAL", "interval: must be one of 1h, 1d, 1w", { field: "interval" }),
  INVALID_PERIOD: dataError("INVALID_PERIOD", "period: must be one of 24h, 7d, 30d, 90d, 1y, all", { field: "period" }),
  TOO_MANY_POINTS: dataError(
    "TOO_MANY_POINTS",
    "period all at interval 1h gives 1440 points; at most 1000: choose a longer interval",
    { points: 1440, maxPoints: 1000 },
  ),
  INVALID_LIMIT: dataError("INVALID_LIMIT", "limit: must be a whole number from 1 to 500", { field: "limit" }),
  INVALID_OFFSET: dataError("INVALID_OFFSET", "offset: must be a whole number of at least 0", { field: "offset" }),
  INVALID_TRANSACTION_TYPE: dataError(
    "INVALID_TRANSACTION_TYPE",
    "type: must be one of DEPOSIT, WITHDRAW, REDEEM_REQUEST, CLAIM, CANCEL",
    { field: "type" },
  ),
  INVALID_MIN_BLOCK: dataError(
    "INVALID_MIN_BLOCK",
    "minBlock: block 99999999 is beyond the chain's head (58); send the block your write was mined in",
    { field: "minBlock" },
  ),
  INVALID_STRATEGY_ID: dataError("INVALID_STRATEGY_ID", "id: must be a 0x-prefixed 32-byte hex strategy id", {
    field: "id",
  }),
  INVALID_KEY_ID: dataError("INVALID_KEY_ID", "key_id: must be dk_ and 16 hex characters", { field: "key_id" }),
  INVALID_NODE_ID: dataError("INVALID_NODE_ID", "node_id: must be 1-64 of A-Z a-z 0-9 . _ -", { field: "node_id" }),
  INVALID_NONCE: dataError("INVALID_NONCE", "nonce: must be the 32 hex characters of GET /v1/auth/nonce", {
    field: "nonce",
  }),
  INVALID_OWNER: dataError("INVALID_OWNER", "owner: must be 1-64 of A-Z a-z 0-9 . _ -", { field: "owner" }),
  INVALID_SIGNATURE: dataError("INVALID_SIGNATURE", "signature: must be a 0x-prefixed hex signature", {
    field: "signature",
  }),
  INVALID_URL: dataError("INVALID_URL", "url: must be an http or https URL", { field: "url" }),
  INVALID_VERSION: dataError("INVALID_VERSION", "version: must be 1-32 characters of A-Z a-z 0-9 . + _ -", {
    field: "version",
  }),
  INVALID_WALLET: dataError("INVALID_WALLET", "wallet: must be a 0x-prefixed 42-character hex address", {
    field: "wallet",
  }),
  UNKNOWN_PARAMETER: dataError("UNKNOWN_PARAMETER", "sort: unknown query parameter; allowed: minBlock", {
    field: "sort",
  }),
  PAYLOAD_TOO_LARGE: dataError("PAYLOAD_TOO_LARGE", "body: larger than the limit of 65536 bytes", { max: 65536 }),
  VAULT_NOT_FOUND: dataError("VAULT_NOT_FOUND", "no vault at 0x0000000000000000000000000000000000000000", {
    address: "0x0000000000000000000000000000000000000000",
  }),
  STRATEGY_NOT_FOUND: dataError("STRATEGY_NOT_FOUND", `no strategy ${STRATEGY_ID.replace(/.$/, "8")}`, {
    id: STRATEGY_ID.replace(/.$/, "8"),
  }),
  KEY_NOT_FOUND: dataError("KEY_NOT_FOUND", "no key dk_0000000000000000 among this caller's keys", {
    key_id: "dk_0000000000000000",
  }),
  UNAUTHORIZED: dataError("UNAUTHORIZED", "unknown API key"),
  INSUFFICIENT_SCOPE: dataError(
    "INSUFFICIENT_SCOPE",
    `this key lacks the scope users:read that GET /v1/users/${AGENT_WALLET}/positions needs; its scopes: vaults:read`,
    { required_scope: "users:read", key_scopes: ["vaults:read"], key_id: "dk_6652b3dc9506eac7" },
  ),
  KEY_LIMIT_REACHED: dataError(
    "KEY_LIMIT_REACHED",
    "agent:543b502e-26a6-4137-b660-90cc7df8b857 already holds 10 active keys: revoke one with DELETE /v1/auth/keys/{key_id}",
    { owner: "agent:543b502e-26a6-4137-b660-90cc7df8b857", limit: 10 },
  ),
  NODE_ID_TAKEN: dataError("NODE_ID_TAKEN", "node id acme-eu-1 is registered by someone else", {
    node_id: "acme-eu-1",
  }),
  RATE_LIMITED: dataError(
    "RATE_LIMITED",
    "rate limit exceeded: 60 requests per minute on the public tier; retry in 17 s",
    {
      tier: "public",
      window: "minute",
      limit: 60,
      reset: 1795710180,
    },
  ),
  NOT_YET_INDEXED: dataError("NOT_YET_INDEXED", "block 61 is not indexed yet (indexed: 58); retry in 1 s", {
    minBlock: 61,
    indexedBlock: 58,
  }),
  UNAVAILABLE: dataError("UNAVAILABLE", "rate limiter unavailable: try again shortly"),
  INTERNAL_ERROR: dataError("INTERNAL_ERROR", "internal error"),
};
