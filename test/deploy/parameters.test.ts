import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HDNodeWallet, getAddress, parseEther, parseUnits } from "ethers";
import { readDeploymentParameters } from "@nomicfoundation/hardhat-ignition/helpers";
import { DEV_SERVER_WALLET_MNEMONIC, RELAYER_PATH } from "../../deploy/devWallets";
import {
  BASE_SEPOLIA_USDC,
  EXIT_MARGIN_SECONDS,
  ParametersError,
  checkParameters,
  flattenParameters,
  parametersToJson,
  parseParameters,
  readParameters,
  type DeployParameters,
} from "../../deploy/parameters";
import { maxFulfillmentDelay } from "../../deploy/vaults";
import { BASE_SEPOLIA_PARAMETERS, LOCAL_PARAMETERS, localParameters } from "./helpers";

const DEPLOYER = getAddress("0x00000000000000000000000000000000000000d1");
const A = getAddress("0x00000000000000000000000000000000000000a1");
const B = getAddress("0x00000000000000000000000000000000000000b2");
const C = getAddress("0x00000000000000000000000000000000000000c3");
const HARDHAT_ACCOUNTS = [
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
  "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
];

/** The Base Sepolia file as read, with the team's key holders filled in. */
async function baseSepolia(roles: Partial<DeployParameters["Roles"]> = {}, guardian = C): Promise<DeployParameters> {
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
        proposalGuardian: HARDHAT_ACCOUNTS[0],
      },
      Registry: { guardianThreshold: 2, oracleThreshold: 2, minPaperTradingPeriod: 60 },
      Faucet: { ethAmount: parseEther("0.05"), usdcAmount: parseUnits("1000", 6), cooldown: 86_400 },
      Roles: {
        relayer: HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, RELAYER_PATH).address,
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
      minterBudget: parseEther("10000"),
      minterPeriod: 86_400,
    });
    expect(p.Governance).to.deep.equal({
      timelockMinDelay: 172_800,
      votingDelay: 300,
      votingPeriod: 86_400,
      proposalThreshold: parseEther("1"),
      quorumPercent: 4,
      proposalGuardian: C,
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
