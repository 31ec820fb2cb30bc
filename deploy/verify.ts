/**
 * Source verification of every contract of an Ignition deployment, on Etherscan (API v2: one key for every chain,
 * Base Sepolia is chain 84532) and on Sourcify, through hardhat-verify's clients. Everything comes from the
 * deployment folder: the address, the exact compiler input and the ABI-encoded constructor arguments Ignition
 * journaled, so nobody types an argument by hand.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { getVerificationInformation, type ChainConfig, type VerifyInfo } from "@nomicfoundation/ignition-core";
import { Etherscan } from "@nomicfoundation/hardhat-verify/etherscan";
import { Sourcify } from "@nomicfoundation/hardhat-verify/sourcify";
import { AbiCoder, Interface, getAddress } from "ethers";
import type { EthereumProvider, HardhatConfig, HardhatRuntimeEnvironment } from "hardhat/types";
import { recordedAddresses } from "./journal";

export interface VerificationTarget {
  /** Ignition's future id, e.g. `Governance#TimelockController`. */
  futureId: string;
  /** Fully qualified contract name. */
  contract: string;
  address: string;
  compilerVersion: string;
  /** Standard JSON compiler input (the sources the contract needs). */
  sourceCode: string;
  /** ABI-encoded constructor arguments, as Etherscan wants them (hex without 0x). */
  encodedArguments: string;
  /** The same arguments decoded, for people to read. */
  constructorArguments: unknown[];
}

export interface ExplorerEndpoints {
  etherscan: { apiUrl: string; browserUrl: string; chainId?: number };
  sourcify: { enabled: boolean; apiUrl: string; browserUrl: string };
}

/** Decoded values as JSON-friendly text: big integers in decimal, tuples and arrays as arrays. */
function readable(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(readable);
  return value;
}

/** Ignition's deployment folder keeps the compiler's build info; a clone without it uses the same one compiled. */
function buildInfoOf(journalDir: string, futureId: string, projectBuildInfo: string) {
  const debug = JSON.parse(readFileSync(join(journalDir, "artifacts", `${futureId}.dbg.json`), "utf8")) as {
    buildInfo: string;
  };
  const stored = resolve(join(journalDir, "artifacts"), debug.buildInfo);
  const path = existsSync(stored) ? stored : join(projectBuildInfo, basename(stored));
  if (!existsSync(path)) {
    throw new Error(
      `no build info ${basename(stored)} for ${futureId}: compile the commit the deployment was made from ` +
        "(npx hardhat compile) so that artifacts/build-info holds it",
    );
  }
  return JSON.parse(readFileSync(path, "utf8")) as {
    input: { sources: Record<string, { content: string }> };
    output: { contracts: Record<string, Record<string, { metadata: string }>> };
  };
}

/** Every contract the deployment in `journalDir` created, with what verifying it takes. */
export async function verificationTargets(
  hre: HardhatRuntimeEnvironment,
  journalDir: string,
): Promise<VerificationTarget[]> {
  const futureIds = new Map(
    Object.entries(recordedAddresses(journalDir)).map(([futureId, address]) => [getAddress(address), futureId]),
  );
  const chainId = Number(await hre.network.provider.request({ method: "eth_chainId" }));
  // Ignition resolves an explorer for the journal's chain; ours are resolved below, so any entry will do here.
  const anyChain: ChainConfig[] = [{ network: hre.network.name, chainId, urls: { apiURL: "", browserURL: "" } }];
  const targets: VerificationTarget[] = [];
  for await (const [, info] of getVerificationInformation(journalDir, anyChain)) {
    if (typeof info === "string") throw new Error(`no artifact for ${info} in ${journalDir}`);
    const verifyInfo = info as VerifyInfo;
    const address = getAddress(verifyInfo.address);
    const artifact = await hre.artifacts.readArtifact(verifyInfo.name);
    const inputs = new Interface(artifact.abi).deploy.inputs;
    const decoded = AbiCoder.defaultAbiCoder().decode(inputs, `0x${verifyInfo.args}`).toArray(true);
    targets.push({
      futureId: futureIds.get(address) ?? address,
      contract: verifyInfo.name,
      address,
      compilerVersion: verifyInfo.compilerVersion,
      sourceCode: verifyInfo.sourceCode,
      encodedArguments: verifyInfo.args,
      constructorArguments: decoded.map(readable),
    });
  }
  return targets.sort((a, b) => a.futureId.localeCompare(b.futureId));
}

