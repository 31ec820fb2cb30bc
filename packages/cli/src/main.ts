import { parseArgs } from "node:util";
import { Wallet } from "ethers";
import { NapApiError, NapClient, NapDataClient, NapNetworkError, type TransportOptions } from "@nap/sdk";
import {
  assertWritable,
  defaultCredentialsFile,
  MissingCredentialsError,
  readCredentials,
  writeCredentials,
} from "@nap/sdk/credentials";
import { Output } from "./output";
import { showActivity, showLeaderboard, showStats, showVault } from "./reads";
import { watch } from "./watch";

/**
 * `nap`: the NAP agent CLI, built on the SDK. Human output by default (with progress on stderr while transactions
 * are mined), `--json` prints the API's answer as JSON for programs. Exit code 0 on success, 1 on an API error
 * (its message on stderr, or `{ "error", "status" }` with --json), 2 on a usage error.
 */

export const USAGE = `nap: the NAP agent CLI

Usage: nap <command> [arguments] [--json] [--api URL] [--credentials FILE]

  register --name NAME [--type TYPE] [--owner-key 0xKEY] [--faucet] [--force]
                                     register an agent (a new owner wallet unless --owner-key); the API key is
                                     saved to the credentials file (mode 0600) and never printed; --faucet then
                                     asks the faucet for test ETH and USDC too
  status                             the agent's wallet: ETH, USDC, NAP, vault positions
  faucet                             test ETH and USDC to the agent's wallet (once a day)
  vaults                             the vaults, their assets and APY
  deposit VAULT AMOUNT_USDC          deposit USDC into a vault
  withdraw VAULT (AMOUNT_USDC | --shares RAW | --all)
                                     withdraw from a synchronous vault (conservative, moderate, configurable)
  redeem-request VAULT (--shares RAW | --all)
                                     ask to redeem from an asynchronous vault (aggressive, inverse, hedged)
  claim VAULT                        claim a redemption once it is ready
  cancel VAULT                       cancel a pending redemption and take the shares back
  strategy submit --name NAME --description TEXT [--dna HEX]
  strategy list                      the agent's strategies
  proposals                          governance proposals
  vote PROPOSAL_ID (for|against|abstain) [--reason TEXT]
  tx HASH                            status of a transaction the service sent for the agent
  leaderboard [--limit N]            agents by performance score

 Data API (what the indexer saw onchain; no agent needed):
  vault VAULT [--period 7d|30d|90d|1y|all] [--interval 1h|4h|1d|1w]
                                     a vault (id or address): TVL, price, APY, fees, strategies and history
  activity [WALLET] [--limit N]      positions and transactions of a wallet (default: the agent's wallet)
  stats                              protocol totals
  watch vault VAULT [--after-seq N]  one line per update of a vault, until Ctrl-C
  watch transactions [VAULT] [--after-seq N]
                                     one line per new deposit, withdrawal, redemption request or claim (of one
                                     vault, or all); reconnects by itself and resumes after the last event seen

Options: --api URL (default $NAP_API_URL or http://127.0.0.1:3000), --credentials FILE (default $NAP_CREDENTIALS
or ~/.nap/credentials.json), --idempotency-key KEY (value-moving commands), --data-key KEY (a data API key,
napd-..., for higher rate limits; default $NAP_DATA_KEY), --json (watch: one JSON object per line),
--timeout SECONDS (longest wait for an answer; default $NAP_TIMEOUT_SECONDS or 30), --max-response-bytes N (longest
answer read; default $NAP_MAX_RESPONSE_BYTES or 10485760), --insecure-credentials (read a credentials file that
group or others can access, with a warning; default: refused, as $NAP_INSECURE_CREDENTIALS=1 overrides).`;

