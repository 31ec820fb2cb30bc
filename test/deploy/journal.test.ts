import { expect } from "chai";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress, type Provider } from "ethers";
import {
  PARAMETERS_RECORD,
  ParameterDriftError,
  assertParametersUnchanged,
  parameterChanges,
  recordParameters,
  wipeStaleJournal,
} from "../../deploy/journal";
import { ParametersError, parametersToJson } from "../../deploy/parameters";
import { localParameters, workspace, type Workspace } from "./helpers";

/** A chain that has no code anywhere. */
const EMPTY_CHAIN = { getCode: async () => "0x" } as unknown as Provider;

describe("Ignition deployment folder: parameters record and stale journals", () => {
  let work: Workspace;
  beforeEach(() => (work = workspace("journal")));
  afterEach(() => work.remove());

  it("names every changed parameter, list entries included, and nothing when equal", async () => {
    const p = await localParameters();
    expect(parameterChanges(p, p)).to.deep.equal([]);
    const other = getAddress("0x00000000000000000000000000000000000000e5");
    expect(
      parameterChanges(p, {
        ...p,
        Tokens: { ...p.Tokens, minterBudget: 5n },
        Roles: { ...p.Roles, oracles: [p.Roles.oracles[0], other] },
        Funding: undefined,
      }),
    ).to.deep.equal([
      "Funding.faucet: 100000000000000000000 -> (none)",
      "Funding.relayer: 100000000000000000000 -> (none)",
      `Roles.oracles.length: 3 -> 2`,
      `Roles.oracles[1]: ${p.Roles.oracles[1]} -> ${other}`,
      `Roles.oracles[2]: ${p.Roles.oracles[2]} -> (none)`,
      "Tokens.minterBudget: 10000000000000000000000 -> 5",
    ]);
  });

  it("a new deployment records its parameters; a started one must be given the same", async () => {
    const p = await localParameters();
    await assertParametersUnchanged(work.journalDir, p);
    recordParameters(work.journalDir, p);
    const record = join(work.journalDir, PARAMETERS_RECORD);
    expect(readFileSync(record, "utf8")).to.equal(parametersToJson(p));
    // Before Ignition has journaled anything, other parameters are simply a new start.
    const changed = { ...p, Faucet: { ...p.Faucet, cooldown: 60 } };
    await assertParametersUnchanged(work.journalDir, changed);
    recordParameters(work.journalDir, changed);
    expect(readFileSync(record, "utf8")).to.equal(parametersToJson(changed));

    writeFileSync(join(work.journalDir, "journal.jsonl"), "");
    await assertParametersUnchanged(work.journalDir, changed);
    recordParameters(work.journalDir, p);
    expect(readFileSync(record, "utf8")).to.equal(parametersToJson(changed));
    let error: unknown;
    await assertParametersUnchanged(work.journalDir, p).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(ParameterDriftError);
    expect((error as ParameterDriftError).changes).to.deep.equal(["Faucet.cooldown: 60 -> 86400"]);
  });

  it("a journal without its parameters record: refused, since nobody can tell what changed", async () => {
    mkdirSync(work.journalDir, { recursive: true });
    writeFileSync(join(work.journalDir, "journal.jsonl"), "");
    let error: unknown;
    await assertParametersUnchanged(work.journalDir, await localParameters()).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(ParametersError);
    expect((error as Error).message).to.equal(
      `${work.journalDir} holds an Ignition journal but no parameters.json: the parameters it was started with ` +
        "are unknown, so this run cannot tell whether they changed",
    );
  });

  it("a journal whose contracts have no code: wiped on a local chain, refused on a public one", async () => {
    const address = getAddress("0x00000000000000000000000000000000000000f6");
    mkdirSync(work.journalDir, { recursive: true });
    writeFileSync(join(work.journalDir, "deployed_addresses.json"), JSON.stringify({ "Lens#VaultLens": address }));
    let message = "";
    await wipeStaleJournal(EMPTY_CHAIN, work.journalDir, false, () => undefined).catch(
      (e: Error) => (message = e.message),
    );
    expect(message).to.equal(
      `${work.journalDir} records Lens#VaultLens at ${address}, where this chain has no code: is the RPC endpoint ` +
        "the chain of this deployment?",
    );
    expect(existsSync(work.journalDir)).to.equal(true);

    const lines: string[] = [];
    expect(await wipeStaleJournal(EMPTY_CHAIN, work.journalDir, true, (line) => lines.push(line))).to.equal(true);
    expect(existsSync(work.journalDir)).to.equal(false);
    expect(lines).to.deep.equal([
      `journal ${work.journalDir} is from an earlier local chain (no code at ${address}): starting over`,
    ]);
    expect(await wipeStaleJournal(EMPTY_CHAIN, work.journalDir, true, () => undefined)).to.equal(false);
  });
});
