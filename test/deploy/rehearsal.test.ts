/**
 * `npm run rehearse:base-sepolia` as a test, so that `npm test` keeps the Base Sepolia runbook true: a node started
 * as chain 84532 with Circle's USDC address mocked, the Base Sepolia parameters, a deployment killed halfway and
 * resumed, changed parameters refused, the role check, the verification plan, and the API answering an agent.
 */
import { expect } from "chai";
import { getAddress } from "ethers";
import { BASE_SEPOLIA_USDC } from "../../deploy/parameters";
import { rehearseBaseSepolia, type RehearsalReport } from "../../deploy/rehearsal";
import { checkDeployment } from "./checkDeployment";

/** Base Sepolia deployment: 15 contracts (Circle's USDC instead of TestUSDC) and 25 role steps, no funding. */
const BASE_SEPOLIA_TRANSACTIONS = 40;
const BASE_SEPOLIA_CONTRACTS = 15;
/** Role check lines of a Base Sepolia deployment (no TestUSDC). */
const BASE_SEPOLIA_CHECKS = 203;

describe("Base Sepolia rehearsal (local node as chain 84532, no internet)", function () {
  this.timeout(300_000);
  let report: RehearsalReport;

  before(async function () {
    report = await rehearseBaseSepolia({
      inspect: async (provider, partial) =>
        checkDeployment(provider, partial.file, partial.parameters, {
          chainId: 84532,
          network: "localhost",
          deployer: partial.deployer,
        }),
    });
  });

  it("a deployment killed halfway resumes from Ignition's journal and deploys no contract twice", () => {
    const { stopped, file } = report;
    expect(stopped.pendingTransactions).to.be.greaterThan(0);
    const final = new Map(
      [...Object.values(file.contracts), ...Object.values(file.vaults)].map((entry) => [entry.address, entry]),
    );
    const recordedContracts = Object.entries(stopped.recorded).filter(([futureId]) => futureId !== "Tokens#USDC");
    expect(recordedContracts.length).to.be.within(5, BASE_SEPOLIA_CONTRACTS - 1);
    for (const [futureId, address] of recordedContracts) {
      expect(final.has(getAddress(address)), `${futureId} kept its address`).to.equal(true);
    }
    expect(report.resumeOutput).to.match(/^resume {2}.*\(steps already done are not sent again\)$/m);
    expect(report.contractCreations).to.equal(BASE_SEPOLIA_CONTRACTS);
    expect(report.transactions).to.equal(BASE_SEPOLIA_TRANSACTIONS);
    expect(file.usdc).to.deep.equal({ address: BASE_SEPOLIA_USDC, deployedByUs: false });
    expect(file.contracts.TestUSDC).to.equal(undefined);
  });

  it("three parameters changed after the deployment: the run is refused, naming each", () => {
    expect(report.drift.exitCode).to.equal(1);
    expect(report.drift.output).to.include(
      "  Faucet.ethAmount: 1000000000000000 -> 2000000000000000\n" +
        "  Governance.timelockMinDelay: 172800 -> 7200\n" +
        "  Registry.minPaperTradingPeriod: 86400 -> 3600\n",
    );
  });

  it("the role check passes: every role, admin, delay and threshold as the table intends", () => {
    expect(report.roleCheck.exitCode).to.equal(0);
    expect(report.roleCheck.output).to.include(
      `role check passed: ${BASE_SEPOLIA_CHECKS} roles, admins and settings on chain 84532 as intended`,
    );
    expect(report.roleCheck.output).to.not.include("DIFF");
  });

  it("the verification plan sends each contract to Etherscan API v2 (chain 84532) and Sourcify with its constructor arguments", () => {
    const { verifyPlan, file, deployer } = report;
    expect(verifyPlan.exitCode).to.equal(0);
    expect(verifyPlan.output).to.include(
      "Etherscan https://api.etherscan.io/v2/api (chainid=84532), Sourcify https://sourcify.dev/server",
    );
    expect(verifyPlan.output).to.include(
      "Governance#TimelockController @openzeppelin/contracts/governance/TimelockController.sol:TimelockController " +
        `at ${file.contracts.TimelockController!.address}\n` +
        `  constructor arguments ["172800",[],["0x0000000000000000000000000000000000000000"],"${deployer}"]`,
    );
    expect(verifyPlan.output.match(/^ {2}constructor arguments /gm)).to.have.length(BASE_SEPOLIA_CONTRACTS);
  });

  it("the API on the rehearsal chain answers the agent journey: register, faucet, deposit, submit, list", () => {
    const steps = report.journey;
    expect(steps.map((step) => [step.request.replace(/\?.*$/, ""), step.status])).to.deep.equal([
      ["GET /api/v1/agent/auth/nonce", 200],
      ["POST /api/v1/agent/auth/register", 200],
      ["GET /api/v1/agent/wallet", 200],
      ["POST /api/v1/agent/faucet", 200],
      ["POST /api/v1/agent/vault/deposit", 200],
      ["POST /api/v1/agent/strategy/submit", 200],
      ["GET /api/v1/agent/strategy/list", 200],
      ["GET /api/v1/agent/wallet", 200],
    ]);
    const [, , wallet, faucet, deposit, submit, list, after] = steps.map((step) => step.body);
    expect(wallet).to.include({ network: "base-sepolia", chain_id: 84532, eth_balance_wei: "0", usdc_balance: 0 });
    // The Base Sepolia faucet drips gas only; the agent's USDC came from (mock) Circle's faucet.
    expect(faucet).to.include({ status: "confirmed", drip_amount_eth: "0.001", drip_amount_usdc: 0 });
    expect(deposit).to.include({
      status: "confirmed",
      vault_id: "moderate",
      vault_address: report.file.vaults.moderate.address,
      amount_usdc: 25,
    });
    expect(submit).to.include({ success: true, strategy_name: "rehearsal momentum" });
    expect(
      (list.strategies as { strategy_id: string; name: string }[]).map((s) => [s.strategy_id, s.name]),
    ).to.deep.equal([[submit.strategy_id, "rehearsal momentum"]]);
    expect(after).to.include({ usdc_balance: 75, has_gas: true });
    expect(after.positions).to.deep.equal([
      {
        vault_address: report.file.vaults.moderate.address,
        vault_name: "NAP Moderate USDC",
        shares: "25",
        value_usdc: "25",
      },
    ]);
  });
});