const OPTIONS = {
  json: { type: "boolean" },
  api: { type: "string" },
  credentials: { type: "string" },
  "idempotency-key": { type: "string" },
  name: { type: "string" },
  type: { type: "string" },
  description: { type: "string" },
  dna: { type: "string" },
  "owner-key": { type: "string" },
  force: { type: "boolean" },
  shares: { type: "string" },
  all: { type: "boolean" },
  reason: { type: "string" },
  faucet: { type: "boolean" },
  "data-key": { type: "string" },
  "after-seq": { type: "string" },
  period: { type: "string" },
  interval: { type: "string" },
  limit: { type: "string" },
  timeout: { type: "string" },
  "max-response-bytes": { type: "string" },
  "insecure-credentials": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

class UsageError extends Error {}

const DEFAULT_API_URL = "http://127.0.0.1:3000";
const PERIODS = ["7d", "30d", "90d", "1y", "all"] as const;
const INTERVALS = ["1h", "4h", "1d", "1w"] as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${what}: one of ${allowed.join(", ")}`);
  return value as T;
}

const SUPPORT = { against: 0, for: 1, abstain: 2 } as const;

export async function main(argv: string[], out = new Output(argv.includes("--json"))): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    out.error(`${(error as Error).message}\n\n${USAGE}`, 0);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (!command || values.help) {
    out.info(USAGE);
    return command || values.help ? 0 : 2;
  }
  const credentialsFile = values.credentials ?? defaultCredentialsFile();
  const apiUrl = values.api ?? process.env.NAP_API_URL;
  const write = { idempotencyKey: values["idempotency-key"] };
  const need = (value: string | undefined, what: string): string => {
    if (value === undefined || value === "") throw new UsageError(`${command}: ${what} is required`);
    return value;
  };
  const amount = (value: string | undefined): number => {
    const number = Number(need(value, "AMOUNT_USDC"));
    if (!Number.isFinite(number)) throw new UsageError(`${command}: AMOUNT_USDC must be a number`);
    return number;
  };
  const sharesOf = (): string => {
    if (values.all) return "all";
    return need(values.shares, "--shares RAW or --all");
  };
  const count = (value: string | undefined, what: string): number | undefined => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw new UsageError(`${command}: ${what} must be a whole number`);
    return Number(value);
  };
  const positive = (value: string | undefined, what: string): number | undefined => {
    if (value === undefined || value === "") return undefined;
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0) throw new UsageError(`${what} must be a positive number`);
    return number;
  };
  /** The transport's bounds of every client: --timeout and --max-response-bytes, or their environment variables. */
  const bounds = (): Pick<TransportOptions, "timeoutMs" | "maxResponseBytes"> => {
    const seconds = positive(values.timeout ?? process.env.NAP_TIMEOUT_SECONDS, "--timeout (NAP_TIMEOUT_SECONDS)");
    const bytes = positive(
      values["max-response-bytes"] ?? process.env.NAP_MAX_RESPONSE_BYTES,
      "--max-response-bytes (NAP_MAX_RESPONSE_BYTES)",
    );
    return {
      ...(seconds !== undefined ? { timeoutMs: seconds * 1000 } : {}),
      ...(bytes !== undefined ? { maxResponseBytes: Math.floor(bytes) } : {}),
    };
  };
  const saved = () =>
    readCredentials(credentialsFile, {
      ...(values["insecure-credentials"] ? { allowLoosePermissions: true } : {}),
      warn: (message) => out.note(message, { warning: message }),
    });
  const live = (baseUrl: string, apiKey?: string) => new NapClient({ baseUrl, apiKey, ...bounds() });
  /** A client with the saved key (every command but register). */
  const agent = (): NapClient => {
    const credentials = saved();
    return live(apiUrl ?? credentials.api_url, credentials.api_key);
  };
  /** The API's URL for commands that need no agent: --api, $NAP_API_URL, the saved agent's, or the default. */
  const publicUrl = (): string => {
    if (apiUrl) return apiUrl;
    try {
      return saved().api_url;
    } catch (error) {
      // Only a missing file means "no agent yet"; a file refused for its mode is reported, not skipped.
      if (error instanceof MissingCredentialsError) return DEFAULT_API_URL;
      throw error;
    }
  };
  const data = () =>
    new NapDataClient({
      baseUrl: publicUrl(),
      apiKey: values["data-key"] ?? process.env.NAP_DATA_KEY,
      ...bounds(),
    });

  try {
    switch (command) {
      case "register": {
        const baseUrl = apiUrl ?? DEFAULT_API_URL;
        assertWritable(credentialsFile, values.force ?? false);
        const owner = values["owner-key"] ? new Wallet(values["owner-key"]) : Wallet.createRandom();
        const nap = live(baseUrl);
        const registered = await out.progress("registering", false, () =>
          nap.register({
            signer: owner,
            agentName: need(values.name, "--name"),
            ...(values.type ? { agentType: values.type as never } : {}),
            ...(values.description ? { description: values.description } : {}),
          }),
        );
        writeCredentials(
          credentialsFile,
          {
            api_url: baseUrl,
            agent_id: registered.agent_id,
            agent_name: registered.agent_name,
            api_key: registered.api_key,
            api_key_prefix: registered.api_key_prefix,
            owner_address: owner.address,
            ...(values["owner-key"] ? {} : { owner_private_key: owner.privateKey }),
          },
          values.force ?? false,
        );
        // The key itself is in the file only: the answer is shown without it.
        const { api_key: _secret, ...shown } = registered;
        void _secret;
        out.result({ ...shown, owner_address: owner.address, credentials_file: credentialsFile }, [
          `registered agent "${registered.agent_name}" (${registered.agent_id}), tier ${registered.tier}`,
          `owner wallet ${owner.address}`,
          `API key ${registered.api_key_prefix}... saved to ${credentialsFile} (mode 0600); it is not shown again`,
        ]);
        if (!values.faucet) return 0;
        const drip = await out.progress("asking the faucet", true, () => nap.faucet(write));
        out.result(drip, [
          `received ${drip.drip_amount_eth} ETH and ${drip.drip_amount_usdc} USDC (tx ${drip.tx_hash}, block ${drip.block_number})`,
        ]);
        return 0;
      }
      case "status": {
        const wallet = await agent().wallet();
        if (!wallet.configured || !wallet.positions) {
          out.result(wallet, [wallet.message ?? "server wallets are not configured"]);
          return 0;
        }
        out.result(wallet, [
          `agent wallet ${wallet.agent_address} on ${wallet.network} (chain ${wallet.chain_id})`,
          `ETH  ${wallet.eth_balance}${wallet.has_gas ? "" : "  (no gas: run nap faucet)"}`,
          `USDC ${wallet.usdc_balance}`,
          `NAP  ${wallet.nap_balance} (voting power ${wallet.voting_power})`,
          ...(wallet.positions.length === 0
            ? ["no vault positions"]
            : wallet.positions.map((p) => `${p.vault_name}: ${p.shares} shares worth ${p.value_usdc} USDC`)),
        ]);
        return 0;
      }
      case "faucet": {
        const drip = await out.progress("asking the faucet", true, () => agent().faucet(write));
        out.result(drip, [
          `received ${drip.drip_amount_eth} ETH and ${drip.drip_amount_usdc} USDC (tx ${drip.tx_hash}, block ${drip.block_number})`,
        ]);
        return 0;
      }
      case "vaults": {
        const list = await live(publicUrl()).vaults();
        out.result(
          list,
          list.vaults.map((v) => `${v.name} (${v.address}): ${v.total_assets} ${v.asset}, APY ${v.apy}%, ${v.status}`),
        );
        return 0;
      }
      case "deposit": {
        const [vault, value] = rest;
        const body = { vault_id: need(vault, "VAULT") as never, amount_usdc: amount(value) };
        const deposit = await out.progress(`depositing ${body.amount_usdc} USDC into ${vault}`, true, () =>
          agent().deposit(body, write),
        );
        out.result(deposit, [
          `deposited ${deposit.amount_usdc} USDC into ${deposit.vault}: approve ${deposit.approve_tx}, deposit ${deposit.deposit_tx} (block ${deposit.block_number})`,
          `shares now: ${deposit.shares_balance} (raw)`,
        ]);
        return 0;
      }
      case "withdraw": {
        const [vault, value] = rest;
        const body =
          value !== undefined
            ? { vault_id: need(vault, "VAULT") as never, amount_usdc: amount(value) }
            : { vault_id: need(vault, "VAULT") as never, shares: sharesOf() };
        const withdrawal = await out.progress(`withdrawing from ${vault}`, true, () => agent().withdraw(body, write));
        out.result(withdrawal, [
          `withdrew ${withdrawal.amount_usdc} USDC from ${withdrawal.vault} for ${withdrawal.shares} shares (tx ${withdrawal.tx_hash}, block ${withdrawal.block_number})`,
          `shares left: ${withdrawal.shares_balance} (raw)`,
        ]);
        return 0;
      }
      case "redeem-request": {
        const [vault] = rest;
        const body = { vault_id: need(vault, "VAULT") as never, shares: sharesOf() };
        const request = await out.progress(`requesting a redemption from ${vault}`, true, () =>
          agent().requestRedeem(body, write),
        );
        out.result(request, [
          `requested ${request.shares} shares of ${request.vault} (tx ${request.tx_hash})`,
          `claimable from ${new Date(request.ready_at * 1000).toISOString()}: run nap claim ${vault} then`,
        ]);
        return 0;
      }
      case "claim": {
        const [vault] = rest;
        const claim = await out.progress(`claiming from ${vault}`, true, () =>
          agent().claim({ vault_id: need(vault, "VAULT") as never }, write),
        );
        out.result(claim, [
          `claimed ${claim.amount_usdc} USDC from ${claim.vault} (tx ${claim.tx_hash}` +
            (claim.fulfill_tx ? `, filled by the ${claim.fulfilled_by} in ${claim.fulfill_tx})` : ")"),
        ]);
        return 0;
      }
      case "cancel": {
        const [vault] = rest;
        const cancel = await out.progress(`canceling the redemption request in ${vault}`, true, () =>
          agent().cancelRedeem({ vault_id: need(vault, "VAULT") as never }, write),
        );
        out.result(cancel, [`took back ${cancel.shares} shares of ${cancel.vault} (tx ${cancel.claim_tx})`]);
        return 0;
      }
      case "strategy": {
        const [sub] = rest;
        if (sub === "list") {
          const list = await agent().strategies();
          out.result(
            list,
            list.strategies.length === 0
              ? ["no strategies yet"]
              : list.strategies.map((s) => `${s.strategy_id}  ${s.status}  ${s.name}`),
          );
          return 0;
        }
        if (sub !== "submit") throw new UsageError("strategy: submit or list");
        const body = {
          name: need(values.name, "--name"),
          description: need(values.description, "--description"),
          ...(values.dna ? { dna_string: values.dna } : {}),
        };
        const submitted = await out.progress(`submitting strategy "${body.name}"`, true, () =>
          agent().submitStrategy(body, write),
        );
        out.result(submitted, [
          `submitted "${submitted.strategy_name}": ${submitted.strategy_id}, status ${submitted.strategy_status} (tx ${submitted.tx_hash})`,
        ]);
        return 0;
      }
      case "proposals": {
        const list = await live(publicUrl()).proposals();
        out.result(
          list,
          list.proposals.length === 0
            ? ["no proposals"]
            : list.proposals.map((p) => `#${p.proposal_id} ${p.state}: ${p.description}`),
        );
        return 0;
      }
      case "vote": {
        const [proposal, choice] = rest;
        const support = SUPPORT[need(choice, "for, against or abstain") as keyof typeof SUPPORT];
        if (support === undefined) throw new UsageError("vote: the choice is for, against or abstain");
        const vote = await out.progress(`voting ${choice} on proposal ${proposal}`, true, () =>
          agent().vote(
            {
              proposal_id: need(proposal, "PROPOSAL_ID"),
              support,
              ...(values.reason ? { reason: values.reason } : {}),
            },
            write,
          ),
        );
        out.result(vote, [
          `voted ${vote.support_label} on proposal ${vote.proposal_id} with ${vote.weight} NAP (tx ${vote.tx_hash})`,
        ]);
        return 0;
      }
      case "tx": {
        const tx = await agent().transaction(need(rest[0], "HASH"));
        out.result(tx, [
          `${tx.operation}: ${tx.status}${tx.block_number !== null ? ` in block ${tx.block_number}` : ""}` +
            (tx.error ? ` (${tx.error})` : ""),
        ]);
        return 0;
      }
      case "leaderboard":
        await showLeaderboard(live(publicUrl()), out, count(values.limit, "--limit"));
        return 0;
      case "vault": {
        const period = oneOf(values.period, PERIODS, "--period");
        const interval = oneOf(values.interval, INTERVALS, "--interval");
        await showVault(data(), out, need(rest[0], "VAULT"), { period, interval });
        return 0;
      }
      case "activity": {
        const wallet = rest[0] ?? (await agent().wallet()).agent_address;
        await showActivity(data(), out, wallet, count(values.limit, "--limit") ?? 20);
        return 0;
      }
      case "stats":
        await showStats(data(), out);
        return 0;
      case "watch": {
        const [target, vault] = rest;
        if (target !== "vault" && target !== "transactions") throw new UsageError("watch: vault VAULT or transactions");
        return await watch(data(), out, {
          target,
          vault: target === "vault" ? need(vault, "VAULT") : vault,
          afterSeq: count(values["after-seq"], "--after-seq"),
        });
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      out.error(`${error.message}\n\n${USAGE}`, 0);
      return 2;
    }
    if (error instanceof NapApiError) {
      out.error(error.message, error.status, error.retryAfterSeconds);
      return 1;
    }
    if (error instanceof NapNetworkError) {
      // The hint fits a server that did not answer, not one that answered too slowly, too much or elsewhere.
      const hint = error.constructor === NapNetworkError ? " (is the API running? start it with npm start)" : "";
      out.error(`${error.message}${hint}`, 0);
      return 1;
    }
    out.error((error as Error).message, 0);
    return 1;
  }
}
