import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

/**
 * NapRouter: carries out deposits and redemptions signed by their owners, sent by the service's relayer or anyone.
 * Immutable, no constructor arguments and no roles; its EIP-712 domain binds messages to this chain and address.
 */
export const routerModule = buildModule("Router", (m) => {
  const router = m.contract("NapRouter", []);
  return { router };
});
