import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { DeployParameters } from "../../deploy/parameters";

/** The interface an existing USDC is used through (Circle's on Base Sepolia). */
const ERC20_METADATA = "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol:IERC20Metadata";

/**
 * USDC (Circle's, or TestUSDC on a local chain), the NAP governance token, and NapMinter, the rate-limited minter
 * through which the relayer grants NAP. The deployer administers the token and the minter until the roles module
 * hands them to the timelock; the initial supply goes to the deployer.
 */
export function tokensModule(p: DeployParameters) {
  return buildModule("Tokens", (m) => {
    const deployer = m.getAccount(0);
    const usdc =
      p.Tokens.usdc === undefined
        ? m.contract("TestUSDC", [deployer])
        : m.contractAt(ERC20_METADATA, p.Tokens.usdc, { id: "USDC" });
    const napToken = m.contract("NapToken", [deployer, deployer, p.Tokens.napInitialSupply, p.Tokens.napCap]);
    const napMinter = m.contract("NapMinter", [deployer, napToken, p.Tokens.minterBudget, p.Tokens.minterPeriod]);
    return { usdc, napToken, napMinter };
  });
}
