import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import type { DeployParameters } from "../../deploy/parameters";
import type { faucetModule } from "./faucet";

/**
 * ETH the deployer sends once (journaled, so a resumed run does not send it twice): on a local chain, so that the
 * faucet can drip and the relayer can pay for the agents' transactions. On a public chain the parameters name no
 * funding and the operator funds the relayer and the faucet by hand (docs/deploy.md).
 */
export function fundingModule(p: DeployParameters, faucet: ReturnType<typeof faucetModule>) {
  return buildModule("Funding", (m) => {
    const funding = p.Funding ?? { faucet: 0n, relayer: 0n };
    if (funding.faucet > 0n) m.send("faucet", m.useModule(faucet).faucet, funding.faucet);
    if (funding.relayer > 0n) m.send("relayer", p.Roles.relayer, funding.relayer);
    return {};
  });
}
