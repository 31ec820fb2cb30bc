import { Wallet } from "ethers";
import { redemptionOf, runOperation, findOperation, type Answer } from "@nap/sdk";
import { assertWritable, writeCredentials } from "@nap/sdk/credentials";
import { Reader, type CommandEnvironment } from "./binding";
import { MONEY_COMMANDS } from "./agent";
import { DEFAULT_API_URL } from "../session";
import type { CommandTable } from "./table";

/** Registration (which writes the credentials file) and the agent's status (its wallet and its redemptions). */

type Redemption = NonNullable<ReturnType<typeof redemptionOf>>;

/** A redemption as a person reads it: what waits, and from when it can be claimed. */
export function redemptionLine(r: Redemption): string {
  const claimable = /^0(\.0*)?$/.test(r.claimable_shares)
    ? ""
    : `${r.claimable_shares} shares claimable now (${r.claimable_usdc} USDC: run nap claim ${r.vault_id})`;
  const pending = r.ready_at === null ? "" : `${r.pending_shares} shares pending, claimable from ${r.claimable_from}`;
  return `redemption in ${r.vault_name}: ${[pending, claimable].filter(Boolean).join("; ")}`;
}

function walletLines(wallet: Answer<"getApiV1AgentWallet">): string[] {
  if (!wallet.configured || !wallet.positions) return [wallet.message ?? "server wallets are not configured"];
  return [
    `agent wallet ${wallet.agent_address} on ${wallet.network} (chain ${wallet.chain_id})`,
    `ETH  ${wallet.eth_balance}${wallet.has_gas ? "" : "  (no gas: run nap faucet)"}`,
    `USDC ${wallet.usdc_balance}`,
    `NAP  ${wallet.nap_balance} (voting power ${wallet.voting_power})`,
    ...(wallet.positions.length === 0
      ? ["no vault positions"]
      : wallet.positions.map((p) => `${p.vault_name}: ${p.shares} shares worth ${p.value_usdc} USDC`)),
  ];
}

export const ACCOUNT_COMMANDS = {
  register: {
    args: (line) => {
      const read = new Reader("register");
      return {
        agent_name: read.need(line.flags.name, "--name"),
        ...(typeof line.flags.type === "string" ? { agent_type: line.flags.type as never } : {}),
        ...(typeof line.flags.description === "string" && line.flags.description
          ? { description: line.flags.description }
          : {}),
      };
    },
    lines: (registered) => [`registered agent "${registered.agent_name}" (${registered.agent_id})`],
    async execute({ line, out, session }: CommandEnvironment, args) {
      const baseUrl = session.apiUrl ?? DEFAULT_API_URL;
      const force = line.flags.force === true;
      assertWritable(session.credentialsFile, force);
      const ownerKey = typeof line.flags["owner-key"] === "string" ? line.flags["owner-key"] : undefined;
      const owner = ownerKey ? new Wallet(ownerKey) : Wallet.createRandom();
      const live = session.live(baseUrl);
      const publicContext = session.context(false);
      const context = {
        live,
        signer: owner,
        get data() {
          return publicContext.data;
        },
      };
      const registered = (await out.progress("registering", false, () =>
        runOperation(context, findOperation("register")!, args),
      )) as Answer<"postApiV1AgentAuthRegister">;
      writeCredentials(
        session.credentialsFile,
        {
          api_url: baseUrl,
          agent_id: registered.agent_id,
          agent_name: registered.agent_name,
          api_key: registered.api_key,
          api_key_prefix: registered.api_key_prefix,
          owner_address: owner.address,
          ...(ownerKey ? {} : { owner_private_key: owner.privateKey }),
        },
        force,
      );
      // The key itself is in the file only: the answer is shown without it.
      const { api_key: _secret, ...shown } = registered;
      void _secret;
      out.result({ ...shown, owner_address: owner.address, credentials_file: session.credentialsFile }, [
        `registered agent "${registered.agent_name}" (${registered.agent_id}), tier ${registered.tier}`,
        `owner wallet ${owner.address}`,
        `API key ${registered.api_key_prefix}... saved to ${session.credentialsFile} (mode 0600); it is not shown again`,
      ]);
      if (line.flags.faucet !== true) return;
      const write = session.idempotencyKey !== undefined ? { idempotencyKey: session.idempotencyKey } : {};
      const drip = await out.progress("asking the faucet", true, () => live.faucet(write));
      out.result(drip, MONEY_COMMANDS.faucet.lines(drip));
    },
  },
  wallet: {
    args: () => ({}),
    lines: walletLines,
    async execute({ out, context }: CommandEnvironment) {
      const wallet = await context.live.wallet();
      if (!wallet.configured || !wallet.agent_address) {
        out.result(wallet, walletLines(wallet));
        return;
      }
      const { positions } = await context.live.positionsOf(wallet.agent_address);
      const redemptions = positions.flatMap((p) => redemptionOf(p) ?? []);
      out.result({ ...wallet, redemptions }, [
        ...walletLines(wallet),
        ...(redemptions.length === 0 ? ["no redemption requests"] : redemptions.map(redemptionLine)),
      ]);
    },
  },
  redemptions: {
    args: () => ({}),
    lines: ({ redemptions }) =>
      redemptions.length === 0 ? ["no redemption requests"] : redemptions.map(redemptionLine),
  },
} satisfies Partial<CommandTable>;
