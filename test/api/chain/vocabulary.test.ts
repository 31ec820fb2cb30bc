import { expect } from "chai";
import { artifacts } from "hardhat";
import { milestone, milestoneIndex, proposalState, strategyStatus } from "../../../api/src/chain/vocabulary";
import { MILESTONES, PROPOSAL_STATES, STRATEGY_STATUSES } from "../../../api/src/domain/model";

/**
 * The chain's vocabulary against the compiled contracts: each API list must hold the members of its Solidity enum,
 * in the enum's order, and the ABI must use that enum where the API reads it.
 */

interface AstNode {
  nodeType?: string;
  canonicalName?: string;
  members?: { name: string }[];
  [key: string]: unknown;
}

/** Members of enum `canonicalName` declared in `source`, from the compiler's AST. */
async function enumMembers(contract: string, source: string, canonicalName: string): Promise<string[]> {
  const buildInfo = await artifacts.getBuildInfo((await artifacts.readArtifact(contract)).sourceName + `:${contract}`);
  if (!buildInfo) throw new Error(`no build info for ${contract}`);
  const found: string[][] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const ast = node as AstNode;
    if (ast.nodeType === "EnumDefinition" && ast.canonicalName === canonicalName) {
      found.push((ast.members ?? []).map((member) => member.name));
    }
    Object.values(ast).forEach(visit);
  };
  visit(buildInfo.output.sources[source].ast);
  if (found.length !== 1) throw new Error(`enum ${canonicalName} not found once in ${source}`);
  return found[0];
}

/** Solidity's PascalCase member names as the API writes them: GuardianReview -> guardian_review. */
const snake = (name: string) => name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();

/** The internal types of every ABI parameter of `contract`, at any depth. */
async function abiInternalTypes(contract: string): Promise<string[]> {
  const { abi } = await artifacts.readArtifact(contract);
  const types: string[] = [];
  const visit = (params: { internalType?: string; components?: unknown[] }[] = []): void => {
    for (const param of params) {
      if (param.internalType) types.push(param.internalType);
      visit(param.components as typeof params);
    }
  };
  for (const item of abi as { inputs?: []; outputs?: [] }[]) {
    visit(item.inputs);
    visit(item.outputs);
  }
  return types;
}

describe("Chain vocabulary (api/src/chain/vocabulary.ts) against the compiled contracts", () => {
  it("names the strategy statuses of IStrategyRegistryV3.Status, in its order, as read by the registry's views", async () => {
    const members = await enumMembers(
      "StrategyRegistryV3",
      "contracts/interfaces/IStrategyRegistryV3.sol",
      "IStrategyRegistryV3.Status",
    );
    expect(members.map(snake)).to.deep.equal([...STRATEGY_STATUSES]);
    members.forEach((_, i) => expect(strategyStatus(i)).to.equal(STRATEGY_STATUSES[i]));
    expect(await abiInternalTypes("StrategyRegistryV3")).to.include("enum IStrategyRegistryV3.Status");
  });

  it("names the proposal states of OpenZeppelin's IGovernor.ProposalState, in its order", async () => {
    const members = await enumMembers(
      "NapGovernor",
      "@openzeppelin/contracts/governance/IGovernor.sol",
      "IGovernor.ProposalState",
    );
    expect(members.map(snake)).to.deep.equal([...PROPOSAL_STATES]);
    members.forEach((_, i) => expect(proposalState(BigInt(i))).to.equal(PROPOSAL_STATES[i]));
    expect(await abiInternalTypes("NapGovernor")).to.include("enum IGovernor.ProposalState");
  });

  it("names the badge milestones of IAgentBadges.Milestone, in its order, both ways", async () => {
    const members = await enumMembers("AgentBadges", "contracts/interfaces/IAgentBadges.sol", "IAgentBadges.Milestone");
    expect(members.map(snake)).to.deep.equal([...MILESTONES]);
    for (const [i, name] of MILESTONES.entries()) {
      expect(milestone(i)).to.equal(name);
      expect(milestoneIndex(name)).to.equal(i);
    }
    expect(await abiInternalTypes("AgentBadges")).to.include("enum IAgentBadges.Milestone");
  });

  it("refuses an index outside the vocabulary instead of guessing", () => {
    expect(() => strategyStatus(7)).to.throw("strategy status 7 is not in the API's vocabulary");
    expect(() => proposalState(8n)).to.throw("proposal state 8 is not in the API's vocabulary");
    expect(() => milestone(3)).to.throw("badge milestone 3 is not in the API's vocabulary");
  });
});
