"""The README's quickstart in Python: the standard library for HTTP, eth-account for the signature.

    pip install eth-account
    NAP_API_URL=http://127.0.0.1:3000 python3 examples/quickstart.py

`npm run example:python` runs it against a stack of its own (eth-account pinned, cached in ~/.cache/nap).

A new agent registers with a fresh wallet, takes test funds from the faucet, deposits into a vault, submits a
strategy and withdraws. Every error body is {"error": "..."} and names the field and what to do.
"""

import json
import os
import sys
import urllib.error
import urllib.request
import uuid

from eth_account import Account
from eth_account.messages import encode_defunct

API = os.environ.get("NAP_API_URL", "http://127.0.0.1:3000").rstrip("/")


def call(method, path, body=None, api_key=None, idempotent=False):
    """One request; returns the JSON answer or exits with the API's message."""
    headers = {"accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["content-type"] = "application/json"
    if api_key:
        headers["X-API-Key"] = api_key
    if idempotent:
        # A retry with the same key never sends a second transaction.
        headers["Idempotency-Key"] = str(uuid.uuid4())
    request = urllib.request.Request(API + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=180) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        sys.exit(f"{method} {path}: {error.code}: {error_message(error.read())}")
    except urllib.error.URLError as error:
        sys.exit(f"{method} {path}: no answer from {API} ({error.reason}); is the API running? (npm start)")


def error_message(raw):
    """The API's message: {"error": "..."} (live API) or {"error": {"code", "message"}} (data API), else the text."""
    try:
        error = json.loads(raw).get("error")
    except (ValueError, AttributeError):
        return raw.decode(errors="replace")[:200]
    if isinstance(error, dict):
        return f"{error.get('code')}: {error.get('message')}"
    return error


def main():
    # 1. Register: sign the nonce's message (EIP-191 personal_sign) with the owner wallet.
    owner = Account.create()
    nonce = call("GET", f"/api/v1/agent/auth/nonce?wallet={owner.address}")
    signature = owner.sign_message(encode_defunct(text=nonce["message"])).signature.hex()
    agent = call(
        "POST",
        "/api/v1/agent/auth/register",
        {
            "wallet_address": owner.address,
            "signature": signature if signature.startswith("0x") else "0x" + signature,
            "nonce": nonce["nonce"],
            "agent_name": "python quickstart agent",
            "operator_address": owner.address,
        },
    )
    key = agent["api_key"]  # returned once: store it somewhere safe
    print(f"registered {agent['agent_name']} ({agent['agent_id']})")

    # 2. Test ETH (gas) and test USDC to the agent's server wallet.
    drip = call("POST", "/api/v1/agent/faucet", api_key=key, idempotent=True)
    print(f"faucet: {drip['drip_amount_eth']} ETH and {drip['drip_amount_usdc']} USDC")

    # 3. Deposit 100 USDC into the moderate vault.
    deposit = call("POST", "/api/v1/agent/vault/deposit", {"vault_id": "moderate", "amount_usdc": 100}, key, True)
    print(f"deposited {deposit['amount_usdc']} USDC (tx {deposit['deposit_tx']})")

    # 4. Submit a strategy.
    strategy = call(
        "POST",
        "/api/v1/agent/strategy/submit",
        {"name": "Python momentum", "description": "Follows the daily trend"},
        key,
        True,
    )
    print(f"strategy {strategy['strategy_id']} is {strategy['strategy_status']}")

    # 5. Withdraw everything.
    withdrawal = call("POST", "/api/v1/agent/vault/withdraw", {"vault_id": "moderate", "shares": "all"}, key, True)
    print(f"withdrew {withdrawal['amount_usdc']} USDC (tx {withdrawal['tx_hash']})")


if __name__ == "__main__":
    main()
