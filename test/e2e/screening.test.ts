import { expect } from "chai";
import { ethers } from "hardhat";
import { HDNodeWallet } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { screenStrategy, screeningIntentKey } from "../../api/src/domain/screening";
import { registerAgent, startTestApp, type TestApp } from "../api/helpers/app";
import { dropMongoStore, freshMongoStore } from "../api/helpers/mongo";
import { deployTestSystem } from "../api/helpers/system";
import { AgentBadges__factory, NapToken__factory, StrategyRegistryV3__factory } from "../../typechain-types";
import type { MongoStore } from "../../api/src/store/mongo";
import { client, DEV_MNEMONIC, OPERATOR_KEY } from "./helpers";

const RELAYER = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, "m/44'/60'/0'/0/0").address;
const PASSING = { max_leverage: 500, stop_loss_percent: 2000, max_position_size_percent: 50 };
const FAILING = { max_leverage: 400, flash_loans_enabled: true };

describe("Automated strategy screening (e2e: Hardhat chain, MongoDB store)", function () {
  this.timeout(180_000);

  let deployment: Deployment;
  let store: MongoStore;
  let app: TestApp | undefined;

  const registry = () =>
    StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, ethers.provider);

  async function start(screening: "auto" | "off"): Promise<TestApp> {
    const started = await startTestApp({
      store,
      deployment,
      env: { SERVER_WALLET_MNEMONIC: DEV_MNEMONIC, AGENT_API_KEYS: OPERATOR_KEY, STRATEGY_SCREENING: screening },
      extra: { engineOptions: { pollIntervalMs: 20 } },
    });
    await started.app.useCases.start();
    return started;
  }

  /** Stops the app without closing the shared store (a process restart). */
  async function stop(): Promise<void> {
    if (!app) return;
    await app.app.useCases.settled();
    await app.close();
    app = undefined;
  }

  async function newAgent(target: TestApp) {
    const registered = await registerAgent(target.url);
    const call = client(target.url, registered.apiKey);
    expect((await call("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    return { agentId: registered.agentId, call };
  }

  async function submit(call: ReturnType<typeof client>, name: string, risk: Record<string, unknown>) {
    const response = await call("POST", "/api/v1/agent/strategy/submit", {
      name,
      description: "screening test strategy",
      ...risk,
    });
    expect(response.status).to.equal(200);
    expect(response.body.strategy_status).to.equal("shadow");
    return response.body.strategy_id as string;
  }

  before(async function () {
    deployment = await deployTestSystem();
    store = await freshMongoStore("screening");
  });

  afterEach(async function () {
    await stop();
  });

  after(async function () {
    await dropMongoStore(store);
  });

  it("applies the documented rules", function () {
    const base = { maxPositionSizePercent: 50, maxLeverage: 500, stopLossPercent: 2000, flashLoansEnabled: false };
    expect(screenStrategy(base)).to.deep.equal({ pass: true, reasons: [] });
    expect(screenStrategy({ ...base, maxLeverage: 501 }).reasons).to.deep.equal(["max_leverage 501 above 500"]);
    expect(screenStrategy({ ...base, stopLossPercent: 2001 }).reasons).to.deep.equal([
      "stop_loss_percent 2001 above 2000",
    ]);
    expect(screenStrategy({ ...base, maxPositionSizePercent: 51 }).reasons).to.deep.equal([
      "max_position_size_percent 51 above 50",
    ]);
    expect(screenStrategy({ ...base, flashLoansEnabled: true, maxLeverage: 300 }).pass).to.equal(true);
    expect(screenStrategy({ ...base, flashLoansEnabled: true, maxLeverage: 301 }).reasons).to.deep.equal([
      "flash loans with max_leverage 301 above 300",
    ]);
  });

  it("passes 3 strategies (tier established, badge, NAP) and deprecates a failing one that does not count", async function () {
    app = await start("auto");
    const { agentId, call } = await newAgent(app);
    const passing = [];
    for (let i = 0; i < 3; i++) passing.push(await submit(call, `passing ${i}`, PASSING));
    const failing = await submit(call, "failing", FAILING);
    await app.app.useCases.settled();

    for (const id of passing) expect((await registry().getStrategy(id)).status).to.equal(1n); // guardian_review
    expect((await registry().getStrategy(failing)).status).to.equal(6n); // deprecated
    const agent = (await store.agents.findById(agentId))!;
    expect(agent).to.include({
      tier: "established",
      strategiesSubmitted: 4,
      strategiesPassedScreening: 3,
      performanceScore: 34,
    });
    const address = app.app.useCases.wallets.addressOf(agent);
    const badges = AgentBadges__factory.connect(deployment.contracts.AgentBadges.address, ethers.provider);
    expect(await badges.badgeOf(address, 0)).to.not.equal(0n);
    expect(await badges.badgeOf(address, 1)).to.not.equal(0n);
    const token = NapToken__factory.connect(deployment.contracts.NapToken.address, ethers.provider);
    expect(await token.balanceOf(address)).to.equal(ethers.parseEther("100"));

    // Listing the strategies syncs counters from the chain: the deprecated one never counts.
    const list = await call("GET", "/api/v1/agent/strategy/list");
    expect(list.status).to.equal(200);
    expect((await store.agents.findById(agentId))!.strategiesPassedScreening).to.equal(3);
  });

  it("STRATEGY_SCREENING=off leaves strategies in shadow; a restart with auto screens them once", async function () {
    app = await start("off");
    const { agentId, call } = await newAgent(app);
    const id = await submit(call, "left in shadow", PASSING);
    await app.app.useCases.settled();
    expect((await registry().getStrategy(id)).status).to.equal(0n);
    expect((await store.agents.findById(agentId))!.strategiesPassedScreening).to.equal(0);
    await stop();

    const before = await ethers.provider.getTransactionCount(RELAYER);
    app = await start("auto");
    await app.app.useCases.settled();
    expect((await registry().getStrategy(id)).status).to.equal(1n);
    expect(await ethers.provider.getTransactionCount(RELAYER)).to.equal(before + 1);
    expect((await store.agents.findById(agentId))!.strategiesPassedScreening).to.equal(1);
    await stop();

    // A second restart finds nothing in shadow and sends nothing.
    app = await start("auto");
    await app.app.useCases.settled();
    expect(await ethers.provider.getTransactionCount(RELAYER)).to.equal(before + 1);
    expect((await store.agents.findById(agentId))!.strategiesPassedScreening).to.equal(1);
  });

  it("a duplicate screen of one strategy (concurrent, and after it is done) sends one transaction", async function () {
    app = await start("off");
    const { agentId, call } = await newAgent(app);
    const id = await submit(call, "screened twice", PASSING);
    const useCases = app.app.useCases;
    await useCases.settled(); // the registered badge, minted by the relayer after the submission
    const before = await ethers.provider.getTransactionCount(RELAYER);
    const results = await Promise.all([useCases.relayer.screen(agentId, id), useCases.relayer.screen(agentId, id)]);
    expect(results).to.deep.equal(["passed", "passed"]);
    expect(await useCases.relayer.screen(agentId, id)).to.equal(null);
    expect(await ethers.provider.getTransactionCount(RELAYER)).to.equal(before + 1);
    expect((await registry().getStrategy(id)).status).to.equal(1n);
    expect((await store.agents.findById(agentId))!.strategiesPassedScreening).to.equal(1);
    expect(await useCases.engine.lookup(screeningIntentKey(31337, id))).to.not.equal(null);
  });

  it("counts a submission and a screening once while strategy lists catch up at the same moment", async function () {
    app = await start("off");
    const { agentId, call } = await newAgent(app);
    const first = await submit(call, "counted once", PASSING);
    const useCases = app.app.useCases;
    await useCases.settled();
    // Lists (each one compares the chain with the counters and catches up) run before, during and after the screen.
    const lists = async () => {
      for (let i = 0; i < 6; i++) expect((await call("GET", "/api/v1/agent/strategy/list")).status).to.equal(200);
    };
    const [verdict] = await Promise.all([useCases.relayer.screen(agentId, first), lists(), lists(), lists()]);
    expect(verdict).to.equal("passed");
    const second = await submit(call, "counted once too", PASSING);
    await Promise.all([lists(), lists()]);
    await useCases.settled();
    expect((await registry().getStrategy(second)).status).to.equal(0n, "screening is off: still in shadow");
    expect(await store.agents.findById(agentId)).to.deep.include({
      strategiesSubmitted: 2,
      strategiesPassedScreening: 1,
    });
  });
});
