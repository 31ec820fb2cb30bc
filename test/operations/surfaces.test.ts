import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentKit, ViemWalletProvider } from "@coinbase/agentkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Wallet } from "ethers";
import { createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import {
  anthropicTools,
  inputJsonSchema,
  NapClient,
  NapDataClient,
  openAiTools,
  OPERATIONS,
  outputJsonSchema,
  runTool,
  toolDefinitions,
  type NapOperation,
} from "@nap/sdk";
import { napActionProvider } from "../../packages/agentkit/src";
import { COMMANDS } from "../../packages/cli/src/commands";
import { COMMAND_SPECS } from "../../packages/cli/src/commands/specs";
import { USAGE } from "../../packages/cli/src/main";
import { createNapMcpServer } from "../../packages/mcp/src/server";
import { listedTool, TOOLS } from "../../packages/mcp/src/tools";
import { DEV_MNEMONIC } from "../e2e/helpers";
import { deployTo, kill, rpc, spawnApi, spawnHardhatNode, type Spawned } from "../e2e/processes";
import { runCli as nap } from "../cli/helpers/runCli";

/**
 * The operations list and what is derived from it: the CLI's commands, the MCP tools, the SDK's tool definitions
 * for function calling and the AgentKit actions. Each holds every operation of the list and nothing else, with the
 * list's schema and hints; then each is driven against a spawned stack (Hardhat node, deployment, API process):
 * a deposit and a read through every one of them.
 */

const operations = OPERATIONS as readonly NapOperation[];
const toolNames = operations.map((operation) => `nap_${operation.name}`);

/**
 * AgentKit's wallet providers report their start to an analytics endpoint on the internet and leave a failed report
 * unhandled; the tests answer that endpoint here, so nothing leaves the machine and an offline run has no stray
 * rejection. Every other request goes to the network as usual.
 */
const ANALYTICS_HOST = "cca-lite.coinbase.com";
const realFetch = globalThis.fetch;
function answerAgentKitAnalyticsLocally(): void {
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname === ANALYTICS_HOST) return Promise.resolve(new Response(null, { status: 204 }));
    return realFetch(input, init);
  };
}

