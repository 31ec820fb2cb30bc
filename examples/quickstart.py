"""The README's quickstart in Python, with NAP's Python SDK (packages/python, importable as `nap`).

    pip install packages/python            # or the wheel: pip install nap_sdk-0.1.0-py3-none-any.whl
    NAP_API_URL=http://127.0.0.1:3000 python3 examples/quickstart.py

`npm run example:python` builds the wheel, installs it into a fresh virtual environment and runs this file there
against a stack of its own.

A new agent registers with a fresh wallet, takes test funds from the faucet, deposits into a vault, watches its
deposit arrive on the data API's live channels, submits a strategy and withdraws. Errors raise a NapApiError carrying
the API's message (which names the field and what to do), its code and status.
"""

import os
import sys
from decimal import Decimal

from eth_account import Account

from nap import NapApiError, NapClient, NapDataClient, NapError

API = os.environ.get("NAP_API_URL", "http://127.0.0.1:3000")
DATA = os.environ.get("NAP_DATA_URL", API)  # the data API (/v1, /graphql, /ws); the same server by default
WAIT_SECONDS = 60


def usdc(amount: float) -> str:
    return f"{Decimal(str(amount)):f}".rstrip("0").rstrip(".")


def main() -> None:
    with NapClient(API) as nap, NapDataClient(DATA) as data:
        # 1. Register: the SDK asks for a nonce and signs its message (EIP-191) with the owner wallet.
        owner = Account.create()
        agent = nap.register(owner, "python quickstart agent")
        print(f"registered {agent.agent_name} ({agent.agent_id})")  # agent.api_key is returned once: store it

        # 2. Test ETH (gas) and test USDC to the agent's server wallet.
        drip = nap.faucet()
        print(f"faucet: {drip.drip_amount_eth} ETH and {usdc(drip.drip_amount_usdc)} USDC")

        # 3. Deposit 100 USDC into the moderate vault (an Idempotency-Key goes with it and with any retry).
        deposit = nap.deposit("moderate", 100)
        print(f"deposited {usdc(deposit.amount_usdc)} USDC (tx {deposit.deposit_tx})")

        # 4. The deposit on the data API's live channels. /ws with min_block (the deposit's block) starts the stream
        #    at that block, so the deposit is its first event; a GraphQL subscription resumed after the seq before it
        #    gets the same log entry (the resume a dropped socket makes on its own).
        with data.channel("transactions", vault=deposit.vault_address, min_block=deposit.block_number) as events:
            seen = events.next(timeout=WAIT_SECONDS)
        tx = seen.data["transaction"]
        amount = usdc(float(Decimal(tx["amount"]) / 10**6))
        print(f"/ws saw the deposit: seq {seen.seq}, {tx['type']} of {amount} USDC (tx {tx['hash']})")
        variables = {"vaultAddress": deposit.vault_address}
        with data.subscribe("transactionCreated", variables, after_seq=seen.seq - 1) as events:
            resumed = events.next(timeout=WAIT_SECONDS)
        same = resumed.data["transactionCreated"]["hash"] == tx["hash"]
        print(
            f"GraphQL resumed after seq {seen.seq - 1}: seq {resumed.seq}, {'the same' if same else 'another'} deposit"
        )

        # 5. Submit a strategy.
        strategy = nap.submit_strategy("Python momentum", "Follows the daily trend")
        print(f"strategy {strategy.strategy_id} is {strategy.strategy_status}")

        # 6. Withdraw everything.
        withdrawal = nap.withdraw("moderate", shares="all")
        print(f"withdrew {usdc(withdrawal.amount_usdc)} USDC (tx {withdrawal.tx_hash})")


if __name__ == "__main__":
    try:
        main()
    except NapApiError as error:
        sys.exit(f"{error.request}: {error.status}: {error.message}")
    except NapError as error:
        sys.exit(f"{error} (is the API running at {API}? npm start)")
