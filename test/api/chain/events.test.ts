import { expect } from "chai";
import fc from "fast-check";
import type { EventFragment, Interface } from "ethers";
import { ethers } from "hardhat";
import { createChainAccess, type ChainAccess, type RpcProvider } from "../../../api/src/chain";
import type { Deployment } from "../../../api/src/chain/deployment";
import {
  AgentBadges__factory,
  NapFaucet__factory,
  NapGovernor__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
} from "../../../typechain-types";
import { deployTestSystem } from "../helpers/system";
import { plainOf, valueOf } from "./abiArbitraries";

const PARAMS = {
  maxPositionSizePercent: 10,
  maxLeverage: 200,
  stopLossPercent: 500,
  slippageToleranceBps: 100,
  correlationThreshold: 70,
  velocityLimit: 1_000_000,
  flashLoansEnabled: false,
};

/** The typed event decoder (api/src/chain/events.ts) shared by the transaction path and the indexer. */
describe("EventDecoder", function () {
  let deployment: Deployment;
  let chain: ChainAccess;

  before(async function () {
    deployment = await deployTestSystem();
    chain = createChainAccess(ethers.provider as unknown as RpcProvider, 31337, deployment);
  });

  it("decodes the registry's StrategySubmitted event of a receipt, with typed values", async function () {
    const [, , author] = await ethers.getSigners();
    const registry = StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, author);
    const receipt = await (await registry.submit("decoded", "a strategy to decode", ethers.id("dna"), PARAMS)).wait();
    const event = chain.events.first(receipt!.logs, "StrategySubmitted");
    expect(event).to.not.equal(null);
    expect(event!.owner).to.equal(author.address);
    expect(event!.name).to.equal("decoded");
    expect(event!.description).to.equal("a strategy to decode");
    expect(event!.dna).to.equal(ethers.id("dna"));
    expect(event!.params).to.deep.equal({
      maxPositionSizePercent: 10n,
      maxLeverage: 200n,
      stopLossPercent: 500n,
      slippageToleranceBps: 100n,
      correlationThreshold: 70n,
      velocityLimit: 1_000_000n,
      flashLoansEnabled: false,
    });
    const [decoded] = chain.events.decodeAll(receipt!.logs);
    expect(decoded).to.deep.include({
      contract: "StrategyRegistryV3",
      address: deployment.contracts.StrategyRegistryV3.address,
      name: "StrategySubmitted",
      blockNumber: receipt!.blockNumber,
      transactionHash: receipt!.hash,
    });
  });

  it("never takes an event of the same signature from another contract for the system's", async function () {
    const lookalike = await (await ethers.getContractFactory("RegistryTextsInEvents")).deploy();
    const receipt = await (await lookalike.submit("twin", "same event, other contract", ethers.id("x"), PARAMS)).wait();
    expect(receipt!.logs).to.have.length(1);
    expect(chain.events.decodeAll(receipt!.logs)).to.deep.equal([]);
    expect(chain.events.first(receipt!.logs, "StrategySubmitted")).to.equal(null);
  });

  it("decodes text that is not UTF-8 with U+FFFD instead of failing", async function () {
    const [, , author] = await ethers.getSigners();
    const registry = StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, author);
    // ethers encodes a lone low surrogate as the bytes ED B0 80, which are not UTF-8.
    const receipt = await (await registry.submit("bad \udc00 name", "a description", ethers.id("bad"), PARAMS)).wait();
    expect(chain.events.first(receipt!.logs, "StrategySubmitted")!.name).to.equal("bad \ufffd\ufffd\ufffd name");
  });

  it("decodes every event of every system contract with any arguments exactly as ethers' Interface does", function () {
    const contracts: [string, string, Interface][] = [
      [
        "StrategyRegistryV3",
        deployment.contracts.StrategyRegistryV3.address,
        StrategyRegistryV3__factory.createInterface(),
      ],
      ["NapFaucet", deployment.contracts.NapFaucet.address, NapFaucet__factory.createInterface()],
      ["AgentBadges", deployment.contracts.AgentBadges.address, AgentBadges__factory.createInterface()],
      ["NapToken", deployment.contracts.NapToken.address, NapToken__factory.createInterface()],
      ["NapGovernor", deployment.contracts.NapGovernor.address, NapGovernor__factory.createInterface()],
      ["USDC", chain.contracts.address("USDC"), TestUSDC__factory.createInterface()],
      ["NapVault:moderate", deployment.vaults.moderate!.address, NapVault__factory.createInterface()],
    ];
    const events: [string, string, Interface, EventFragment][] = [];
    for (const [contract, address, iface] of contracts) {
      iface.forEachEvent((fragment) => events.push([contract, address, iface, fragment]));
    }
    const logs = fc
      .constantFrom(...events)
      .chain((event) => fc.tuple(fc.constant(event), fc.tuple(...event[3].inputs.map(valueOf))));
    fc.assert(
      fc.property(logs, ([[contract, address, iface, fragment], values]) => {
        const { data, topics } = iface.encodeEventLog(fragment, values);
        const log = { address, topics, data, blockNumber: 7, transactionHash: ethers.id("tx"), index: 3 };
        const expected = iface.decodeEventLog(fragment, data, topics);
        expect(chain.events.decode(log)).to.deep.equal({
          contract,
          address,
          name: fragment.name,
          args: Object.fromEntries(
            fragment.inputs.map((input, i) => [input.name || String(i), plainOf(input, expected[i])]),
          ),
          blockNumber: 7,
          transactionHash: ethers.id("tx"),
          index: 3,
        });
      }),
      { numRuns: 1_000 },
    );
  });
});