describe("Operations: one list, and the CLI, MCP tools, tool definitions and AgentKit actions derived from it", function () {
  before(answerAgentKitAnalyticsLocally);
  after(function () {
    globalThis.fetch = realFetch;
  });

  describe("each surface holds exactly the list", function () {
    it("the CLI has one command per operation, nothing extra, and its usage names each", function () {
      const names = operations.map((o) => o.name).sort();
      expect(Object.keys(COMMANDS).sort()).to.deep.equal(names);
      expect(Object.keys(COMMAND_SPECS).sort()).to.deep.equal(names);
      for (const spec of Object.values(COMMAND_SPECS)) {
        expect(USAGE, spec.words.join(" ")).to.include(`\n  ${[...spec.words, spec.synopsis].join(" ").trim()}`);
      }
    });

    it("the MCP tools are the list's, with its input and output schemas and its hints", function () {
      expect(TOOLS.map((tool) => tool.name)).to.deep.equal(toolNames);
      for (const [i, tool] of TOOLS.map(listedTool).entries()) {
        const operation = operations[i];
        expect(tool.description).to.equal(operation.description);
        expect(tool.inputSchema).to.deep.equal(inputJsonSchema(operation));
        expect(tool.inputSchema.type, tool.name).to.equal("object");
        expect((tool as { outputSchema?: unknown }).outputSchema).to.deep.equal(outputJsonSchema(operation));
        expect(tool.annotations).to.deep.equal({
          title: operation.title,
          readOnlyHint: operation.readOnly,
          destructiveHint: false,
          idempotentHint: operation.readOnly,
          openWorldHint: true,
        });
        expect(tool._meta).to.deep.equal({ "nap/moves_value": operation.movesValue });
      }
      const moving = operations.filter((o) => o.movesValue).map((o) => o.name);
      expect(moving).to.deep.equal(["faucet", "deposit", "withdraw", "redeem_request", "claim", "cancel_redeem"]);
    });

    it("leaves the operator's acts out on purpose: no tool or command issues, lists or revokes keys, rotates one, exits or changes the operator", function () {
      const operatorActs = /key|rotat|revok|exit|operator/i;
      const named = (text: string) => operatorActs.test(text);
      expect(toolNames.filter(named)).to.deep.equal([]);
      expect(operations.filter((o) => named(o.name) || named(o.title)).map((o) => o.name)).to.deep.equal([]);
      expect(Object.keys(COMMAND_SPECS).filter(named)).to.deep.equal([]);
      // The CLI has them as `nap keys`, outside the list: its usage names them, the list does not.
      for (const line of ["keys list", "keys create (--read-only | --operations OP,OP)", "keys revoke PREFIX"]) {
        expect(USAGE).to.include(`\n  ${line}`);
      }
    });

    it("the tool definitions are the list's in the OpenAI, Anthropic and neutral formats, with the same JSON Schema", function () {
      const neutral = toolDefinitions();
      expect(neutral.map((d) => d.name)).to.deep.equal(toolNames);
      expect(openAiTools()).to.deep.equal(neutral.map((d) => ({ type: "function", function: d })));
      expect(anthropicTools()).to.deep.equal(
        neutral.map((d) => ({ name: d.name, description: d.description, input_schema: d.parameters })),
      );
      for (const [i, definition] of neutral.entries()) {
        expect(definition.parameters).to.deep.equal(inputJsonSchema(operations[i]));
        expect(definition.parameters.type).to.equal("object");
      }
      expect(toolDefinitions({ readOnly: true }).map((d) => d.name)).to.deep.equal(
        operations.filter((o) => o.readOnly).map((o) => `nap_${o.name}`),
      );
    });

    it("the AgentKit actions are the list's, with its descriptions and zod schemas", function () {
      const provider = napActionProvider({ apiUrl: "http://127.0.0.1:1" });
      const wallet = new ViemWalletProvider(
        createWalletClient({
          account: privateKeyToAccount(generatePrivateKey()),
          chain: hardhat,
          transport: http(),
        }) as never,
      );
      const actions = provider.getActions(wallet);
      expect(actions.map((a) => a.name)).to.deep.equal(toolNames);
      for (const [i, action] of actions.entries()) {
        expect(action.description).to.equal(operations[i].description);
        expect(action.schema).to.equal(operations[i].input);
      }
    });
  });

  describe("against a spawned stack", function () {
    this.timeout(600_000);
    let node: Spawned;
    let api: Spawned;
    let outDir: string;
    let home: string;

    before(async function () {
      node = await spawnHardhatNode();
      outDir = mkdtempSync(join(tmpdir(), "nap-operations-"));
      home = mkdtempSync(join(tmpdir(), "nap-operations-home-"));
      await deployTo(node.url, outDir);
      api = await spawnApi({
        RPC_URL: node.url,
        CHAIN_ID: "31337",
        DEPLOYMENT_FILE: join(outDir, "31337.json"),
        SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
        SIGNATURE_WORKERS: "0",
        STRATEGY_SCREENING: "off",
      });
    });

    after(async function () {
      if (api) await kill(api.child);
      if (node) await kill(node.child);
      for (const dir of [outDir, home]) if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** A registered agent with test funds, through the SDK. */
    async function fundedAgent(name: string): Promise<NapClient> {
      const live = new NapClient({ baseUrl: api.url });
      await live.register({ signer: Wallet.createRandom(), agentName: name });
      await live.faucet();
      return live;
    }

    it("AgentKit: one line adds NAP; the AgentKit wallet signs the registration, then faucet, deposit and a read", async function () {
      const account = privateKeyToAccount(generatePrivateKey());
      const chain = { ...hardhat, rpcUrls: { default: { http: [node.url] } } };
      const walletProvider = new ViemWalletProvider(
        createWalletClient({ account, chain, transport: http(node.url) }) as never,
        { rpcUrl: node.url },
      );
      const agentKit = await AgentKit.from({
        walletProvider,
        actionProviders: [napActionProvider({ apiUrl: api.url })],
      });
      const actions = new Map(agentKit.getActions().map((action) => [action.name, action]));
      expect([...actions.keys()]).to.deep.equal(toolNames);
      const call = async (name: string, args: object) => actions.get(name)!.invoke(args as never);

      const registered = JSON.parse(await call("nap_register", { agent_name: "agentkit agent" }));
      expect(registered).to.include({ success: true, agent_name: "agentkit agent", tier: "unverified" });
      expect(registered.api_key).to.match(/^nap-/);
      // The agent is the AgentKit wallet's: registration was signed by it.
      const owner = await new NapClient({ baseUrl: api.url }).lookup(account.address);
      expect(owner).to.include({ registered: true, agent_name: "agentkit agent" });

      expect(JSON.parse(await call("nap_faucet", {}))).to.include({ drip_amount_usdc: 1000 });
      const deposit = JSON.parse(await call("nap_deposit", { vault_id: "moderate", amount_usdc: 10 }));
      expect(deposit).to.include({ success: true, vault_id: "moderate", amount_usdc: 10, status: "confirmed" });
      const positions = JSON.parse(await call("nap_positions", {})) as { positions: { value_usdc: string }[] };
      expect(positions.positions.map((p) => p.value_usdc)).to.deep.equal(["10"]);

      expect(await call("nap_deposit", { vault_id: "nowhere", amount_usdc: 1 })).to.equal(
        "Error: vault_id: must be one of conservative, moderate, aggressive, inverse, hedged, configurable",
      );
      expect(await call("nap_withdraw", { vault_id: "moderate", amount_usdc: 1000 })).to.match(
        /^Error: 400: amount_usdc: the agent wallet 0x[0-9a-fA-F]{40} can withdraw at most 10 USDC/,
      );
    });

    it("SDK tool executor: runTool runs nap_deposit and the reads by name, and refuses bad arguments before sending", async function () {
      const live = await fundedAgent("executor agent");
      const context = { live, data: new NapDataClient({ baseUrl: api.url }) };
      const deposit = (await runTool(context, "nap_deposit", { vault_id: "conservative", amount_usdc: 5 })) as object;
      expect(deposit).to.include({ success: true, vault_id: "conservative", amount_usdc: 5, status: "confirmed" });
      const wallet = (await runTool(context, "nap_wallet")) as { usdc_balance: number };
      expect(wallet.usdc_balance).to.equal(995);
      const vaults = (await runTool(context, "nap_vaults")) as { total: number };
      expect(vaults.total).to.equal(6);
      let refused: Error | undefined;
      await runTool(context, "nap_deposit", { vault_id: "moderate", amount_usdc: 0.0000001 }).catch((error) => {
        refused = error as Error;
      });
      expect(refused?.message).to.equal("amount_usdc: must be a number of USDC with at most 6 decimal places");
    });

    it("MCP: a deposit and reads through an MCP client, whose results the client checks against the output schemas", async function () {
      const live = await fundedAgent("mcp operations agent");
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createNapMcpServer(live).connect(serverSide);
      const client = new Client({ name: "nap-operations", version: "1.0.0" });
      await client.connect(clientSide);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).to.deep.equal(toolNames);
        const deposit = (await client.callTool({
          name: "nap_deposit",
          arguments: { vault_id: "moderate", amount_usdc: 7 },
        })) as { structuredContent?: Record<string, unknown>; isError?: boolean };
        expect(deposit.isError ?? false).to.equal(false);
        expect(deposit.structuredContent).to.include({ vault_id: "moderate", amount_usdc: 7, status: "confirmed" });
        const redemptions = (await client.callTool({ name: "nap_redemptions", arguments: {} })) as {
          structuredContent?: { redemptions: unknown[] };
        };
        expect(redemptions.structuredContent!.redemptions).to.deep.equal([]);
        const stats = (await client.callTool({ name: "nap_stats", arguments: {} })) as {
          structuredContent?: { vaultCount: number };
        };
        expect(stats.structuredContent!.vaultCount).to.equal(6);
      } finally {
        await client.close();
      }
    });

    it("CLI: register --faucet, deposit and status through the commands the list gives", async function () {
      const credentials = join(home, "cli.json");
      const common = ["--api", api.url, "--credentials", credentials];
      const registered = await nap(["register", "--name", "cli operations agent", "--faucet", ...common]);
      expect(registered.code, registered.stderr).to.equal(0);
      expect(registered.stdout).to.match(/received 0\.05 ETH and 1000 USDC \(tx 0x[0-9a-f]{64}, block \d+\)\n$/);
      const deposit = await nap(["deposit", "moderate", "12", "--json", ...common]);
      expect(deposit.code, deposit.stderr).to.equal(0);
      expect(JSON.parse(deposit.stdout)).to.include({ vault_id: "moderate", amount_usdc: 12, status: "confirmed" });
      const status = await nap(["status", ...common]);
      expect(status.code, status.stderr).to.equal(0);
      expect(status.stdout).to.include("USDC 988\n");
      expect(status.stdout).to.match(/shares worth 12 USDC\nno redemption requests\n$/);
    });

    it("nap status: a redemption request in an ERC-7540 vault shows as pending with when it becomes claimable", async function () {
      const credentials = join(home, "redeemer.json");
      const common = ["--api", api.url, "--credentials", credentials];
      expect((await nap(["register", "--name", "redeemer", "--faucet", ...common])).code).to.equal(0);
      expect((await nap(["deposit", "aggressive", "20", ...common])).code).to.equal(0);
      const requested = await nap(["redeem-request", "aggressive", "--all", "--json", ...common]);
      expect(requested.code, requested.stderr).to.equal(0);
      const request = JSON.parse(requested.stdout) as { ready_at: number; shares: string; vault: string };
      const claimableFrom = new Date(request.ready_at * 1000).toISOString();

      const status = await nap(["status", "--json", ...common]);
      const body = JSON.parse(status.stdout) as { usdc_balance: number; redemptions: unknown[] };
      expect(body.usdc_balance).to.equal(980);
      expect(body.redemptions).to.deep.equal([
        {
          vault_id: "aggressive",
          vault_name: request.vault,
          pending_shares: request.shares,
          claimable_shares: "0",
          claimable_usdc: "0",
          ready_at: request.ready_at,
          claimable_from: claimableFrom,
        },
      ]);
      const lines = await nap(["redemptions", ...common]);
      expect(lines.stdout).to.equal(
        `redemption in ${request.vault}: ${request.shares} shares pending, claimable from ${claimableFrom}\n`,
      );

      // Past ready_at the claim fills the request and claims it, and nothing is left.
      const now = Number(
        (await rpc<{ timestamp: string }>(node.url, "eth_getBlockByNumber", ["latest", false])).timestamp,
      );
      await rpc(node.url, "evm_increaseTime", [request.ready_at - now + 1]);
      await rpc(node.url, "evm_mine");
      // The service reads the chain's head on its own schedule: until it has seen the new block the claim is refused
      // with the wait, which sends nothing, so it is asked again.
      let claimed = await nap(["claim", "aggressive", ...common]);
      for (let i = 0; i < 20 && claimed.stderr.includes("can be filled from"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        claimed = await nap(["claim", "aggressive", ...common]);
      }
      expect(claimed.code, claimed.stderr).to.equal(0);
      expect(claimed.stdout).to.match(/^claimed \d+(\.\d+)? USDC from .* filled by the relayer in 0x[0-9a-f]{64}\)\n$/);
      expect((await nap(["redemptions", ...common])).stdout).to.equal("no redemption requests\n");
    });
  });
});
