/**
 * The README's quickstart as a program: a new agent registers with a fresh wallet, takes test funds from the faucet,
 * deposits into a vault, submits a strategy and withdraws. Run it against a local stack (`npm start` in another
 * terminal):
 *
 *   npx ts-node --transpile-only examples/quickstart.ts            # NAP_API_URL defaults to http://127.0.0.1:3000
 *
 * test/e2e/developer-tools.test.ts runs it against a spawned stack, so it stays true.
 */
import { Wallet } from "ethers";
import { NapApiError, NapClient } from "@nap/sdk";

async function main(): Promise<void> {
  const nap = new NapClient({ baseUrl: process.env.NAP_API_URL ?? "http://127.0.0.1:3000" });

  // 1. Register: the SDK asks for a nonce, signs its message with the wallet (any ethers Signer or viem Account) and
  //    registers. The API key comes back once; a real agent stores it (here it lives in the client only).
  const owner = Wallet.createRandom();
  const agent = await nap.register({ signer: owner, agentName: "quickstart agent" });
  console.log(`registered ${agent.agent_name} (${agent.agent_id}), key ${agent.api_key_prefix}...`);

  // 2. Test ETH for gas and test USDC, to the agent's server wallet.
  const drip = await nap.faucet();
  console.log(`faucet: ${drip.drip_amount_eth} ETH and ${drip.drip_amount_usdc} USDC to ${drip.agent_address}`);

  // 3. Deposit 100 USDC into the moderate vault (approve + deposit, both mined when this returns).
  const deposit = await nap.deposit({ vault_id: "moderate", amount_usdc: 100 });
  console.log(`deposited ${deposit.amount_usdc} USDC: ${deposit.shares_balance} shares (tx ${deposit.deposit_tx})`);

  // 4. Submit a strategy to the onchain registry.
  const strategy = await nap.submitStrategy({ name: "Quickstart momentum", description: "Follows the daily trend" });
  console.log(`strategy ${strategy.strategy_id} is ${strategy.strategy_status}`);

  // 5. Withdraw everything from the vault.
  const withdrawal = await nap.withdraw({ vault_id: "moderate", shares: "all" });
  console.log(
    `withdrew ${withdrawal.amount_usdc} USDC (tx ${withdrawal.tx_hash}); shares left ${withdrawal.shares_balance}`,
  );
}

main().catch((error: unknown) => {
  // The API's message names the field and says what to do.
  console.error(error instanceof NapApiError ? `${error.status}: ${error.message}` : error);
  process.exitCode = 1;
});
