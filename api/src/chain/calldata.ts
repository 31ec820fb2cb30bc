import { AbiCoder, type Interface } from "ethers";
import { StrategyRegistryV3__factory } from "../../../typechain-types";
import type { OnchainRiskParams } from "./events";

/**
 * ABI encodings on the hot path of a strategy submission, by ethers' ABI coder. The registry's Interface and its
 * `submit` fragment are built once, so that a submission neither parses the ABI nor looks the function up by name.
 */

type RiskWords = { [K in keyof OnchainRiskParams]: bigint | number | boolean };

// As a plain Interface: TypeChain's typed one takes function names only, not a fragment.
const registry: Interface = StrategyRegistryV3__factory.createInterface();
const submitFragment = registry.getFunction("submit")!;
const coder = AbiCoder.defaultAbiCoder();
const STRING_ADDRESS_UINT = ["string", "address", "uint256"] as const;

/** abi.encode(string text, address account, uint256 amount). */
export function encodeStringAddressUint(text: string, account: string, amount: bigint | number): string {
  return coder.encode(STRING_ADDRESS_UINT, [text, account, amount]);
}

/** Calldata of StrategyRegistryV3.submit(string name, string description, bytes32 dna, RiskParams params). */
export function encodeSubmit(name: string, description: string, dna: string, params: RiskWords): string {
  return registry.encodeFunctionData(submitFragment, [name, description, dna, params]);
}
