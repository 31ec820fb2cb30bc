import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { DeployParameters } from "../../deploy/parameters";
import type { tokensModule } from "./tokens";

/**
 * The faucet: ETH for gas, and TestUSDC it mints when the deployment made TestUSDC (it gives no USDC with an existing
 * USDC such as Circle's). Administered by the deployer until the roles module hands it to the timelock.
 */
export function faucetModule(p: DeployParameters, tokens: ReturnType<typeof tokensModule>) {
  return buildModule("Faucet", (m) => {
    const { usdc } = m.useModule(tokens);
    const f = p.Faucet;
    const usdcMintable = p.Tokens.usdc === undefined;
    const faucet = m.contract("NapFaucet", [
      m.getAccount(0),
      usdc,
      usdcMintable,
      f.ethAmount,
      f.usdcAmount,
      f.cooldown,
    ]);
    return { faucet };
  });
}
