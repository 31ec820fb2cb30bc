import { expect } from "chai";
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, HDNodeWallet, parseUnits, Wallet } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { deriveDna } from "../../api/src/usecases/strategies";
import { registerAgent, request } from "../api/helpers/app";
import { NapApiError, NapClient } from "@nap/sdk";
import { deployTestSystem } from "../api/helpers/system";
import {
  AgentBadges__factory,
  NapFaucet__factory,
  TestUSDC__factory,
  NapGovernor__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
} from "../../typechain-types";
import type { SendRequest } from "../../api/src/tx";
import { impersonate } from "../api/indexer/activity";
import { SIGNER_MODES, type SignerMode } from "../helpers/signerModes";
import { transcriptNote } from "../helpers/transcript";
import { client, DEV_MNEMONIC, OPERATOR_KEY, startE2eApp, type E2eSystem } from "./helpers";

type Body = Record<string, unknown>;

/** The error a call of the SDK rejects with (the test fails if it resolves). */
async function failure(call: Promise<unknown>): Promise<NapApiError> {
  const outcome = await call.then(
    (body) => new Error(`expected an error, got ${JSON.stringify(body)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof NapApiError)) throw outcome;
  return outcome;
}

const DEFAULT_RISK = {
  max_position_size_percent: 10,
  max_leverage: 200,
  stop_loss_percent: 500,
  slippage_tolerance_bps: 100,
  correlation_threshold: 70,
  velocity_limit: 1_000_000,
  flash_loans_enabled: false,
};

/** Field, a value below its lower bound (null: none), a value above its upper bound (null: none), the bounds. */
const BOUNDS: [keyof typeof DEFAULT_RISK, number | null, number | null, string, string][] = [
  ["max_position_size_percent", 0, 101, "at least 1", "at most 100"],
  ["max_leverage", 99, 1001, "at least 100", "at most 1000"],
  ["stop_loss_percent", 49, 5001, "at least 50", "at most 5000"],
  ["slippage_tolerance_bps", 0, 1001, "at least 1", "at most 1000"],
  ["correlation_threshold", -1, 101, "at least 0", "at most 100"],
  ["velocity_limit", 999, null, "at least 1000", ""],
];

// The same journey with the server wallets' keys held each way the service offers (docs/operations.md).
for (const signer of SIGNER_MODES) {
  describe(`E2E: one agent's journey through the SDK (Hardhat chain, MongoDB store, ${signer} signer)`, function () {
    journey.call(this, signer);
  });
}

