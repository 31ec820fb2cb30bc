import { expect } from "chai";
import { HDNodeWallet, getAddress, parseEther, parseUnits } from "ethers";
import {
  BASE_SEPOLIA_USDC,
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
        GUARDIAN_ADDRESSES: `${A},${B}`,
        ORACLE_ADDRESSES: A,
        REGISTRY_GUARDIAN_THRESHOLD: "1",
        REGISTRY_ORACLE_THRESHOLD: "1",
        REGISTRY_MIN_PAPER_TRADING_SECONDS: "7",
        GOVERNOR_VOTING_DELAY: "2",
        GOVERNOR_VOTING_PERIOD: "3",
        GOVERNOR_PROPOSAL_THRESHOLD: "0.5",
        GOVERNOR_QUORUM_PERCENT: "10",
        TIMELOCK_MIN_DELAY: "4",
        NAP_INITIAL_SUPPLY: "0",
        FAUCET_ETH_AMOUNT: "0.01",
        FAUCET_USDC_AMOUNT: "5",
        FAUCET_COOLDOWN_SECONDS: "3600",
      },
      DEPLOYER,
      [],
    );
    expect(s.usdc).to.equal(B);
    expect(s.guardians).to.deep.equal([A, B]);
    expect(s.oracles).to.deep.equal([A]);
    expect(s.registry).to.deep.equal({ guardianThreshold: 1, oracleThreshold: 1, minPaperTradingPeriod: 7 });
    expect(s.governor).to.deep.equal({
      votingDelay: 2,
      votingPeriod: 3,
      proposalThreshold: parseEther("0.5"),
      quorumPercent: 10,
      timelockDelay: 4,
    });
    expect(s.token.initialSupply).to.equal(0n);
    expect(s.faucet).to.deep.equal({ ethAmount: parseEther("0.01"), usdcAmount: parseUnits("5", 6), cooldown: 3600 });
  });

  it("defaults guardians and oracles to the deployer off local chains, and USDC to Circle's on Base Sepolia", () => {
    const s = settingsFor(84532, "baseSepolia", { SERVICE_RELAYER_ADDRESS: A }, DEPLOYER, DEV);
    expect(s.guardians).to.deep.equal([DEPLOYER]);
    expect(s.oracles).to.deep.equal([DEPLOYER]);
    expect(s.usdc).to.equal(BASE_SEPOLIA_USDC);
    expect(s.registry.guardianThreshold).to.equal(1);
    const other = settingsFor(11155111, "sepolia", { SERVICE_RELAYER_ADDRESS: A }, DEPLOYER, DEV);
    expect(other.usdc).to.equal(undefined);
    expect(other.local).to.equal(false);
  });

  it("rejects malformed values with the setting's name", () => {
    const base = { SERVICE_RELAYER_ADDRESS: A };
    const cases: [Record<string, string>, string][] = [
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
