import { expect } from "chai";
import { HDNodeWallet, getAddress, parseEther, parseUnits } from "ethers";
import {
  BASE_SEPOLIA_USDC,
  EXIT_MARGIN_SECONDS,
  maxFulfillmentDelay,
  DEV_SERVER_WALLET_MNEMONIC,
  RELAYER_PATH,
  majority,
  relayerAddress,
  settingsFor,
} from "../../deploy/settings";

const DEPLOYER = getAddress("0x00000000000000000000000000000000000000d1");
const A = getAddress("0x00000000000000000000000000000000000000a1");
const B = getAddress("0x00000000000000000000000000000000000000b2");
const DEV = [DEPLOYER, A, B, A, B, A, B];

describe("deploy settings", () => {
  it("derives the relayer from the mnemonic at m/44'/60'/0'/0/0, or takes the given address", () => {
    const derived = HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, RELAYER_PATH).address;
    expect(relayerAddress({}, true)).to.equal(derived);
    expect(relayerAddress({ SERVER_WALLET_MNEMONIC: DEV_SERVER_WALLET_MNEMONIC }, false)).to.equal(derived);
    expect(relayerAddress({ SERVICE_RELAYER_ADDRESS: A.toLowerCase() }, false)).to.equal(A);
    expect(() => relayerAddress({}, false)).to.throw(
      "Set SERVICE_RELAYER_ADDRESS or SERVER_WALLET_MNEMONIC to name the service relayer",
    );
    expect(() => relayerAddress({ SERVICE_RELAYER_ADDRESS: "0x12" }, false)).to.throw(
      'SERVICE_RELAYER_ADDRESS is not an address: "0x12"',
    );
  });

  it("computes majorities", () => {
    expect([1, 2, 3, 4, 5].map(majority)).to.deep.equal([1, 2, 2, 3, 3]);
  });

  it("reads every value from the environment, overriding the defaults", () => {
    const s = settingsFor(
      84532,
      "baseSepolia",
      {
        SERVICE_RELAYER_ADDRESS: A,
        USDC_ADDRESS: B,
        GUARDIAN_ADDRESSES: `${DEPLOYER},${B}`,
        ORACLE_ADDRESSES: B,
        REGISTRY_GUARDIAN_THRESHOLD: "1",
        REGISTRY_ORACLE_THRESHOLD: "1",
        REGISTRY_MIN_PAPER_TRADING_SECONDS: "7",
        GOVERNOR_VOTING_DELAY: "2",
        GOVERNOR_VOTING_PERIOD: "3",
        GOVERNOR_PROPOSAL_THRESHOLD: "0.5",
        GOVERNOR_QUORUM_PERCENT: "10",
        TIMELOCK_MIN_DELAY: "200000",
        GOVERNOR_GUARDIAN_ADDRESS: B.toLowerCase(),
        NAP_MINTER_BUDGET: "250.5",
        NAP_MINTER_PERIOD_SECONDS: "3600",
        NAP_INITIAL_SUPPLY: "0",
        FAUCET_ETH_AMOUNT: "0.01",
        FAUCET_USDC_AMOUNT: "5",
        FAUCET_COOLDOWN_SECONDS: "3600",
      },
      DEPLOYER,
      [],
    );
    expect(s.usdc).to.equal(B);
    expect(s.guardians).to.deep.equal([DEPLOYER, B]);
    expect(s.oracles).to.deep.equal([B]);
    expect(s.registry).to.deep.equal({ guardianThreshold: 1, oracleThreshold: 1, minPaperTradingPeriod: 7 });
    expect(s.governor).to.deep.equal({
      votingDelay: 2,
      votingPeriod: 3,
      proposalThreshold: parseEther("0.5"),
      quorumPercent: 10,
      timelockDelay: 200_000,
      guardian: B,
    });
    expect(s.minter).to.deep.equal({ budget: parseEther("250.5"), period: 3600 });
    expect(s.token.initialSupply).to.equal(0n);
    expect(s.faucet).to.deep.equal({ ethAmount: parseEther("0.01"), usdcAmount: parseUnits("5", 6), cooldown: 3600 });
  });

  it("defaults USDC to Circle's on Base Sepolia, the proposal guardian to the first guardian, and warns of 1-of-n", () => {
    const env = { SERVICE_RELAYER_ADDRESS: A, GUARDIAN_ADDRESSES: DEPLOYER, ORACLE_ADDRESSES: DEPLOYER };
    const s = settingsFor(84532, "baseSepolia", env, DEPLOYER, DEV);
    expect(s.guardians).to.deep.equal([DEPLOYER]);
    expect(s.oracles).to.deep.equal([DEPLOYER]);
    expect(s.governor.guardian).to.equal(DEPLOYER);
    expect(s.usdc).to.equal(BASE_SEPOLIA_USDC);
    expect(s.registry.guardianThreshold).to.equal(1);
    expect(s.warnings).to.deep.equal([
      "one guardian vote decides a strategy review (1 guardian(s), threshold 1): set GUARDIAN_ADDRESSES and " +
        "REGISTRY_GUARDIAN_THRESHOLD for a k-of-n review",
      "one oracle vote makes a strategy live (1 oracle(s), threshold 1): set ORACLE_ADDRESSES and " +
        "REGISTRY_ORACLE_THRESHOLD for a k-of-n approval",
    ]);
    const other = settingsFor(11155111, "sepolia", env, DEPLOYER, DEV);
    expect(other.usdc).to.equal(undefined);
    expect(other.local).to.equal(false);
    const local = settingsFor(31337, "hardhat", { SERVICE_RELAYER_ADDRESS: A }, DEPLOYER, [DEPLOYER, B, B, B, B, B, B]);
    expect(local.warnings).to.deep.equal([]);
    expect(local.minter).to.deep.equal({ budget: parseEther("10000"), period: 86_400 });
  });

  it("deployer as sole guardian and sole oracle on a public chain: refused unless the roles are named", () => {
    const base = { SERVICE_RELAYER_ADDRESS: A };
    expect(() => settingsFor(84532, "baseSepolia", base, DEPLOYER, DEV)).to.throw(
      "GUARDIAN_ADDRESSES must name the registry guardians on chain 84532",
    );
    expect(() => settingsFor(84532, "baseSepolia", { ...base, GUARDIAN_ADDRESSES: B }, DEPLOYER, DEV)).to.throw(
      "ORACLE_ADDRESSES must name the registry oracles on chain 84532",
    );
  });

  it("timelock shorter than the longest vault fulfilment delay plus the exit margin: refused, naming TIMELOCK_MIN_DELAY", () => {
    const longest = maxFulfillmentDelay();
    expect(longest).to.equal(86_400);
    const floor = longest + EXIT_MARGIN_SECONDS;
    for (const chainId of [31337, 84532]) {
      const env = { SERVICE_RELAYER_ADDRESS: A, GUARDIAN_ADDRESSES: B, ORACLE_ADDRESSES: B };
      expect(settingsFor(chainId, "n", env, DEPLOYER, DEV).governor.timelockDelay).to.be.at.least(floor);
      expect(() =>
        settingsFor(chainId, "n", { ...env, TIMELOCK_MIN_DELAY: String(floor - 1) }, DEPLOYER, DEV),
      ).to.throw(
        `TIMELOCK_MIN_DELAY ${floor - 1} is shorter than the longest vault fulfilment delay (${longest} s) plus the ` +
          `exit margin (${EXIT_MARGIN_SECONDS} s): holders could not leave before a proposal executes`,
      );
      expect(
        settingsFor(chainId, "n", { ...env, TIMELOCK_MIN_DELAY: String(floor) }, DEPLOYER, DEV).governor.timelockDelay,
      ).to.equal(floor);
    }
  });

  it("relayer hot key as governor guardian, registry guardian or oracle: refused", () => {
    const env = { SERVICE_RELAYER_ADDRESS: A, GUARDIAN_ADDRESSES: B, ORACLE_ADDRESSES: B };
    expect(() => settingsFor(84532, "n", { ...env, GOVERNOR_GUARDIAN_ADDRESS: A }, DEPLOYER, DEV)).to.throw(
      "GOVERNOR_GUARDIAN_ADDRESS must not be the relayer (a hot key)",
    );
    expect(() => settingsFor(84532, "n", { ...env, GUARDIAN_ADDRESSES: `${B},${A}` }, DEPLOYER, DEV)).to.throw(
      "GUARDIAN_ADDRESSES must not include the relayer (a hot key)",
    );
    expect(() => settingsFor(84532, "n", { ...env, ORACLE_ADDRESSES: A }, DEPLOYER, DEV)).to.throw(
      "ORACLE_ADDRESSES must not include the relayer (a hot key)",
    );
  });

  it("rejects malformed values with the setting's name", () => {
    const base = { SERVICE_RELAYER_ADDRESS: A, GUARDIAN_ADDRESSES: DEPLOYER, ORACLE_ADDRESSES: DEPLOYER };
    const cases: [Record<string, string>, string][] = [
      [{ GOVERNOR_GUARDIAN_ADDRESS: "0x2" }, 'GOVERNOR_GUARDIAN_ADDRESS is not an address: "0x2"'],
      [{ NAP_MINTER_BUDGET: "lots" }, 'NAP_MINTER_BUDGET must be a decimal amount, got "lots"'],
      [{ GUARDIAN_ADDRESSES: `${A},nope` }, 'GUARDIAN_ADDRESSES holds an invalid address: "nope"'],
      [{ USDC_ADDRESS: "0x1" }, 'USDC_ADDRESS is not an address: "0x1"'],
      [{ GOVERNOR_VOTING_DELAY: "-1" }, 'GOVERNOR_VOTING_DELAY must be a non-negative integer, got "-1"'],
      [{ TIMELOCK_MIN_DELAY: "1.5" }, 'TIMELOCK_MIN_DELAY must be a non-negative integer, got "1.5"'],
      [{ FAUCET_ETH_AMOUNT: "abc" }, 'FAUCET_ETH_AMOUNT must be a decimal amount, got "abc"'],
      [{ REGISTRY_GUARDIAN_THRESHOLD: "2" }, "REGISTRY_GUARDIAN_THRESHOLD 2 > 1 guardians"],
      [{ REGISTRY_ORACLE_THRESHOLD: "3" }, "REGISTRY_ORACLE_THRESHOLD 3 > 1 oracles"],
    ];
    for (const [env, message] of cases) {
      expect(() => settingsFor(84532, "baseSepolia", { ...base, ...env }, DEPLOYER, [])).to.throw(message);
    }
  });
});