function journey(this: Mocha.Suite, signer: SignerMode) {
  this.timeout(180_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let base: string;
  let nap: NapClient;
  let agentAddress: string;
  let agentId: string;
  /** The wallet that registered the agent, and so its operator: the only address the exit sends to. */
  let owner: Wallet;

  before(async function () {
    deployment = await deployTestSystem();
    // These tests are about submissions themselves (strategies stay in shadow): automated screening is off.
    system = await startE2eApp("journey", deployment, { STRATEGY_SCREENING: "off" }, signer);
    base = system.app.url;
    // No retries: a 429 or 503 must show in the test, not be waited out.
    nap = new NapClient({ baseUrl: base, maxRetries: 0 });
    owner = Wallet.createRandom() as unknown as Wallet;
    const registered = await nap.register({ signer: owner, agentName: "journey agent" });
    expect(registered.tier).to.equal("unverified");
    agentId = registered.agent_id;
    const record = await system.store.agents.findById(agentId);
    // The server wallet of agent number i is m/44'/60'/1'/0/i of the mnemonic.
    agentAddress = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).address;
  });

  after(async function () {
    await system?.close();
  });

  const registry = () =>
    StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, ethers.provider);

  it("shows an empty, configured wallet before the faucet, and refuses a submission for lack of gas", async function () {
    const wallet = await nap.wallet();
    expect(wallet).to.deep.equal({
      configured: true,
      agent_address: agentAddress,
      network: "hardhat",
      chain_id: 31337,
      eth_balance: "0.0",
      eth_balance_wei: "0",
      has_gas: false,
      usdc_balance: 0,
      usdc_balance_raw: "0",
      nap_balance: "0",
      nap_balance_raw: "0",
      voting_power: "0",
      voting_power_raw: "0",
      positions: [],
    });
    const submit = await failure(nap.submitStrategy({ name: "too early", description: "submitted before any gas" }));
    expect(submit.status).to.equal(400);
    expect(submit.message).to.match(/POST \/api\/v1\/agent\/faucet/);
  });

  it("drips 0.05 ETH and 1000 test USDC through the faucet", async function () {
    const drip = await nap.faucet();
    const receipt = await ethers.provider.getTransactionReceipt(drip.tx_hash);
    expect(receipt!.status).to.equal(1);
    const block = await ethers.provider.getBlock(receipt!.blockNumber);
    expect(drip).to.deep.equal({
      success: true,
      agent_address: agentAddress,
      tx_hash: receipt!.hash,
      status: "confirmed",
      drip_amount_wei: "50000000000000000",
      drip_amount_eth: "0.05",
      drip_amount_usdc: 1000,
      drip_amount_usdc_raw: "1000000000",
      next_eligible_timestamp: block!.timestamp + 86_400,
      block_number: receipt!.blockNumber,
    });
    const wallet = await nap.wallet();
    expect(wallet).to.include({
      eth_balance: "0.05",
      eth_balance_wei: "50000000000000000",
      has_gas: true,
      usdc_balance: 1000,
      usdc_balance_raw: "1000000000",
    });
  });

  it("deposits 100.5 USDC into the moderate vault (approve + deposit) and shows the position", async function () {
    const vault = NapVault__factory.connect(deployment.vaults.moderate!.address, ethers.provider);
    const expectedShares = await vault.previewDeposit(100_500_000n);
    const deposit = await nap.deposit({ vault_id: "moderate", amount_usdc: 100.5 });
    const approveReceipt = await ethers.provider.getTransactionReceipt(deposit.approve_tx);
    const depositReceipt = await ethers.provider.getTransactionReceipt(deposit.deposit_tx);
    expect(approveReceipt!.status).to.equal(1);
    expect(depositReceipt!.status).to.equal(1);
    expect(depositReceipt!.from).to.equal(agentAddress);
    expect(deposit).to.deep.equal({
      success: true,
      agent_address: agentAddress,
      vault: await vault.name(),
      vault_id: "moderate",
      vault_address: deployment.vaults.moderate!.address,
      amount_usdc: 100.5,
      approve_tx: approveReceipt!.hash,
      deposit_tx: depositReceipt!.hash,
      status: "confirmed",
      block_number: depositReceipt!.blockNumber,
      shares_balance: expectedShares.toString(),
    });
    expect(await vault.balanceOf(agentAddress)).to.equal(expectedShares);

    const positions = await nap.positions();
    const decimals = Number(await vault.decimals());
    expect(positions).to.deep.equal({
      positions: [
        {
          vault_address: deployment.vaults.moderate!.address,
          vault_name: await vault.name(),
          shares: ethers.formatUnits(expectedShares, decimals).replace(/\.0$/, ""),
          value_usdc: "100.5",
        },
      ],
    });
    const wallet = await nap.wallet();
    expect(wallet.configured && wallet.usdc_balance).to.equal(899.5);
    expect(wallet.configured && wallet.positions).to.deep.equal(positions.positions);
  });

  it("refuses deposits that cannot work, with the reason, before any transaction", async function () {
    const nonce = await ethers.provider.getTransactionCount(agentAddress);
    const tooMuch = await failure(nap.deposit({ vault_id: "moderate", amount_usdc: 5000 }));
    expect(tooMuch.status).to.equal(400);
    expect(tooMuch.message).to.equal(
      `amount_usdc: the agent wallet ${agentAddress} holds 899.5 USDC (raw 899500000), less than 5000; request test USDC with POST /api/v1/agent/faucet`,
    );
    const cases: [Body, string][] = [
      [
        { vault_id: "nope", amount_usdc: 1 },
        "vault_id: must be one of conservative, moderate, aggressive, inverse, hedged, configurable",
      ],
      [{ vault_id: "moderate", amount_usdc: 0 }, "amount_usdc: must be greater than 0"],
      [
        { vault_id: "moderate", amount_usdc: 1.0000001 },
        "amount_usdc: must be a number of USDC with at most 6 decimal places",
      ],
      [{ vault_id: "moderate" }, "amount_usdc: is required"],
    ];
    for (const [body, message] of cases) {
      // Bodies the SDK's types refuse, sent anyway: the API must refuse them too.
      const response = await failure(nap.deposit(body as never));
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.message).to.equal(message);
    }
    expect(await ethers.provider.getTransactionCount(agentAddress)).to.equal(nonce);
  });

  let firstId: string;
  let secondId: string;

  it("submits a strategy with the default risk parameters and a derived DNA", async function () {
    const before = Math.floor(Date.now() / 1000);
    const response = await nap.submitStrategy({
      name: "Mean reversion",
      description: "Buys dips on majors, sells rips",
    });
    const after = Math.floor(Date.now() / 1000);
    const receipt = await ethers.provider.getTransactionReceipt(response.tx_hash);
    const view = await registry().getStrategy(response.strategy_id);
    const candidates = [];
    for (let t = before; t <= after; t++) candidates.push(deriveDna("Mean reversion", agentAddress, t));
    expect(candidates).to.include(response.dna_string);
    expect(view.dna).to.equal(response.dna_string);
    expect(view.owner).to.equal(agentAddress);
    expect(view.status).to.equal(0n);
    expect(response).to.deep.equal({
      success: true,
      agent_address: agentAddress,
      strategy_name: "Mean reversion",
      strategy_id: view.id,
      dna_string: view.dna,
      risk_params: DEFAULT_RISK,
      tx_hash: receipt!.hash,
      status: "confirmed",
      strategy_status: "shadow",
      block_number: receipt!.blockNumber,
      gas_used: Number(receipt!.gasUsed),
    });
    firstId = view.id;
    const lookup = await nap.lookup((await system.store.agents.findById(agentId))!.walletAddress);
    expect(lookup).to.include({ tier: "registered", strategies_submitted: 1 });
  });

  it("submits a strategy with every parameter set and a given DNA (without 0x)", async function () {
    const risk = {
      max_position_size_percent: 100,
      max_leverage: 1000,
      stop_loss_percent: 50,
      slippage_tolerance_bps: 1,
      correlation_threshold: 0,
      velocity_limit: 1000,
      flash_loans_enabled: true,
    };
    const dna = "ab".repeat(32);
    const response = await nap.submitStrategy({
      name: "Momentum",
      description: "Follows the trend of the day",
      dna_string: dna,
      ...risk,
    });
    expect(response.dna_string).to.equal(`0x${dna}`);
    expect(response.risk_params).to.deep.equal(risk);
    const view = await registry().getStrategy(response.strategy_id);
    expect(view.params.maxPositionSizePercent).to.equal(100n);
    expect(view.params.maxLeverage).to.equal(1000n);
    expect(view.params.stopLossPercent).to.equal(50n);
    expect(view.params.slippageToleranceBps).to.equal(1n);
    expect(view.params.correlationThreshold).to.equal(0n);
    expect(view.params.velocityLimit).to.equal(1000n);
    expect(view.params.flashLoansEnabled).to.equal(true);
    secondId = view.id;
  });

  it("rejects every out-of-bound risk parameter and bad text before any transaction, naming field and bound", async function () {
    const nonce = await ethers.provider.getTransactionCount(agentAddress);
    const base = { name: "Out of bounds", description: "Should never reach the chain" };
    for (const [field, low, high, lowText, highText] of BOUNDS) {
      if (low !== null) {
        const response = await failure(nap.submitStrategy({ ...base, [field]: low } as never));
        expect(response.status, field).to.equal(400);
        expect(response.message).to.equal(`${field}: must be ${lowText}`);
      }
      if (high !== null) {
        const response = await failure(nap.submitStrategy({ ...base, [field]: high } as never));
        expect(response.status, field).to.equal(400);
        expect(response.message).to.equal(`${field}: must be ${highText}`);
      }
      const fractional = await failure(nap.submitStrategy({ ...base, [field]: 150.5 } as never));
      expect(fractional.status).to.equal(400);
      expect(fractional.message).to.equal(`${field}: must be an integer`);
    }
    const flags = await failure(nap.submitStrategy({ ...base, flash_loans_enabled: "yes" } as never));
    expect(flags.message).to.equal("flash_loans_enabled: must be a boolean");
    const texts: [Body, string][] = [
      [{ ...base, name: "ab" }, "name: must be at least 3 characters"],
      [{ ...base, name: "x".repeat(101) }, "name: must be at most 100 characters"],
      [{ ...base, description: "too short" }, "description: must be at least 10 characters"],
      [{ ...base, description: "x".repeat(2001) }, "description: must be at most 2000 characters"],
      [{ ...base, dna_string: "0x1234" }, "dna_string: must be 64 hex characters (32 bytes), 0x prefix optional"],
    ];
    for (const [body, message] of texts) {
      const response = await failure(nap.submitStrategy(body as never));
      expect(response.status).to.equal(400);
      expect(response.message).to.equal(message);
    }
    expect(await ethers.provider.getTransactionCount(agentAddress)).to.equal(nonce);
  });

  it("refuses a name of 100 characters but 200 bytes with the registry's byte bound, before any transaction", async function () {
    const name = "é".repeat(100);
    const nonce = await ethers.provider.getTransactionCount(agentAddress);
    const response = await failure(nap.submitStrategy({ name, description: "Accented name" } as never));
    expect(response.status).to.equal(400);
    expect(response.message).to.equal("name: must be at most 100 bytes of UTF-8 (this one is 200)");
    expect(await ethers.provider.getTransactionCount(agentAddress)).to.equal(nonce);
  });

  it("lists the agent's strategies from the registry", async function () {
    const list = await nap.strategies();
    const first = await registry().getStrategy(firstId);
    const second = await registry().getStrategy(secondId);
    expect(list).to.deep.equal({
      agent_address: agentAddress,
      strategies: [first, second].map((view) => ({
        strategy_id: view.id,
        name: view.name,
        description: view.description,
        status: "shadow",
        created_at: Number(view.createdAt),
        last_status_change: Number(view.lastStatusChange),
        strategy_contract: deployment.contracts.StrategyRegistryV3.address,
      })),
      total_count: 2,
    });
  });

  let proposalId: bigint;

  it("refuses a vote below tier established (403)", async function () {
    const vote = await failure(nap.vote({ proposal_id: 1, support: 1 }));
    expect(vote.status).to.equal(403);
    expect(vote.message).to.equal("tier established or higher required; this agent's tier is registered");
  });

  it("promotes to established: the relayer mints the badges and grants 100 NAP of voting power", async function () {
    const grant = await request(base, "POST", `/api/v1/operator/agents/${agentId}/tier`, {
      body: { tier: "established" },
      headers: { "X-API-Key": OPERATOR_KEY },
    });
    expect(grant.status).to.equal(200);
    await system.app.app.useCases.settled();
    const wallet = await nap.wallet();
    expect(wallet).to.include({
      nap_balance: "100",
      nap_balance_raw: "100000000000000000000",
      voting_power: "100",
      voting_power_raw: "100000000000000000000",
    });
    const badges = AgentBadges__factory.connect(deployment.contracts.AgentBadges.address, ethers.provider);
    const owned = await badges.badgesOf(agentAddress);
    expect(owned.map((b) => Number(b.milestone))).to.deep.equal([0, 1]);
  });

  it("lists an active proposal and accepts a vote with the agent's NAP weight, once", async function () {
    const [deployer] = await ethers.getSigners();
    const governor = NapGovernor__factory.connect(deployment.contracts.NapGovernor.address, deployer);
    const reg = registry();
    const calldata = reg.interface.encodeFunctionData("setGuardianThreshold", [2]);
    await (
      await governor.propose([await reg.getAddress()], [0n], [calldata], "Raise the guardian threshold to 2")
    ).wait();
    proposalId = await governor.proposalCount();
    const pending = await nap.proposals();
    expect(pending.proposals[0].state).to.equal("pending");
    const tooEarly = await failure(nap.vote({ proposal_id: Number(proposalId), support: 1 }));
    expect(tooEarly.status).to.equal(400);
    expect(tooEarly.message).to.match(new RegExp(`^proposal_id: proposal ${proposalId} is pending, not active`));
    await time.increase(2);

    const view = await governor.getProposal(proposalId);
    const proposals = await nap.proposals();
    expect(proposals).to.deep.equal({
      proposals: [
        {
          proposal_id: proposalId.toString(),
          proposer: deployer.address,
          description: "Raise the guardian threshold to 2",
          state: "active",
          votes_for: "0",
          votes_against: "0",
          votes_abstain: "0",
          quorum: ethers.formatEther(view.quorum).replace(/\.0$/, ""),
          vote_start: Number(view.voteStart),
          vote_end: Number(view.voteEnd),
          eta: 0,
          targets: [await reg.getAddress()],
        },
      ],
      total: 1,
    });

    const vote = await nap.vote({
      proposal_id: String(proposalId),
      support: 1,
      reason: "more eyes on each strategy",
    });
    const receipt = await ethers.provider.getTransactionReceipt(vote.tx_hash);
    expect(receipt!.from).to.equal(agentAddress);
    expect(vote).to.deep.equal({
      success: true,
      agent_address: agentAddress,
      proposal_id: proposalId.toString(),
      support: 1,
      support_label: "for",
      reason: "more eyes on each strategy",
      weight: "100",
      weight_raw: "100000000000000000000",
      tx_hash: receipt!.hash,
      status: "confirmed",
      block_number: receipt!.blockNumber,
      gas_used: Number(receipt!.gasUsed),
    });
    expect((await governor.proposalVotes(proposalId)).forVotes).to.equal(parseUnits("100", 18));

    const again = await failure(nap.vote({ proposal_id: Number(proposalId), support: 0 }));
    expect(again.status).to.equal(400);
    expect(again.message).to.equal(`proposal_id: this agent (${agentAddress}) already voted on proposal ${proposalId}`);
    const unknown = await failure(nap.vote({ proposal_id: 999, support: 1 }));
    expect(unknown.status).to.equal(400);
    expect(unknown.message).to.equal("proposal_id: no proposal 999");
    const badSupport = await failure(nap.vote({ proposal_id: 1, support: 3 } as never));
    expect(badSupport.status).to.equal(400);
  });

  it("reports campaign eligibility from real data", async function () {
    const response = await nap.eligibility();
    const record = await system.store.agents.findById(agentId);
    expect(response).to.deep.equal({
      campaign_id: "nap-galaxy-season-1",
      agent_address: agentAddress,
      eligible: true,
      criteria: [
        {
          id: "registered",
          description: "The agent registered with a wallet signature",
          met: true,
          value: record!.createdAt.toISOString(),
        },
        {
          id: "tier_registered",
          description: "The agent's tier is registered or higher",
          met: true,
          value: "established",
        },
        {
          id: "strategy_submitted",
          description: "At least 1 strategy submitted onchain from the agent's wallet",
          met: true,
          value: 2,
        },
        {
          id: "vault_deposit",
          description: "At least 1 USDC deposited into a NAP vault through the service",
          met: true,
          value: 100.5,
        },
      ],
    });
  });

  it("looks up NFTs and positions of any wallet (public), and refuses malformed wallets", async function () {
    const badges = AgentBadges__factory.connect(deployment.contracts.AgentBadges.address, ethers.provider);
    const owned = await badges.badgesOf(agentAddress);
    const nfts = await nap.nftsOf(agentAddress.toLowerCase());
    const expected = [];
    for (const badge of owned) {
      const uri = await badges.tokenURI(badge.tokenId);
      const json = JSON.parse(Buffer.from(uri.split(",")[1], "base64").toString("utf8")) as { name: string };
      expected.push({
        collection: "AgentBadges",
        contract_address: deployment.contracts.AgentBadges.address,
        token_id: badge.tokenId.toString(),
        milestone: ["registered", "established", "core_contributor"][Number(badge.milestone)],
        name: json.name,
        minted_at: Number(badge.mintedAt),
        token_uri: uri,
      });
    }
    expect(expected.map((e) => e.milestone)).to.deep.equal(["registered", "established"]);
    expect(nfts).to.deep.equal({ wallet_address: getAddress(agentAddress), nfts: expected, total: 2 });

    const vault = NapVault__factory.connect(deployment.vaults.moderate!.address, ethers.provider);
    const shares = await vault.balanceOf(agentAddress);
    const decimals = Number(await vault.decimals());
    const positions = await nap.positionsOf(agentAddress);
    expect(positions).to.deep.equal({
      wallet_address: agentAddress,
      positions: [
        {
          vault_id: "moderate",
          vault_address: deployment.vaults.moderate!.address,
          vault_name: await vault.name(),
          shares: ethers.formatUnits(shares, decimals).replace(/\.0$/, ""),
          shares_raw: shares.toString(),
          value_usdc: "100.5",
          pending_redeem_shares: "0",
          pending_redeem_ready_at: null,
          claimable_redeem_shares: "0",
          claimable_usdc: "0",
          claimable_cancel_shares: "0",
        },
      ],
      total: 1,
    });
    const empty = await nap.nftsOf(ethers.ZeroAddress);
    expect(empty).to.deep.equal({ wallet_address: ethers.ZeroAddress, nfts: [], total: 0 });
    for (const lookup of [nap.nftsOf("0x1234"), nap.positionsOf("0x1234")]) {
      const bad = await failure(lookup);
      expect(bad.status).to.equal(400);
      expect(bad.message).to.equal("wallet_address: must be a 0x-prefixed 42-character hex address");
    }
  });

  it("withdraws 20.5 USDC from the moderate vault back to the agent's wallet", async function () {
    const vault = NapVault__factory.connect(deployment.vaults.moderate!.address, ethers.provider);
    const usdc = TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, ethers.provider);
    const sharesBefore = await vault.balanceOf(agentAddress);
    const usdcBefore = await usdc.balanceOf(agentAddress);
    const withdrawal = await nap.withdraw({ vault_id: "moderate", amount_usdc: 20.5 });
    const receipt = await ethers.provider.getTransactionReceipt(withdrawal.tx_hash);
    expect(receipt!.from).to.equal(agentAddress);
    const sharesAfter = await vault.balanceOf(agentAddress);
    expect(withdrawal).to.include({
      success: true,
      agent_address: agentAddress,
      vault_id: "moderate",
      status: "confirmed",
      amount_usdc: 20.5,
      amount_raw: "20500000",
      shares_raw: (sharesBefore - sharesAfter).toString(),
      shares_balance: sharesAfter.toString(),
      block_number: receipt!.blockNumber,
    });
    expect(await usdc.balanceOf(agentAddress)).to.equal(usdcBefore + 20_500_000n);
  });

  it("takes everything out to the operator: the vault shares, the USDC, then the ETH (gas reserve kept)", async function () {
    const vault = NapVault__factory.connect(deployment.vaults.moderate!.address, ethers.provider);
    const usdc = TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, ethers.provider);
    const shares = await vault.balanceOf(agentAddress);
    const usdcHeld = await usdc.balanceOf(agentAddress);
    expect(shares > 0n && usdcHeld > 0n).to.equal(true);

    const sharesExit = await nap.exitToOperator({ asset: "shares", vault_id: "moderate", amount: "all" });
    expect(sharesExit).to.include({
      agent_address: agentAddress,
      operator_address: owner.address,
      asset: "shares",
      amount_raw: shares.toString(),
      status: "confirmed",
    });
    const usdcExit = await nap.exitToOperator({ asset: "usdc", amount: "all" });
    expect(usdcExit).to.include({ operator_address: owner.address, asset: "usdc", amount_raw: usdcHeld.toString() });
    const ethHeld = await ethers.provider.getBalance(agentAddress);
    const ethExit = await nap.exitToOperator({ asset: "eth", amount: "all" });
    expect(ethExit).to.include({ operator_address: owner.address, asset: "eth", token_address: null });

    expect(await vault.balanceOf(owner.address)).to.equal(shares);
    expect(await vault.balanceOf(agentAddress)).to.equal(0n);
    expect(await usdc.balanceOf(owner.address)).to.equal(usdcHeld);
    expect(await usdc.balanceOf(agentAddress)).to.equal(0n);
    const sent = BigInt(ethExit.amount_raw);
    expect(await ethers.provider.getBalance(owner.address)).to.equal(sent);
    const ethReceipt = (await ethers.provider.getTransactionReceipt(ethExit.tx_hash))!;
    expect(ethReceipt.from).to.equal(agentAddress);
    expect(await ethers.provider.getBalance(agentAddress)).to.equal(
      ethHeld - sent - ethReceipt.gasUsed * ethReceipt.gasPrice,
    );
    for (const exit of [sharesExit, usdcExit, ethExit]) {
      expect((await ethers.provider.getTransactionReceipt(exit.tx_hash))!.from).to.equal(agentAddress);
    }
  });

  it("answers the faucet cooldown with 429, Retry-After and the cooldown body", async function () {
    const block = await ethers.provider.getBlock("latest");
    const response = await failure(nap.faucet());
    expect(response.status).to.equal(429);
    const next = (response.body as Body).next_eligible_timestamp as number;
    const remaining = next - block!.timestamp;
    expect(remaining).to.be.greaterThan(86_000).and.at.most(86_400);
    expect(response.retryAfterSeconds).to.equal(remaining);
    expect(response.body).to.deep.equal({
      success: false,
      agent_address: agentAddress,
      error: `faucet cooldown: this wallet can receive again at ${new Date(next * 1000).toISOString()} (in ${remaining} s)`,
      next_eligible_timestamp: next,
      seconds_remaining: remaining,
    });
  });

  /** The faucet as its admin (the timelock) and a fresh agent's client, which no cooldown holds back. */
  async function budgetSetting() {
    const admin = await impersonate(deployment.contracts.TimelockController!.address);
    const faucet = NapFaucet__factory.connect(deployment.contracts.NapFaucet.address, admin);
    const fresh = new NapClient({ baseUrl: base, maxRetries: 0 });
    await fresh.register({ signer: Wallet.createRandom(), agentName: "budget agent" });
    // A budget equal to what the window has sent leaves nothing: setBudget keeps the window's sums.
    const spendAll = async () => {
      const [ethLeft, usdcLeft] = await faucet.budgetLeft();
      const ethSent = (await faucet.ethBudget()) - ethLeft;
      const usdcSent = (await faucet.usdcBudget()) - usdcLeft;
      await (await faucet.setBudget(ethSent, usdcSent, 3_600)).wait();
      return (await faucet.budgetLeft())[2];
    };
    const message = (resetsAt: bigint, seconds: number) =>
      "faucet budget spent: the faucet's ETH budget for this window has 0 ETH left, less than one drip of 0.05 ETH; " +
      `it resets at ${new Date(Number(resetsAt) * 1000).toISOString()} (in ${seconds} s)`;
    return { faucet, fresh, spendAll, message };
  }

  it("faucet budget spent: a drip past the window's global budget answers 503 with Retry-After and the reset time, and sends no transaction", async function () {
    const { faucet, fresh, spendAll, message } = await budgetSetting();
    const resetsAt = await spendAll();
    const before = await ethers.provider.getBlock("latest");
    const relayerNonce = await ethers.provider.getTransactionCount(deployment.roles.relayer);

    const refused = await failure(fresh.faucet());

    const seconds = Number(resetsAt) - before!.timestamp;
    expect(seconds).to.equal(3_600);
    expect(refused.status).to.equal(503);
    expect(refused.retryAfterSeconds).to.equal(seconds);
    expect(refused.body).to.deep.equal({ error: message(resetsAt, seconds) });
    expect(await ethers.provider.getBlockNumber()).to.equal(before!.number);
    expect(await ethers.provider.getTransactionCount(deployment.roles.relayer)).to.equal(relayerNonce);
    const [ethLeft, usdcLeft] = await faucet.budgetLeft();
    expect([ethLeft, usdcLeft]).to.deep.equal([0n, 0n]);
  });

  it("faucet budget raced: a drip that passed the budget check but meets a budget spent meanwhile answers 503 the same way, and sends no transaction", async function () {
    const { faucet, fresh, spendAll, message } = await budgetSetting();
    await (await faucet.setBudget(ethers.parseEther("5"), 100_000_000_000n, 3_600)).wait();
    const engine = system.app.app.useCases.engine;
    const send = engine.send.bind(engine);
    let resetsAt = 0n;
    let relayerNonce = 0;
    // The budget is spent between the service's check and its drip, as by another instance's drips.
    engine.send = async (request: SendRequest) => {
      if (request.kind === "faucet.drip") {
        resetsAt = await spendAll();
        relayerNonce = await ethers.provider.getTransactionCount(deployment.roles.relayer);
      }
      return send(request);
    };
    let refused: NapApiError;
    try {
      refused = await failure(fresh.faucet());
    } finally {
      engine.send = send;
    }

    const latest = await ethers.provider.getBlock("latest");
    const seconds = Number(resetsAt) - latest!.timestamp;
    expect(seconds).to.equal(3_600);
    expect(refused.status).to.equal(503);
    expect(refused.retryAfterSeconds).to.equal(seconds);
    expect(refused.body).to.deep.equal({ error: message(resetsAt, seconds) });
    expect(await ethers.provider.getTransactionCount(deployment.roles.relayer)).to.equal(relayerNonce);
  });

  it("held the keys as its mode says: no mnemonic in the service otherwise, every transaction signed remotely", async function () {
    expect(system.app.config.serverWalletMnemonic).to.equal(signer === "mnemonic" ? DEV_MNEMONIC : undefined);
    // Not set empty, not set at all: outside the mnemonic mode no setting of the service names or holds a mnemonic.
    const mnemonicSettings = Object.entries(system.env).filter(
      ([name, value]) => /MNEMONIC/i.test(name) || value.includes(DEV_MNEMONIC),
    );
    expect(mnemonicSettings.map(([name]) => name)).to.deep.equal(
      signer === "mnemonic" ? ["SERVER_WALLET_MNEMONIC"] : [],
    );
    transcriptNote(`the service's settings (${signer} mode): ${Object.keys(system.env).sort().join(", ")}`);
    const remote = system.signer.signer;
    expect(remote !== undefined).to.equal(signer === "remote");
    if (remote) {
      // The relayer's and the agent's transactions of the journey, all through eth_signTransaction.
      const froms = new Set(remote.signRequests.map((request) => request.from));
      expect(froms).to.include(getAddress(deployment.roles.relayer));
      expect(froms).to.include(agentAddress);
      const agentTransactions = await ethers.provider.getTransactionCount(agentAddress);
      expect(remote.signRequests.filter((request) => request.from === agentAddress)).to.have.length(agentTransactions);
      transcriptNote(
        `the remote signer signed ${remote.signRequests.length} transactions (eth_signTransaction), ${agentTransactions} of them the agent's`,
      );
    }
  });
}