/** Where a network's contracts are verified, as hardhat-verify resolves it from the configuration. */
export async function explorerEndpoints(
  config: HardhatConfig,
  networkName: string,
  provider: EthereumProvider,
): Promise<ExplorerEndpoints> {
  const chain = await Etherscan.getCurrentChainConfig(networkName, provider, config.etherscan.customChains);
  // The kind of key (one string for all chains) is what selects API v2; this sends nothing, so no key is needed.
  const etherscan = Etherscan.fromChainConfig(config.etherscan.apiKey || "no key set", chain);
  return {
    etherscan: { apiUrl: etherscan.apiUrl, browserUrl: etherscan.browserUrl, chainId: etherscan.chainId },
    sourcify: {
      enabled: config.sourcify.enabled,
      apiUrl: config.sourcify.apiUrl ?? "",
      browserUrl: config.sourcify.browserUrl ?? "",
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Etherscan indexes new bytecode with some delay: a "missing bytecode" answer is retried a few times. */
async function verifyOnEtherscan(etherscan: Etherscan, target: VerificationTarget): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (await etherscan.isVerified(target.address)) return "already verified";
      const { message: guid } = await etherscan.verify(
        target.address,
        target.sourceCode,
        target.contract,
        target.compilerVersion,
        target.encodedArguments,
      );
      const status = await etherscan.getVerificationStatus(guid);
      if (status.isSuccess() || status.isAlreadyVerified()) return etherscan.getContractUrl(target.address);
      throw new Error(status.message);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/already verified/i.test(message)) return "already verified";
      if (attempt >= 5 || !/bytecode/i.test(message)) throw error;
      await sleep(10_000 * attempt);
    }
  }
}

/** What Sourcify is sent: the contract's metadata and every source it names, from the deployment's build info. */
export function sourcifyFiles(
  target: VerificationTarget,
  journalDir: string,
  projectBuildInfo: string,
): Record<string, string> {
  const split = target.contract.lastIndexOf(":");
  const [sourceName, contractName] = [target.contract.slice(0, split), target.contract.slice(split + 1)];
  const buildInfo = buildInfoOf(journalDir, target.futureId, projectBuildInfo);
  const metadata = buildInfo.output.contracts[sourceName][contractName].metadata;
  const sources = Object.keys((JSON.parse(metadata) as { sources: Record<string, unknown> }).sources);
  return Object.fromEntries([
    ["metadata.json", metadata],
    ...sources.map((source) => [source, buildInfo.input.sources[source].content]),
  ]);
}

async function verifyOnSourcify(
  sourcify: Sourcify,
  target: VerificationTarget,
  journalDir: string,
  projectBuildInfo: string,
): Promise<string> {
  if (await sourcify.isVerified(target.address)) return "already verified";
  const response = await sourcify.verify(target.address, sourcifyFiles(target, journalDir, projectBuildInfo));
  if (!response.isOk()) throw new Error(`Sourcify: ${JSON.stringify(response)}`);
  return sourcify.getContractUrl(target.address, response.status);
}

/**
 * Verifies every target on Etherscan (when an API key is configured) and on Sourcify (when enabled). A failure of
 * one contract does not stop the others; returns the failures (empty when all passed).
 */
export async function verifyAll(
  hre: HardhatRuntimeEnvironment,
  targets: VerificationTarget[],
  journalDir: string,
  log: (line: string) => void,
): Promise<string[]> {
  const chain = await Etherscan.getCurrentChainConfig(
    hre.network.name,
    hre.network.provider,
    hre.config.etherscan.customChains,
  );
  const apiKey = hre.config.etherscan.apiKey;
  const etherscan = apiKey === "" ? undefined : Etherscan.fromChainConfig(apiKey, chain);
  if (!etherscan) log("Etherscan: no API key (npx hardhat vars set ETHERSCAN_API_KEY): skipped");
  const { sourcify: sourcifyConfig } = hre.config;
  const sourcify = sourcifyConfig.enabled
    ? new Sourcify(chain.chainId, sourcifyConfig.apiUrl!, sourcifyConfig.browserUrl!)
    : undefined;
  const projectBuildInfo = join(hre.config.paths.artifacts, "build-info");
  const failures: string[] = [];
  for (const target of targets) {
    for (const [explorer, run] of [
      ["Etherscan", etherscan && (() => verifyOnEtherscan(etherscan, target))],
      ["Sourcify", sourcify && (() => verifyOnSourcify(sourcify, target, journalDir, projectBuildInfo))],
    ] as const) {
      if (!run) continue;
      try {
        log(`${explorer}: ${target.futureId} at ${target.address}: ${await run()}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        failures.push(`${explorer}: ${target.futureId} at ${target.address}: ${message}`);
        log(`${explorer}: ${target.futureId} at ${target.address}: FAILED ${message}`);
      }
    }
  }
  return failures;
}
