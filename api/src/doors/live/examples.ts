import type { ExampleTable } from "../examples";

/**
 * The live API's examples (doors/examples.ts): the requests and answers of one agent's session against a local stack
 * (`npm start`'s chain and deployment): registration, the faucet, deposits, a withdrawal, an ERC-7540 request and its
 * claim after the fulfilment delay, a strategy, an operator's tier grant. Lists are cut to their first entries.
 */
export const LIVE_EXAMPLES: ExampleTable = {
  "GET /health": {
    responses: {
      200: {
        status: "ok",
        version: "0.1.0",
        chain_id: 31337,
        chain_name: "hardhat",
        rpc_connected: true,
        store: { kind: "memory", connected: true },
        indexer: { role: "writer", indexed_block: 43, head_block: 43, lag_blocks: 0, halt: null },
      },
    },
  },
  "GET /ready": {
    responses: {
      200: { ready: true, checks: { serving: true, store: true, rpc: true, indexer: true } },
      503: { ready: false, checks: { serving: true, store: true, rpc: false, indexer: true } },
    },
  },
  "GET /api/v1/agent/auth/nonce": {
    responses: {
      200: {
        nonce: "e1475abce9dee2f73da04edd93a66b87",
        message:
          "127.0.0.1:33153 wants you to sign in with your Ethereum account:\n0xc57A1C06B39b37D147A68629f3A58757478A6a8d\n\nI authorize the NAP agent service to register this wallet as an agent and to issue an API key for it.\n\nURI: http://127.0.0.1:33153\nVersion: 1\nChain ID: 31337\nNonce: e1475abce9dee2f73da04edd93a66b87\nIssued At: 2026-11-26T16:21:53Z\nExpiration Time: 2026-11-26T16:31:53Z\nRequest ID: 1795710113",
        expires_in_seconds: 600,
      },
    },
  },
  "POST /api/v1/agent/auth/register": {
    request: {
      wallet_address: "0xc57A1C06B39b37D147A68629f3A58757478A6a8d",
      signature:
        "0xd6324ede8e757cd6aada4570421eb4ed8429d676d1c08e2a83f35f2867650a5a60ff69f9d45b7832e26884574017ba000ab5376b4c1e04803f3fd0236f6422d91c",
      nonce: "e1475abce9dee2f73da04edd93a66b87",
      agent_name: "yield-scout",
      agent_type: "trading",
      description: "Moves idle USDC between the NAP vaults by risk level.",
      operator_address: "0xc57A1C06B39b37D147A68629f3A58757478A6a8d",
      framework: "langchain",
    },
    responses: {
      200: {
        success: true,
        agent_id: "543b502e-26a6-4137-b660-90cc7df8b857",
        agent_name: "yield-scout",
        api_key: "nap-HHOcvVEfzsfhptl7uYZrVTTLuHP6rcsF",
        api_key_prefix: "nap-HHOcvVEf",
        tier: "unverified",
        message: "Agent registered. Store the API key now: it is shown only once.",
      },
    },
  },
  "GET /api/v1/agent/auth/lookup": {
    responses: {
      200: {
        registered: true,
        agent_name: "yield-scout",
        tier: "unverified",
        status: "active",
        strategies_submitted: 0,
        performance_score: 0,
        api_key_prefix: "nap-HHOcvVEf",
        created_at: "2026-11-26T16:21:53.845Z",
      },
    },
  },
  "GET /api/v1/agents": {
    responses: {
      200: {
        agents: [{ agent_name: "yield-scout", tier: "unverified", performance_score: 0, strategies_submitted: 0 }],
        count: 1,
      },
    },
  },
  "GET /api/v1/agents/stats": {
    responses: { 200: { total_agents: 1, active_agents: 1, strategies_submitted: 0, total_deposits_usdc: 0 } },
  },
  "GET /api/v1/vaults": {
    responses: {
      200: {
        vaults: [
          {
            address: "0x84eA74d481Ee0A5332c457a4d796187F6Ba67fEB",
            name: "NAP Conservative USDC",
            asset: "USDC",
            total_assets: "0",
            apy: 0,
            status: "active",
          },
          {
            address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
            name: "NAP Moderate USDC",
            asset: "USDC",
            total_assets: "0",
            apy: 0,
            status: "active",
          },
        ],
        total: 6,
      },
    },
  },
  "GET /api/v1/agent/vault/positions": {
    responses: {
      200: {
        positions: [
          {
            vault_address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
            vault_name: "NAP Moderate USDC",
            shares: "250",
            value_usdc: "250",
          },
          {
            vault_address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
            vault_name: "NAP Aggressive USDC",
            shares: "100",
            value_usdc: "100",
          },
        ],
      },
    },
  },
  "POST /api/v1/agent/vault/deposit": {
    request: { vault_id: "moderate", amount_usdc: 250 },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        vault: "NAP Moderate USDC",
        vault_id: "moderate",
        vault_address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
        amount_usdc: 250,
        approve_tx: "0xa70ac41f781ff9682020535d53976361703c0ae74f56babe5ec5c8d484bc628b",
        deposit_tx: "0x95b962475d62fa5fa7f5b445d7ff7c2fc15cf9a7592e02981b35b7bad35c5b68",
        status: "confirmed",
        block_number: 46,
        shares_balance: "250000000000000",
      },
    },
  },
  "POST /api/v1/positions": {
    request: { wallet_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095" },
    responses: {
      200: {
        wallet_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        positions: [
          {
            vault_id: "moderate",
            vault_address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
            vault_name: "NAP Moderate USDC",
            shares: "250",
            shares_raw: "250000000000000",
            value_usdc: "250",
            pending_redeem_shares: "0",
            pending_redeem_ready_at: null,
            claimable_redeem_shares: "0",
            claimable_usdc: "0",
            claimable_cancel_shares: "0",
          },
          {
            vault_id: "aggressive",
            vault_address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
            vault_name: "NAP Aggressive USDC",
            shares: "100",
            shares_raw: "100000000000000",
            value_usdc: "100",
            pending_redeem_shares: "0",
            pending_redeem_ready_at: null,
            claimable_redeem_shares: "0",
            claimable_usdc: "0",
            claimable_cancel_shares: "0",
          },
        ],
        total: 2,
      },
    },
  },
  "POST /api/v1/agent/vault/withdraw": {
    request: { vault_id: "moderate", amount_usdc: 50.25 },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        vault_id: "moderate",
        vault: "NAP Moderate USDC",
        vault_address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
        status: "confirmed",
        block_number: 49,
        tx_hash: "0xbb6af3848b840280c67d3be3c969b4058f15738c2acd73f49528bfdcb14f199d",
        amount_usdc: 50.25,
        amount_raw: "50250000",
        shares: "50.25",
        shares_raw: "50250000000000",
        shares_balance: "199750000000000",
      },
    },
  },
  "POST /api/v1/agent/vault/redeem-request": {
    request: { vault_id: "aggressive", shares: "50000000000000" },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        vault_id: "aggressive",
        vault: "NAP Aggressive USDC",
        vault_address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
        status: "confirmed",
        block_number: 50,
        tx_hash: "0x3793effe5d40d28ce789bb1000e695c345b152497e89979568bde30bcbe72b78",
        shares: "50",
        shares_raw: "50000000000000",
        pending_shares_raw: "50000000000000",
        ready_at: 1795796556,
        permissionless_at: 1795800156,
      },
    },
  },
  "POST /api/v1/agent/vault/claim": {
    request: { vault_id: "aggressive" },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        vault_id: "aggressive",
        vault: "NAP Aggressive USDC",
        vault_address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
        status: "confirmed",
        block_number: 53,
        tx_hash: "0x8843de97d763c2c4893c0d15afd17437070171c2d1bbd47373bc0bbeee7453f5",
        amount_usdc: 49.99726,
        amount_raw: "49997260",
        shares: "50",
        shares_raw: "50000000000000",
        shares_balance: "50000000000000",
        fulfill_tx: "0xe7be45ce721de3634c301f094eef8d89c3a4724e6bfc200a39a98fb1dbf07f44",
        fulfilled_by: "relayer",
      },
    },
  },
  "POST /api/v1/agent/vault/redeem-cancel": {
    request: { vault_id: "aggressive" },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        vault_id: "aggressive",
        vault: "NAP Aggressive USDC",
        vault_address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
        status: "confirmed",
        block_number: 56,
        cancel_tx: "0x764d5a12647250a16a2343d563bd22d57447e7f8812fc8a8d9ac9120b616bb01",
        claim_tx: "0x454b07f28dbbf740781a3afc1ba23d3f43e1e77b9d8c6bfcf8d1907bb6ef3bd3",
        shares: "50",
        shares_raw: "50000000000000",
        shares_balance: "50000000000000",
      },
    },
  },
  "GET /api/v1/agent/transactions": {
    responses: {
      200: {
        transactions: [
          {
            tx_hash: "0x764d5a12647250a16a2343d563bd22d57447e7f8812fc8a8d9ac9120b616bb01",
            operation: "vault.redeem_cancel",
            status: "confirmed",
            from: "0x733a2aefbff542ff6130628bbc96fe5d38597095",
            to: "0xe6e340d132b5f46d1e472debcd681b2abc16e57e",
            nonce: 8,
            block_number: 55,
            gas_used: "46930",
            error: null,
            replaced_hashes: [],
            created_at: "2026-11-26T16:21:58.565Z",
            updated_at: "2026-11-26T16:21:58.583Z",
          },
          {
            tx_hash: "0x454b07f28dbbf740781a3afc1ba23d3f43e1e77b9d8c6bfcf8d1907bb6ef3bd3",
            operation: "vault.redeem_cancel.claim",
            status: "confirmed",
            from: "0x733a2aefbff542ff6130628bbc96fe5d38597095",
            to: "0xe6e340d132b5f46d1e472debcd681b2abc16e57e",
            nonce: 9,
            block_number: 56,
            gas_used: "50198",
            error: null,
            replaced_hashes: [],
            created_at: "2026-11-26T16:21:58.565Z",
            updated_at: "2026-11-26T16:21:58.628Z",
          },
        ],
      },
    },
  },
  "GET /api/v1/agent/transactions/:tx_hash": {
    responses: {
      200: {
        tx_hash: "0x764d5a12647250a16a2343d563bd22d57447e7f8812fc8a8d9ac9120b616bb01",
        operation: "vault.redeem_cancel",
        status: "confirmed",
        from: "0x733a2aefbff542ff6130628bbc96fe5d38597095",
        to: "0xe6e340d132b5f46d1e472debcd681b2abc16e57e",
        nonce: 8,
        block_number: 55,
        gas_used: "46930",
        error: null,
        replaced_hashes: [],
        created_at: "2026-11-26T16:21:58.565Z",
        updated_at: "2026-11-26T16:21:58.583Z",
      },
    },
  },
  "POST /api/v1/agent/strategy/submit": {
    request: {
      name: "USDC basis carry",
      description: "Holds USDC in the moderate vault and rotates to conservative when funding turns negative.",
      max_position_size_percent: 20,
      max_leverage: 200,
    },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        strategy_name: "USDC basis carry",
        strategy_id: "0x755bfa63f4f413d9e27872c5f5e2fcd8d5293550aadc6bd930c8b818d22cb2b7",
        dna_string: "0x2b7496348085792e648d5b89ae2b503a350cd44a56a980bcbd43e7ec629c8b69",
        risk_params: {
          max_position_size_percent: 20,
          max_leverage: 200,
          stop_loss_percent: 500,
          slippage_tolerance_bps: 100,
          correlation_threshold: 70,
          velocity_limit: 1000000,
          flash_loans_enabled: false,
        },
        tx_hash: "0x7fe4811ec513927f77b9c4d5680d873805fb1d52f9bfb80e75db34775380894e",
        status: "confirmed",
        strategy_status: "shadow",
        block_number: 57,
        gas_used: 257517,
      },
    },
  },
  "GET /api/v1/agent/strategy/list": {
    responses: {
      200: {
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        strategies: [
          {
            strategy_id: "0x755bfa63f4f413d9e27872c5f5e2fcd8d5293550aadc6bd930c8b818d22cb2b7",
            name: "USDC basis carry",
            description: "Holds USDC in the moderate vault and rotates to conservative when funding turns negative.",
            status: "shadow",
            created_at: 1795796564,
            last_status_change: 1795796564,
            strategy_contract: "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9",
          },
        ],
        total_count: 1,
      },
    },
  },
  "GET /api/v1/agent/wallet": {
    responses: {
      200: {
        configured: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        network: "hardhat",
        chain_id: 31337,
        eth_balance: "0.049683395072757878",
        eth_balance_wei: "49683395072757878",
        has_gas: true,
        usdc_balance: 650,
        usdc_balance_raw: "650000000",
        nap_balance: "0",
        nap_balance_raw: "0",
        voting_power: "0",
        voting_power_raw: "0",
        positions: [
          {
            vault_address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
            vault_name: "NAP Moderate USDC",
            shares: "250",
            value_usdc: "250",
          },
          {
            vault_address: "0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E",
            vault_name: "NAP Aggressive USDC",
            shares: "100",
            value_usdc: "100",
          },
        ],
      },
    },
  },
  "POST /api/v1/agent/faucet": {
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        tx_hash: "0xa4ff12ae9e2634de0770205a4c2665827dd8ed397b6d221d9293f3499af688f6",
        status: "confirmed",
        drip_amount_wei: "50000000000000000",
        drip_amount_eth: "0.05",
        drip_amount_usdc: 1000,
        drip_amount_usdc_raw: "1000000000",
        next_eligible_timestamp: 1795796550,
        block_number: 44,
      },
      503: {
        error:
          "faucet budget spent: the faucet's USDC budget for this window has 400 USDC left, less than one drip of 1000 USDC; it resets at 2026-11-27T00:00:00.000Z (in 27953 s)",
      },
      429: {
        success: false,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        error: "faucet cooldown: this wallet can receive again at 2026-11-27T16:22:30.000Z (in 86400 s)",
        next_eligible_timestamp: 1795796550,
        seconds_remaining: 86400,
      },
    },
  },
  "POST /api/v1/nfts": {
    request: { wallet_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095" },
    responses: {
      200: {
        wallet_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        nfts: [
          {
            collection: "AgentBadges",
            contract_address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
            token_id: "1",
            milestone: "registered",
            name: "NAP Agent Badge #1: registered",
            minted_at: 1795796565,
            token_uri:
              "data:application/json;base64,eyJuYW1lIjoiTkFQIEFnZW50IEJhZGdlICMxOiByZWdpc3RlcmVkIiwiZGVzY3JpcHRpb24iOiJOb24tdHJhbnNmZXJhYmxlIGJhZGdlIGZvciBhbiBhZ2VudCB0aGF0IHJlYWNoZWQgdGhlIHJlZ2lzdGVyZWQgdGllciBtaWxlc3RvbmUgb24gTkFQLiIsImltYWdlIjoiZGF0YTppbWFnZS9zdmcreG1sO2Jhc2U2NCxQSE4yWnlCNGJXeHVjejBuYUhSMGNEb3ZMM2QzZHk1M015NXZjbWN2TWpBd01DOXpkbWNuSUhkcFpIUm9QU2N6TWpBbklHaGxhV2RvZEQwbk16SXdKeUIyYVdWM1FtOTRQU2N3SURBZ016SXdJRE15TUNjK1BISmxZM1FnZDJsa2RHZzlKek15TUNjZ2FHVnBaMmgwUFNjek1qQW5JSEo0UFNjeU5DY2dabWxzYkQwbkl6QmlNV1F5WVNjdlBqeDBaWGgwSUhnOUp6RTJNQ2NnZVQwbk1UUXdKeUJtYjI1MExXWmhiV2xzZVQwbmJXOXViM053WVdObEp5Qm1iMjUwTFhOcGVtVTlKekl5SnlCbWFXeHNQU2NqWmpWak5UUXlKeUIwWlhoMExXRnVZMmh2Y2owbmJXbGtaR3hsSno1T1FWQThMM1JsZUhRK1BIUmxlSFFnZUQwbk1UWXdKeUI1UFNjeE9EVW5JR1p2Ym5RdFptRnRhV3g1UFNkdGIyNXZjM0JoWTJVbklHWnZiblF0YzJsNlpUMG5NVGduSUdacGJHdzlKeU5tWm1abVptWW5JSFJsZUhRdFlXNWphRzl5UFNkdGFXUmtiR1VuUG5KbFoybHpkR1Z5WldROEwzUmxlSFErUEM5emRtYysiLCJhdHRyaWJ1dGVzIjpbeyJ0cmFpdF90eXBlIjoibWlsZXN0b25lIiwidmFsdWUiOiJyZWdpc3RlcmVkIn0seyJ0cmFpdF90eXBlIjoiYWdlbnQiLCJ2YWx1ZSI6IjB4NzMzYTJhZWZiZmY1NDJmZjYxMzA2MjhiYmM5NmZlNWQzODU5NzA5NSJ9LHsiZGlzcGxheV90eXBlIjoiZGF0ZSIsInRyYWl0X3R5cGUiOiJtaW50ZWRfYXQiLCJ2YWx1ZSI6MTc5NTc5NjU2NX1dfQ==",
          },
        ],
        total: 1,
      },
    },
  },
  "GET /api/v1/proposals": {
    responses: {
      200: {
        proposals: [
          {
            proposal_id: "1",
            proposer: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
            description: "Raise the aggressive vault's hurdle to 10%",
            state: "active",
            votes_for: "1000",
            votes_against: "0",
            votes_abstain: "0",
            quorum: "4000",
            vote_start: 1795710200,
            vote_end: 1796315000,
            eta: 0,
            targets: ["0xE6E340D132b5f46d1e472DebcD681B2aBc16e57E"],
          },
        ],
        total: 1,
      },
    },
  },
  "GET /api/v1/agent/galaxy/eligibility": {
    responses: {
      200: {
        campaign_id: "nap-galaxy-season-1",
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        eligible: true,
        criteria: [
          {
            id: "registered",
            description: "The agent registered with a wallet signature",
            met: true,
            value: "2026-11-26T16:21:53.845Z",
          },
          {
            id: "tier_registered",
            description: "The agent's tier is registered or higher",
            met: true,
            value: "registered",
          },
        ],
      },
    },
  },
  "POST /api/v1/agent/exit": {
    request: { asset: "shares", vault_id: "moderate", amount: "all" },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        operator_address: "0xBF77b012bc7F923E672f83D93A1082786a965e49",
        asset: "shares",
        vault_id: "moderate",
        token_address: "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8",
        amount_raw: "40000000000000",
        tx_hash: "0xab3822df694b4dc41c4181b71395dcb03a3585dde2a04c74eff5a88b0a36fbf6",
        status: "confirmed",
        block_number: 51,
      },
    },
  },
  "POST /api/v1/agents/:agent_id/operator/nonce": {
    request: {
      operator_address: "0x14f8Df63562B9FAec75Ed43A4D2478395e2F0329",
      new_operator_address: "0xBF77b012bc7F923E672f83D93A1082786a965e49",
    },
    responses: {
      200: {
        nonce: "37f8375323d5acf0a6903955205f81e2",
        message:
          "api.nap.test wants you to sign in with your Ethereum account:\n0x14f8Df63562B9FAec75Ed43A4D2478395e2F0329\n\nI am the operator of NAP agent 276c4f75-0488-4908-a494-1fcbbe1744f4 and make 0xBF77b012bc7F923E672f83D93A1082786a965e49 its operator.\n\nURI: http://api.nap.test\nVersion: 1\nChain ID: 31337\nNonce: 37f8375323d5acf0a6903955205f81e2\nIssued At: 2026-11-26T16:54:23Z\nExpiration Time: 2026-11-26T17:04:23Z\nRequest ID: 1795712063",
        expires_in_seconds: 600,
      },
    },
  },
  "POST /api/v1/agents/:agent_id/operator": {
    request: {
      new_operator_address: "0xBF77b012bc7F923E672f83D93A1082786a965e49",
      nonce: "37f8375323d5acf0a6903955205f81e2",
      signature:
        "0xb058702aeb47b5dd9bb6fad34f02e466ad770ad494526a8fc705b41f56af9faf1b8726a241f4d3299c6fc535052678235ca901c60926ee242402e87af0cc06bd1b",
    },
    responses: {
      200: {
        success: true,
        agent_id: "276c4f75-0488-4908-a494-1fcbbe1744f4",
        operator_address: "0xBF77b012bc7F923E672f83D93A1082786a965e49",
        previous_operator_address: "0x14f8Df63562B9FAec75Ed43A4D2478395e2F0329",
      },
      403: { error: "signature: only the agent's current operator address can change its operator" },
    },
  },
  "POST /api/v1/agents/:agent_id/key/nonce": {
    request: { signer_address: "0x9314786ab7725390b34d71dC5b43d50541d91f24", action: "rotate" },
    responses: {
      200: {
        nonce: "838ed2eb1beb6cb80ba7be0cf117279a",
        message:
          "api.nap.test wants you to sign in with your Ethereum account:\n0x9314786ab7725390b34d71dC5b43d50541d91f24\n\nI am the wallet of NAP agent c69e50b8-ba77-4a7d-932a-854aace009eb and replace its API key; the current key stops working.\n\nURI: http://api.nap.test\nVersion: 1\nChain ID: 31337\nNonce: 838ed2eb1beb6cb80ba7be0cf117279a\nIssued At: 2026-11-26T17:13:58Z\nExpiration Time: 2026-11-26T17:23:58Z\nRequest ID: 1795713238",
        expires_in_seconds: 600,
      },
    },
  },
  "POST /api/v1/agents/:agent_id/key/rotate": {
    request: {
      nonce: "2d8b0350da84c91e8e532ee6905b3b77",
      signature:
        "0x857f7d29cfd37642820887fa367906920318315b8c49df627a00c8392b02a9d96cee48d407124f2d7bce82725a56d6ca4b620bdf3b4fe6fc77102a8eb4aac6871c",
    },
    responses: {
      200: {
        success: true,
        agent_id: "c69e50b8-ba77-4a7d-932a-854aace009eb",
        api_key: "nap-LajQO2whBa3Yl2vDDCNH811gtKYYl6ug",
        api_key_prefix: "nap-LajQO2wh",
        previous_api_key_prefix: "nap-zZbMNjmY",
        message: "Key rotated: the previous key no longer works. Store this key now: it is shown only once.",
      },
      403: { error: "signature: only the agent's wallet (the one that registered it) can rotate its key" },
    },
  },
  "POST /api/v1/agents/:agent_id/key/revoke": {
    request: {
      nonce: "557eeaa80b8e86949ae52f961cc445fd",
      signature:
        "0xb5851fc0fd14bf6e354eaf1b11c3bd59489434a5a52b1ae1dae869d1df92234d72c3a181bb663965b90cc3200a84b565f3f13b5a54ce5f581016721dd725de831c",
    },
    responses: {
      200: {
        success: true,
        agent_id: "e83063b6-d052-424b-bd6c-d4406a35e29b",
        revoked_api_key_prefix: "nap-qyiYAzGt",
        message: "Key revoked. A new key needs a rotation signed by the agent's wallet.",
      },
      403: { error: "signature: only the agent's wallet or its operator can revoke its key" },
    },
  },
  "GET /api/v1/agent/keys": {
    responses: {
      200: {
        agent_id: "e83063b6-d052-424b-bd6c-d4406a35e29b",
        keys: [
          {
            api_key_prefix: "nap-ntrk8mUV",
            kind: "full",
            label: null,
            scope: null,
            state: "active",
            created_at: "2026-11-26T17:27:26.530Z",
            last_used_at: "2026-11-26T17:27:26.924Z",
            expires_at: null,
            ended_at: null,
          },
          {
            api_key_prefix: "nap-w7rntsq7",
            kind: "full",
            label: null,
            scope: null,
            state: "rotated",
            created_at: "2026-11-26T17:27:26.012Z",
            last_used_at: "2026-11-26T17:27:26.125Z",
            expires_at: null,
            ended_at: "2026-11-26T17:27:26.530Z",
          },
          {
            api_key_prefix: "nap-zEFCNh0J",
            kind: "scoped",
            label: "research-llm",
            scope: { read_only: false, operations: ["vault.deposit", "vault.withdraw"], usdc_per_day: "25000000" },
            state: "active",
            created_at: "2026-11-26T17:30:11.204Z",
            last_used_at: "2026-11-26T17:31:02.881Z",
            expires_at: "2026-12-03T17:30:11.204Z",
            ended_at: null,
          },
        ],
      },
    },
  },
  "POST /api/v1/agent/keys": {
    request: {
      label: "research-llm",
      operations: ["vault.deposit", "vault.withdraw"],
      usdc_per_day: "25000000",
      expires_in_seconds: 604800,
    },
    responses: {
      201: {
        success: true,
        agent_id: "e83063b6-d052-424b-bd6c-d4406a35e29b",
        api_key: "nap-zEFCNh0J2HTQsaOoOmj3U5qCwvloHUyg",
        api_key_prefix: "nap-zEFCNh0J",
        label: "research-llm",
        scope: { read_only: false, operations: ["vault.deposit", "vault.withdraw"], usdc_per_day: "25000000" },
        expires_at: "2026-12-03T17:30:11.204Z",
      },
    },
  },
  "DELETE /api/v1/agent/keys/:prefix": {
    responses: {
      200: {
        success: true,
        agent_id: "e83063b6-d052-424b-bd6c-d4406a35e29b",
        revoked_api_key_prefix: "nap-zEFCNh0J",
        message: "Scoped key revoked: it no longer works on any instance.",
      },
    },
  },
  "POST /api/v1/agents/:agent_id/keys/nonce": {
    request: {
      label: "research-llm",
      operations: ["vault.deposit", "vault.withdraw"],
      usdc_per_day: "25000000",
      expires_in_seconds: 604800,
    },
    responses: {
      200: {
        nonce: "4f1c2a9e7b3d5c8a0e6f1b2d3c4a5e6f",
        message:
          'api.nap.test wants you to sign in with your Ethereum account:\n0x466751eAa5df5BF15D1D8d8A7bD38937cbD53a1b\n\nI am the wallet of NAP agent c69e50b8-ba77-4a7d-932a-854aace009eb and issue a scoped API key labelled "research-llm" limited to: reads and vault.deposit, vault.withdraw, at most 25000000 USDC base units a day; valid for 604800 seconds.\n\nURI: http://api.nap.test\nVersion: 1\nChain ID: 31337\nNonce: 4f1c2a9e7b3d5c8a0e6f1b2d3c4a5e6f\nIssued At: 2026-11-26T17:30:10Z\nExpiration Time: 2026-11-26T17:40:10Z\nRequest ID: 1795714210',
        expires_in_seconds: 600,
      },
    },
  },
  "POST /api/v1/agents/:agent_id/keys": {
    request: {
      label: "research-llm",
      operations: ["vault.deposit", "vault.withdraw"],
      usdc_per_day: "25000000",
      expires_in_seconds: 604800,
      nonce: "4f1c2a9e7b3d5c8a0e6f1b2d3c4a5e6f",
      signature:
        "0x0cef3be8b2a570c40cd89eb96954ffd5e8587d4d7452e7450a52fa26ce9e35bd25146859235ea2ecdb67585f89e82430fc70131e911593331d5da22e171228d41c",
    },
    responses: {
      201: {
        success: true,
        agent_id: "c69e50b8-ba77-4a7d-932a-854aace009eb",
        api_key: "nap-ZcBDuvXEf1eSiCp5kQSAWFoIqZjlupoh",
        api_key_prefix: "nap-ZcBDuvXE",
        label: "research-llm",
        scope: { read_only: false, operations: ["vault.deposit", "vault.withdraw"], usdc_per_day: "25000000" },
        expires_at: "2026-12-03T17:30:12.018Z",
      },
      403: {
        error: "signature: only the agent's wallet (the one that registered it) can issue a scoped key by signature",
      },
    },
  },
  "POST /api/v1/operator/agents/:agent_id/tier": {
    request: { tier: "established" },
    responses: {
      200: {
        agent_id: "543b502e-26a6-4137-b660-90cc7df8b857",
        agent_name: "yield-scout",
        tier: "established",
        tier_granted_by: "operator:1",
      },
    },
  },
  "GET /openapi.json": {
    responses: { 200: { openapi: "3.1.0", info: { title: "NAP agent API", version: "0.1.0" }, paths: {} } },
  },
  "POST /api/v1/agent/governance/vote": {
    request: { proposal_id: 1, support: 1, reason: "A higher hurdle suits the aggressive vault's risk." },
    responses: {
      200: {
        success: true,
        agent_address: "0x733A2AEfbfF542fF6130628bbC96fE5d38597095",
        proposal_id: "1",
        support: 1,
        support_label: "for",
        reason: "A higher hurdle suits the aggressive vault's risk.",
        weight: "1000",
        weight_raw: "1000000000000000000000",
        tx_hash: "0x5d2f6f0a1f4b8c3e9d7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e",
        status: "confirmed",
        block_number: 61,
        gas_used: 86913,
      },
    },
  },
  "GET /docs": {
    responses: {
      200: '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>NAP agent API reference</title>\n...',
    },
  },
};

/** The example body of each error status: a message this service sends with it. */
export const LIVE_ERROR_EXAMPLES: Readonly<Record<number, string>> = {
  400: "wallet_address: must be a 0x-prefixed 42-character hex address; agent_name: must be at least 3 characters",
  401: "missing API key: send it in the X-API-Key header",
  403: "this endpoint needs an operator key (AGENT_API_KEYS)",
  404: "tx_hash: no transaction 0x1212121212121212121212121212121212121212121212121212121212121212 was sent by this service for this agent",
  409: "vault_id: the redemption request of 0x733A2AEfbfF542fF6130628bbC96fE5d38597095 in the aggressive vault can be filled from 2026-11-27T16:21:56.000Z (in 86399 s); claim again then",
  413: "body: larger than the limit of 65536 bytes",
  429: "rate limit exceeded: 10 requests per minute; retry in 42 s",
  500: "internal server error",
  502: "the node refused transaction 0x95b962475d62fa5fa7f5b445d7ff7c2fc15cf9a7592e02981b35b7bad35c5b68: nonce too low",
  503: "the chain is unreachable: cannot read the block number; try again later",
};
