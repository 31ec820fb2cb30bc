import { expect } from "chai";
import { ethers } from "hardhat";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Wallet } from "ethers";
import { z } from "zod";
import { depositBody } from "../../packages/wire/src/live";
import { createNapMcpServer } from "../../packages/mcp/src/server";
import { TOOLS } from "../../packages/mcp/src/tools";
import { NapClient } from "@nap/sdk";
import { NapVault__factory } from "../../typechain-types";
import { deployTestSystem } from "../api/helpers/system";
import { startE2eApp, type E2eSystem } from "../e2e/helpers";

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown };

/** The MCP server driven by the official SDK's MCP client over an in-memory transport, against the real API. */
describe("MCP: the NAP tools through an MCP client", function () {
  this.timeout(180_000);
  let system: E2eSystem;
  let client: Client;
  let vaultAddress: string;

  before(async function () {
    const deployment = await deployTestSystem();
    vaultAddress = deployment.vaults.moderate!.address;
    system = await startE2eApp("mcp", deployment, { STRATEGY_SCREENING: "off" });
    const nap = new NapClient({ baseUrl: system.app.url });
    await nap.register({ signer: Wallet.createRandom(), agentName: "mcp agent" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createNapMcpServer(nap).connect(serverSide);
    client = new Client({ name: "nap-test", version: "1.0.0" });
    await client.connect(clientSide);
  });

  after(async function () {
    await client?.close();
    await system?.close();
  });

  it("lists every tool with the API's own request schema as its input schema", async function () {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal(TOOLS.map((t) => t.name));
    const deposit = tools.find((t) => t.name === "nap_deposit")!;
    // zod renders the named request schema into $defs; the tool has it inline, unchanged.
    const rendered = z.toJSONSchema(depositBody, { io: "input", unrepresentable: "any" });
    expect(rendered.$ref).to.equal("#/$defs/DepositRequest");
    expect(deposit.inputSchema).to.deep.equal(rendered.$defs!.DepositRequest);
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).to.equal("object");
    expect(deposit.inputSchema.required).to.deep.equal(["vault_id", "amount_usdc"]);
    expect(deposit.annotations).to.deep.include({ readOnlyHint: false, destructiveHint: false });
    expect(tools.find((t) => t.name === "nap_wallet")!.annotations).to.deep.include({ readOnlyHint: true });
  });

  it("completes a deposit: faucet, then nap_deposit, and the shares are in the agent's wallet onchain", async function () {
    const drip = (await client.callTool({ name: "nap_faucet", arguments: {} })) as ToolResult;
    expect(drip.isError ?? false).to.equal(false);
    const deposit = (await client.callTool({
      name: "nap_deposit",
      arguments: { vault_id: "moderate", amount_usdc: 25 },
    })) as ToolResult;
    expect(deposit.isError ?? false, deposit.content[0].text).to.equal(false);
    const body = JSON.parse(deposit.content[0].text) as Record<string, string | number>;
    expect(deposit.structuredContent).to.deep.equal(body);
    expect(body).to.include({ success: true, vault_id: "moderate", amount_usdc: 25, status: "confirmed" });
    const vault = NapVault__factory.connect(vaultAddress, ethers.provider);
    expect((await vault.balanceOf(body.agent_address as string)).toString()).to.equal(body.shares_balance);
    const receipt = await ethers.provider.getTransactionReceipt(body.deposit_tx as string);
    expect(receipt!.status).to.equal(1);
  });

  it("answers a bad argument or an API refusal as a tool error with the message naming the field", async function () {
    const bad = (await client.callTool({
      name: "nap_deposit",
      arguments: { vault_id: "nowhere", amount_usdc: 1 },
    })) as ToolResult;
    expect(bad.isError).to.equal(true);
    expect(bad.content[0].text).to.equal(
      "vault_id: must be one of conservative, moderate, aggressive, inverse, hedged, configurable",
    );
    const tooMuch = (await client.callTool({
      name: "nap_withdraw",
      arguments: { vault_id: "moderate", amount_usdc: 1000 },
    })) as ToolResult;
    expect(tooMuch.isError).to.equal(true);
    expect(tooMuch.content[0].text).to.match(
      /^400: amount_usdc: the agent wallet 0x[0-9a-fA-F]{40} can withdraw at most 25 USDC/,
    );
  });
});
