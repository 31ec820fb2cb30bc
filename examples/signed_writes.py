"""Writes by a wallet that keeps its own key, with NAP's Python SDK: no registration, no API key, no ETH.

    NAP_API_URL=http://127.0.0.1:3000 NAP_OWNER_KEY=0x... NAP_SYNC_VAULT=0x... NAP_ASYNC_VAULT=0x... \
        python3 examples/signed_writes.py

The wallet (an eth-account key holding USDC and nothing else) signs EIP-712 messages; the data API checks them and
its relayer sends them to the NapRouter, paying the gas. Before signing, the SDK checks that the typed data the
service prepared says what was asked (owner, vault, amounts, receiver, chain, router), and refuses otherwise.

It deposits into a synchronous vault and redeems, then deposits into an ERC-7540 vault, requests a redemption,
cancels it, requests again and, once the vault has fulfilled the request, claims. A fulfilment takes the vault's
delay and a keeper: when NAP_FULFIL_ON_STDIN is set (the test harness moves the test chain's time and fulfils), the
script prints `fulfil <owner>` and waits for a line on standard input; otherwise it claims at once, as for a request
already fulfilled.
"""

import os
import sys

from eth_account import Account
from nap import NapDataClient

API = os.environ.get("NAP_API_URL", "http://127.0.0.1:3000")


def main() -> None:
    owner = Account.from_key(os.environ["NAP_OWNER_KEY"])
    sync_vault, async_vault = (
        os.environ["NAP_SYNC_VAULT"],
        os.environ["NAP_ASYNC_VAULT"],
    )
    with NapDataClient(API) as data:

        def relayed(what: str, accepted) -> dict:
            relay = data.wait_for_relay(accepted.relay_id, interval=0.2)
            result = {
                k: v
                for k, v in (relay.result.model_dump() if relay.result else {}).items()
                if v is not None
            }
            facts = ", ".join(f"{k} {v}" for k, v in result.items())
            print(
                f"{what}: {relay.status.value}, {facts} (relay {relay.relay_id}, tx {relay.tx_hash.root})"
            )
            return result

        print(f"wallet {owner.address}: never registered, no ETH")
        shares = relayed(
            "deposited 20 USDC into the synchronous vault",
            data.deposit(sync_vault, 20_000_000, owner),
        )
        relayed(
            "withdrew half by signature",
            data.redeem(sync_vault, int(shares["shares"]) // 2, owner),
        )

        held = int(
            relayed(
                "deposited 20 USDC into the ERC-7540 vault",
                data.deposit(async_vault, 20_000_000, owner),
            )["shares"]
        )
        relayed(
            "requested a redemption", data.request_redeem(async_vault, held // 4, owner)
        )
        relayed("cancelled it", data.cancel_redeem(async_vault, owner))
        relayed("requested again", data.request_redeem(async_vault, held // 2, owner))
        if os.environ.get("NAP_FULFIL_ON_STDIN"):
            print(f"fulfil {owner.address}", flush=True)
            sys.stdin.readline()
        relayed("claimed once fulfilled", data.claim(async_vault, held // 2, owner))
        print("done: every write signed by the wallet and relayed; it holds no ETH")


if __name__ == "__main__":
    main()
