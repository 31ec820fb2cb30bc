import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HDNodeWallet, getAddress, parseEther, parseUnits } from "ethers";
import { readDeploymentParameters } from "@nomicfoundation/hardhat-ignition/helpers";
import { AGENT_PATH_PREFIX as API_AGENT_PATH_PREFIX } from "../../api/src/chain/wallets";
import {
  AGENT_PATH_PREFIX,
  DEV_SERVER_WALLET_MNEMONIC,
  HARDHAT_DEFAULT_MNEMONIC,
  RELAYER_PATH,
} from "../../deploy/devWallets";
import {
  BASE_SEPOLIA_USDC,
  EXIT_MARGIN_SECONDS,
  ParametersError,
  checkParameters,
  flattenParameters,
  parametersToJson,
  parseParameters,
  publicDevelopmentKeys,
  readParameters,
  relayerVoteBound,
  type DeployParameters,
} from "../../deploy/parameters";
import { maxFulfillmentDelay } from "../../deploy/vaults";
import { BASE_SEPOLIA_PARAMETERS, LOCAL_PARAMETERS, deployLocal, localParameters } from "./helpers";

const DEPLOYER = getAddress("0x00000000000000000000000000000000000000d1");
const A = getAddress("0x00000000000000000000000000000000000000a1");
const B = getAddress("0x00000000000000000000000000000000000000b2");
const C = getAddress("0x00000000000000000000000000000000000000c3");
const D = getAddress("0x00000000000000000000000000000000000000d4");
const HARDHAT_ACCOUNTS = [
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
  "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
];
/** Hardhat dev account 7: the local proposal guardian, a key apart from the guardians. */
const HARDHAT_ACCOUNT_7 = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";
const DEV_RELAYER = HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, RELAYER_PATH).address;

/** The Base Sepolia file as read, with the team's key holders filled in. */
async function baseSepolia(roles: Partial<DeployParameters["Roles"]> = {}, guardian = D): Promise<DeployParameters> {
  const raw = (await readDeploymentParameters(BASE_SEPOLIA_PARAMETERS)) as Record<string, Record<string, unknown>>;
  return parseParameters(
    {
      ...raw,
      Governance: { ...raw.Governance, proposalGuardian: guardian },
      Roles: { relayer: A, guardians: [B, C, DEPLOYER], oracles: [B, C, DEPLOYER], ...roles },
    },
    "baseSepolia",
  );
}

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(ParametersError);
    return (error as Error).message;
  }
  throw new Error("expected the parameters to be refused");
}