describe("E2E: without SERVER_WALLET_MNEMONIC", function () {
  this.timeout(120_000);
  let system: E2eSystem;

  before(async function () {
    const deployment = await deployTestSystem();
    system = await startE2eApp("nowallets", deployment, { SERVER_WALLET_MNEMONIC: "" });
  });
  after(async function () {
    await system?.close();
  });

  it("reports configured false on the wallet and answers 503 on keyed onchain endpoints", async function () {
    const { apiKey } = await registerAgent(system.app.url);
    const call = client(system.app.url, apiKey);
    const wallet = await call("GET", "/api/v1/agent/wallet");
    expect(wallet.status).to.equal(200);
    expect(wallet.body).to.deep.equal({
      configured: false,
      agent_address: null,
      network: "hardhat",
      chain_id: 31337,
      message: "server wallets are not configured on this server (SERVER_WALLET_MNEMONIC)",
    });
    const requests: [string, string, Body | undefined][] = [
      ["POST", "/api/v1/agent/faucet", undefined],
      ["POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 1 }],
      ["POST", "/api/v1/agent/strategy/submit", { name: "abc", description: "0123456789" }],
      ["GET", "/api/v1/agent/strategy/list", undefined],
      ["GET", "/api/v1/agent/vault/positions", undefined],
      ["GET", "/api/v1/agent/galaxy/eligibility", undefined],
    ];
    for (const [method, path, body] of requests) {
      const response = await call(method, path, body);
      expect(response.status, path).to.equal(503);
      expect(response.body).to.deep.equal({ error: "server wallets are not configured: set SERVER_WALLET_MNEMONIC" });
    }
  });
});
