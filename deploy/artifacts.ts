/**
 * How Ignition finds the artifacts and the compiler input of the contracts it deploys. Hardhat's resolver hands it
 * the project's whole build info (every source of the project, about 40 MB) for each contract, which Ignition reads
 * and writes again into the deployment folder per contract. This one reads it once and gives each contract only
 * what verifying it needs: the sources its metadata names (the exact input its bytecode was compiled from, a few
 * hundred KB), its ABI and its metadata, under an id of its own.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { HardhatArtifactResolver } from "@nomicfoundation/hardhat-ignition/helpers";
import type { Artifact, ArtifactResolver, BuildInfo } from "@nomicfoundation/ignition-core";
import type { HardhatRuntimeEnvironment } from "hardhat/types";

export class DeploymentArtifactResolver implements ArtifactResolver {
  readonly #hardhat: HardhatArtifactResolver;
  readonly #hre: HardhatRuntimeEnvironment;
  /** Parsed build infos by file: every contract of one compilation shares one. */
  readonly #buildInfos = new Map<string, Promise<BuildInfo>>();

  constructor(hre: HardhatRuntimeEnvironment) {
    this.#hre = hre;
    this.#hardhat = new HardhatArtifactResolver(hre);
  }

  loadArtifact(contractName: string): Promise<Artifact> {
    return this.#hardhat.loadArtifact(contractName);
  }

  async getBuildInfo(contractName: string): Promise<BuildInfo> {
    const artifact = await this.loadArtifact(contractName);
    // Hardhat's artifact layout: artifacts/<source>/<Contract>.dbg.json names the build info file.
    const debugFile = join(this.#hre.config.paths.artifacts, artifact.sourceName, `${artifact.contractName}.dbg.json`);
    const debug = JSON.parse(await readFile(debugFile, "utf8")) as { buildInfo: string };
    const path = resolve(dirname(debugFile), debug.buildInfo);
    let full = this.#buildInfos.get(path);
    if (full === undefined) {
      full = readFile(path, "utf8").then((text) => JSON.parse(text) as BuildInfo);
      this.#buildInfos.set(path, full);
    }
    const buildInfo = await full;
    const output = buildInfo.output.contracts[artifact.sourceName][artifact.contractName];
    // Ignition's type omits the metadata solc writes (Hardhat always asks for it).
    const { metadata } = output as unknown as { metadata: string };
    const used = Object.keys((JSON.parse(metadata) as { sources: Record<string, unknown> }).sources);
    return {
      ...buildInfo,
      id: `${buildInfo.id}-${artifact.contractName}`,
      input: {
        ...buildInfo.input,
        sources: Object.fromEntries(used.map((source) => [source, buildInfo.input.sources[source]])),
      },
      // Verification reads the input; Sourcify also wants the metadata. Bytecode, source maps and debug data (most of
      // the output's size) are in the artifact and on chain already.
      output: {
        contracts: { [artifact.sourceName]: { [artifact.contractName]: { abi: output.abi, metadata } } },
        sources: {},
      } as unknown as BuildInfo["output"],
    };
  }
}