describe("deployment parameters", () => {
  it("reads the local file with Ignition's reader: dev accounts, TestUSDC, funding, short local delays", async () => {
    const p = await localParameters();
    expect(p).to.deep.equal({
      Tokens: {
        napInitialSupply: parseEther("1000000"),
        napCap: parseEther("1000000000"),
        minterBudget: parseEther("10000"),
        minterPeriod: 86_400,
      },
      Governance: {
        timelockMinDelay: 172_800,
        votingDelay: 1,
        votingPeriod: 300,
        proposalThreshold: parseEther("1"),
        quorumPercent: 4,
        proposalGuardian: HARDHAT_ACCOUNT_7,
      },
      Registry: { guardianThreshold: 2, oracleThreshold: 2, minPaperTradingPeriod: 60 },
      Faucet: { ethAmount: parseEther("0.05"), usdcAmount: parseUnits("1000", 6), cooldown: 86_400 },
      Roles: {
        relayer: DEV_RELAYER,
        guardians: HARDHAT_ACCOUNTS.slice(0, 3),
        oracles: HARDHAT_ACCOUNTS.slice(3, 6),
      },
      Funding: { faucet: parseEther("100"), relayer: parseEther("100") },
    });
    expect(checkParameters(p, 31337, DEPLOYER)).to.deep.equal([]);
  });

  it("the Base Sepolia file as committed: refused until every key holder is named, each by its field", async () => {
    let message = "";
    await readParameters(BASE_SEPOLIA_PARAMETERS).catch((error: Error) => (message = error.message));
    expect(message).to.equal(
      `${BASE_SEPOLIA_PARAMETERS}: ` +
        [
          "Governance.proposalGuardian",
          "Roles.relayer",
          "Roles.guardians.0",
          "Roles.guardians.1",
          "Roles.guardians.2",
          "Roles.oracles.0",
          "Roles.oracles.1",
          "Roles.oracles.2",
        ]
          .map((field) => `${field}: must be a 0x address`)
          .join("; "),
    );
  });

  it("the Base Sepolia values: Circle's USDC, no USDC from the faucet, testnet delays, no funding", async () => {
    const p = await baseSepolia();
    expect(p.Tokens).to.deep.equal({
      usdc: BASE_SEPOLIA_USDC,
      napInitialSupply: parseEther("1000000"),
      napCap: parseEther("1000000000"),
      minterBudget: parseEther("5000"),
      minterPeriod: 86_400,
    });
    expect(p.Governance).to.deep.equal({
      timelockMinDelay: 172_800,
      votingDelay: 300,
      votingPeriod: 86_400,
      proposalThreshold: parseEther("1"),
      quorumPercent: 4,
      proposalGuardian: D,
    });
    expect(p.Registry).to.deep.equal({ guardianThreshold: 2, oracleThreshold: 2, minPaperTradingPeriod: 86_400 });
    expect(p.Faucet).to.deep.equal({ ethAmount: parseEther("0.001"), usdcAmount: 0n, cooldown: 86_400 });
    expect(p.Funding).to.equal(undefined);
    expect(checkParameters(p, 84532, DEPLOYER)).to.deep.equal([]);
  });

  it("timelock shorter than the longest vault fulfilment delay plus the exit margin: refused, naming Governance.timelockMinDelay", async () => {
    const longest = maxFulfillmentDelay();
    expect(longest).to.equal(86_400);
    const floor = longest + EXIT_MARGIN_SECONDS;
    for (const [chainId, p] of [
      [31337, await localParameters()],
      [84532, await baseSepolia()],
    ] as const) {
      const short = { ...p, Governance: { ...p.Governance, timelockMinDelay: floor - 1 } };
      expect(refusal(() => checkParameters(short, chainId, DEPLOYER))).to.equal(
        `Governance.timelockMinDelay ${floor - 1} is shorter than the longest vault fulfilment delay (${longest} s) ` +
          `plus the exit margin (${EXIT_MARGIN_SECONDS} s): holders could not leave before a proposal executes`,
      );
      const exact = { ...p, Governance: { ...p.Governance, timelockMinDelay: floor } };
      expect(checkParameters(exact, chainId, DEPLOYER)).to.deep.equal([]);
    }
  });

  it("relayer hot key as proposal guardian, registry guardian or oracle: refused", async () => {
    const cases: [DeployParameters, string][] = [
      [await baseSepolia({}, A), "Governance.proposalGuardian must not be the relayer (a hot key)"],
      [await baseSepolia({ guardians: [B, A, C] }), "Roles.guardians must not include the relayer (a hot key)"],
      [await baseSepolia({ oracles: [A, B, C] }), "Roles.oracles must not include the relayer (a hot key)"],
    ];
    for (const [p, message] of cases) expect(refusal(() => checkParameters(p, 84532, DEPLOYER))).to.equal(message);
  });

  it("the deployer as the only guardian or the only oracle on a public chain: refused (allowed on a local chain)", async () => {
    const p = await baseSepolia({ guardians: [DEPLOYER], oracles: [DEPLOYER] });
    const alone = { ...p, Registry: { ...p.Registry, guardianThreshold: 1, oracleThreshold: 1 } };
    expect(refusal(() => checkParameters(alone, 84532, DEPLOYER))).to.equal(
      `Roles.guardians names only the deployer ${DEPLOYER} on chain 84532: a public deployment does not leave ` +
        "reviews and approvals to the deployer's key alone (docs/deploy.md); " +
        `Roles.oracles names only the deployer ${DEPLOYER} on chain 84532: a public deployment does not leave ` +
        "reviews and approvals to the deployer's key alone (docs/deploy.md)",
    );
    expect(checkParameters(alone, 31337, DEPLOYER)).to.deep.equal([]);
  });

  it("one vote deciding reviews or approvals on a public chain: allowed, with a warning each", async () => {
    const p = await baseSepolia({ guardians: [B], oracles: [B, C] });
    const weak = { ...p, Registry: { ...p.Registry, guardianThreshold: 1, oracleThreshold: 1 } };
    expect(checkParameters(weak, 84532, DEPLOYER)).to.deep.equal([
      "one guardian vote decides a strategy review (1 guardian(s), threshold 1): name more Roles.guardians and " +
        "raise Registry.guardianThreshold",
      "one oracle vote makes a strategy live (2 oracle(s), threshold 1): name more Roles.oracles and raise " +
        "Registry.oracleThreshold",
    ]);
  });

  it("thresholds above the number of voters, a voter listed twice: refused", async () => {
    const p = await baseSepolia();
    expect(
      refusal(() =>
        checkParameters(
          {
            ...p,
            Registry: { ...p.Registry, guardianThreshold: 4, oracleThreshold: 5 },
            Roles: { ...p.Roles, guardians: [B, C, B] },
          },
          84532,
          DEPLOYER,
        ),
      ),
    ).to.equal(
      `Roles.guardians lists ${B} twice; Registry.guardianThreshold 4 > 3 guardians; ` +
        "Registry.oracleThreshold 5 > 3 oracles",
    );
  });

  it("public development keys for a public chain: the local key holders on chain 84532 are refused, each naming its role and address", async () => {
    // The review's parameters: Base Sepolia's values with the local file's key holders (Hardhat's accounts and the
    // dev mnemonic's relayer).
    const local = await localParameters();
    const p = await baseSepolia(local.Roles, local.Governance.proposalGuardian);
    const publicKey = (role: string, address: string, source: string) =>
      `${role} ${address} is a public development key (${source}): anyone can sign with it on chain 84532, so ` +
      "only local chains (31337, 1337) accept it";
    const hardhat = (index: number) => `Hardhat's default mnemonic m/44'/60'/0'/0/${index}`;
    expect(refusal(() => checkParameters(p, 84532, DEPLOYER)).split("; ")).to.deep.equal([
      publicKey("Governance.proposalGuardian", HARDHAT_ACCOUNT_7, hardhat(7)),
      publicKey("Roles.relayer", DEV_RELAYER, "DEV_SERVER_WALLET_MNEMONIC m/44'/60'/0'/0/0"),
      ...HARDHAT_ACCOUNTS.slice(0, 3).map((a, i) => publicKey(`Roles.guardians[${i}]`, a, hardhat(i + 1))),
      ...HARDHAT_ACCOUNTS.slice(3, 6).map((a, i) => publicKey(`Roles.oracles[${i}]`, a, hardhat(i + 4))),
    ]);
    for (const chainId of [31337, 1337]) expect(checkParameters(p, chainId, DEPLOYER)).to.deep.equal([]);

    // One key of each public source in one seat: the last Hardhat account checked, a dev-mnemonic account that is
    // not the relayer, and an agent wallet the API derives from the dev mnemonic.
    const cases: [string, string][] = [
      [HDNodeWallet.fromPhrase(HARDHAT_DEFAULT_MNEMONIC, undefined, "m/44'/60'/0'/0/19").address, hardhat(19)],
      [
        HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, "m/44'/60'/0'/0/5").address,
        "DEV_SERVER_WALLET_MNEMONIC m/44'/60'/0'/0/5",
      ],
      [
        HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, `${API_AGENT_PATH_PREFIX}/19`).address,
        "DEV_SERVER_WALLET_MNEMONIC m/44'/60'/1'/0/19",
      ],
    ];
    for (const [address, source] of cases) {
      const one = await baseSepolia({ oracles: [B, address, DEPLOYER] });
      expect(refusal(() => checkParameters(one, 84532, DEPLOYER))).to.equal(
        publicKey("Roles.oracles[1]", address, source),
      );
      expect(checkParameters(one, 31337, DEPLOYER)).to.deep.equal([]);
    }
    expect(AGENT_PATH_PREFIX).to.equal(API_AGENT_PATH_PREFIX);
    expect(publicDevelopmentKeys().size).to.equal(60);
  });

  it("one key as proposal guardian and vault guardian: refused on every chain, naming both roles", async () => {
    const seat = (address: string, index: number, what: string) =>
      `Governance.proposalGuardian ${address} is also Roles.guardians[${index}] (${what}): one key would cancel ` +
      "the proposals that replace it while it pauses; name another key for one of the roles";
    // The local file as it was: dev account 1 both proposal guardian and first guardian.
    const local = await localParameters();
    const before = { ...local, Governance: { ...local.Governance, proposalGuardian: HARDHAT_ACCOUNTS[0] } };
    expect(refusal(() => checkParameters(before, 31337, DEPLOYER))).to.equal(
      seat(HARDHAT_ACCOUNTS[0], 0, "every vault's GUARDIAN and a registry guardian"),
    );
    for (const chainId of [84532, 31337]) {
      const vaultGuardian = await baseSepolia({}, B);
      expect(refusal(() => checkParameters(vaultGuardian, chainId, DEPLOYER))).to.equal(
        seat(B, 0, "every vault's GUARDIAN and a registry guardian"),
      );
      const registryGuardian = await baseSepolia({}, DEPLOYER);
      expect(refusal(() => checkParameters(registryGuardian, chainId, DEPLOYER))).to.equal(
        seat(DEPLOYER, 2, "a registry guardian"),
      );
    }
    // An oracle may also be the proposal guardian: an oracle cannot pause anything.
    expect(checkParameters(await baseSepolia({ oracles: [B, D, DEPLOYER] }), 84532, DEPLOYER)).to.deep.equal([]);
  });

  it("agents-only supply gives the relayer a majority: napInitialSupply 0 is refused with the relayer's figures", async () => {
    const figures = (budget: string, span: number, windows: number, minted: string, held = "") =>
      `Tokens.minterBudget ${budget} NAP per Tokens.minterPeriod 86400 s lets the relayer (a hot key) mint ${minted} ` +
      `NAP in the ${span} s of one proposal (Governance.votingDelay + votingPeriod + timelockMinDelay, ${windows} ` +
      `windows)${held}`;
    // Base Sepolia: 300 + 86,400 + 172,800 s touch 5 windows of 5,000 NAP; the quorum is 4% of what was minted.
    const p = await baseSepolia();
    const agentsOnly = { ...p, Tokens: { ...p.Tokens, napInitialSupply: 0n } };
    expect(refusal(() => checkParameters(agentsOnly, 84532, DEPLOYER)).split("; ")).to.deep.equal([
      `${figures("5,000", 259_500, 5, "25,000")}: 25,000 NAP of votes, at least the quorum of 1,000 NAP ` +
        "(Governance.quorumPercent 4% of a supply of 25,000 NAP): lower the budget, or raise the initial supply or " +
        "the quorum",
      `${figures("5,000", 259_500, 5, "25,000")}: 25,000 NAP of votes, at least half of a supply of 25,000 NAP ` +
        "(Tokens.napInitialSupply 0 NAP + 25,000 NAP minted): lower the budget or raise the initial supply",
    ]);
    // The review's deployment: the local values with napInitialSupply 0 (1 + 300 + 172,800 s touch 4 windows).
    const local = await localParameters();
    const localAgentsOnly = { ...local, Tokens: { ...local.Tokens, napInitialSupply: 0n } };
    expect(refusal(() => checkParameters(localAgentsOnly, 31337, DEPLOYER)).split("; ")).to.deep.equal([
      `${figures("10,000", 173_101, 4, "40,000")}: 40,000 NAP of votes, at least the quorum of 1,600 NAP ` +
        "(Governance.quorumPercent 4% of a supply of 40,000 NAP): lower the budget, or raise the initial supply or " +
        "the quorum",
      `${figures("10,000", 173_101, 4, "40,000")}: 40,000 NAP of votes, at least half of a supply of 40,000 NAP ` +
        "(Tokens.napInitialSupply 0 NAP + 40,000 NAP minted): lower the budget or raise the initial supply",
    ]);
    // The deployment stops before sending anything.
    let refused: unknown;
    await deployLocal("agents-only", localAgentsOnly).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(ParametersError);
    expect((refused as Error).message).to.include("at least half of a supply of 40,000 NAP");
    // The files as committed stay below both, the local one by 1,600 NAP.
    expect(relayerVoteBound(local, DEPLOYER)).to.deep.equal({
      span: 173_101,
      windows: 4,
      mintable: parseEther("40000"),
      held: 0n,
      votes: parseEther("40000"),
      supply: parseEther("1040000"),
      quorum: parseEther("41600"),
    });
    expect(checkParameters(local, 31337, DEPLOYER)).to.deep.equal([]);
    expect(relayerVoteBound(p, DEPLOYER)).to.deep.include({ votes: parseEther("25000"), quorum: parseEther("41000") });
  });

  it("relayer budget reaching the quorum within one proposal: refused; the largest budget below it accepted", async () => {
    const p = await baseSepolia();
    const withBudget = (minterBudget: bigint) => ({ ...p, Tokens: { ...p.Tokens, minterBudget } });
    // The budget the Base Sepolia file had: 5 windows of 10,000 NAP against a quorum of 4% of 1,050,000.
    expect(refusal(() => checkParameters(withBudget(parseEther("10000")), 84532, DEPLOYER))).to.equal(
      "Tokens.minterBudget 10,000 NAP per Tokens.minterPeriod 86400 s lets the relayer (a hot key) mint 50,000 NAP " +
        "in the 259500 s of one proposal (Governance.votingDelay + votingPeriod + timelockMinDelay, 5 windows): " +
        "50,000 NAP of votes, at least the quorum of 42,000 NAP (Governance.quorumPercent 4% of a supply of " +
        "1,050,000 NAP): lower the budget, or raise the initial supply or the quorum",
    );
    // 5b votes stay under floor(4% of (S + 5b)) exactly while 100 (5b + 1) <= 4 (S + 5b), i.e. 480 b <= 4 S - 100.
    const largest = (4n * p.Tokens.napInitialSupply - 100n) / 480n;
    expect(largest).to.equal(8_333_333_333_333_333_333_333n);
    expect(checkParameters(withBudget(largest), 84532, DEPLOYER)).to.deep.equal([]);
    expect(refusal(() => checkParameters(withBudget(largest + 1n), 84532, DEPLOYER))).to.include(
      ": 41,666.66666666666666667 NAP of votes, at least the quorum of 41,666.666666666666666666 NAP",
    );
    // A longer voting period touches more windows: 7 days of voting make 11 windows of 5,000 NAP.
    const slow = { ...p, Governance: { ...p.Governance, votingPeriod: 7 * 86_400 } };
    expect(relayerVoteBound(slow, DEPLOYER)).to.deep.include({ windows: 11, votes: parseEther("55000") });
    expect(refusal(() => checkParameters(slow, 84532, DEPLOYER))).to.include("at least the quorum of 42,200 NAP");
  });

  it("the relayer as the deployer votes with the initial supply: refused", async () => {
    const p = await baseSepolia();
    expect(refusal(() => checkParameters(p, 84532, A)).split("; ")).to.deep.equal([
      "Tokens.minterBudget 5,000 NAP per Tokens.minterPeriod 86400 s lets the relayer (a hot key) mint 25,000 NAP " +
        "in the 259500 s of one proposal (Governance.votingDelay + votingPeriod + timelockMinDelay, 5 windows) on " +
        "top of the 1,000,000 NAP it holds as the deployer: 1,025,000 NAP of votes, at least the quorum of 41,000 " +
        "NAP (Governance.quorumPercent 4% of a supply of 1,025,000 NAP): lower the budget, or raise the initial " +
        "supply or the quorum",
      "Tokens.minterBudget 5,000 NAP per Tokens.minterPeriod 86400 s lets the relayer (a hot key) mint 25,000 NAP " +
        "in the 259500 s of one proposal (Governance.votingDelay + votingPeriod + timelockMinDelay, 5 windows) on " +
        "top of the 1,000,000 NAP it holds as the deployer: 1,025,000 NAP of votes, at least half of a supply of " +
        "1,025,000 NAP (Tokens.napInitialSupply 1,000,000 NAP + 25,000 NAP minted): lower the budget or raise the " +
        "initial supply",
    ]);
  });

  it("a minter window outside NapMinter's bounds: refused, naming Tokens.minterPeriod", async () => {
    const p = await baseSepolia();
    for (const minterPeriod of [0, 3_599, 365 * 86_400 + 1]) {
      expect(refusal(() => checkParameters({ ...p, Tokens: { ...p.Tokens, minterPeriod } }, 84532, DEPLOYER))).to.equal(
        `Tokens.minterPeriod ${minterPeriod} is outside NapMinter's bounds (3600 to 31536000 s)`,
      );
    }
  });

  it("rejects malformed values and unknown fields with the field's name", async () => {
    const raw = (await readDeploymentParameters(LOCAL_PARAMETERS)) as Record<string, Record<string, unknown>>;
    const cases: [string, unknown, string][] = [
      ["Governance.proposalGuardian", "0x2", "Governance.proposalGuardian: must be a 0x address"],
      [
        "Governance.proposalGuardian",
        "0x0000000000000000000000000000000000000000",
        "Governance.proposalGuardian: must not be the zero address",
      ],
      ["Tokens.minterBudget", "lots", "Tokens.minterBudget: Invalid input"],
      ["Tokens.napCap", -1, "Tokens.napCap: must not be negative"],
      ["Governance.votingDelay", -1, "Governance.votingDelay: Too small: expected number to be >=0"],
      ["Governance.timelockMinDelay", 1.5, "Governance.timelockMinDelay: Invalid input: expected int, received number"],
      ["Governance.quorumPercent", 101, "Governance.quorumPercent: Too big: expected number to be <=100"],
      ["Registry.guardianThreshold", 0, "Registry.guardianThreshold: Too small: expected number to be >=1"],
      ["Faucet.cooldwn", 60, 'Faucet: Unrecognized key: "cooldwn"'],
    ];
    for (const [path, value, message] of cases) {
      const [section, field] = path.split(".");
      const edited = { ...raw, [section]: { ...raw[section], [field]: value } };
      expect(
        refusal(() => parseParameters(edited, "local.json5")),
        path,
      ).to.equal(`local.json5: ${message}`);
    }
    const { Roles: _roles, ...withoutRoles } = raw;
    expect(refusal(() => parseParameters(withoutRoles, "local.json5"))).to.equal(
      "local.json5: Roles: Invalid input: expected object, received undefined",
    );
  });

  it("writes parameters back in Ignition's notation, and lists every leaf by name", async () => {
    const p = await localParameters();
    const dir = mkdtempSync(join(tmpdir(), "nap-params-"));
    try {
      writeFileSync(join(dir, "p.json"), parametersToJson(p));
      expect(await readParameters(join(dir, "p.json"))).to.deep.equal(p);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const leaves = flattenParameters(p);
    expect(leaves.get("Governance.timelockMinDelay")).to.equal("172800");
    expect(leaves.get("Tokens.napCap")).to.equal(parseEther("1000000000").toString());
    expect(leaves.get("Roles.guardians.length")).to.equal("3");
    expect(leaves.get("Roles.oracles[2]")).to.equal(HARDHAT_ACCOUNTS[5]);
    expect(leaves.size).to.equal(4 + 6 + 3 + 3 + 1 + 4 + 4 + 2);
  });
});
