import hre from "hardhat";
import { TASK_NODE_CREATE_SERVER } from "hardhat/builtin-tasks/task-names";

/**
 * Serves the in-process Hardhat chain of the tests over HTTP JSON-RPC on a free port, so that a child process
 * (or a JsonRpcProvider) sees the very chain the test inspects through hre.ethers.
 */
export async function serveChain(): Promise<{ url: string; close(): Promise<void> }> {
  const server = (await hre.run(TASK_NODE_CREATE_SERVER, {
    hostname: "127.0.0.1",
    port: 0,
    provider: hre.network.provider,
  })) as { listen(): Promise<{ port: number }>; close(): Promise<void> };
  const { port } = await server.listen();
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}
