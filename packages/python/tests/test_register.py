"""Registration: the nonce's message signed with eth-account (EIP-191), the key kept on the client."""

from __future__ import annotations

import json

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from helpers import ScriptedApi, ok

from nap import NapClient

NONCE = "9f86d081884c7d659a2feaa0c55ad015"
MESSAGE = "nap.test wants you to sign in with your Ethereum account:\nnonce " + NONCE


def registered(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    return ok(
        {
            "success": True,
            "agent_id": "72b78b96-20a8-4f62-9671-3c1f36f9260b",
            "agent_name": body["agent_name"],
            "api_key": "nap-" + "k" * 32,
            "api_key_prefix": "nap-kkkkkkkk",
            "tier": "unverified",
            "message": "store the key",
        }
    )


def test_register_signs_the_nonce_message_with_the_owner_wallet_and_keeps_the_key():
    owner = Account.create()
    api = ScriptedApi(ok({"nonce": NONCE, "message": MESSAGE, "expires_in_seconds": 600}), registered)
    nap = NapClient("http://api.test", http=api.sync_http())
    agent = nap.register(owner, "python agent", framework="pytest")

    nonce_request, register_request = api.requests
    assert nonce_request.url.path == "/api/v1/agent/auth/nonce"
    assert nonce_request.url.params["wallet"] == owner.address
    body = json.loads(register_request.content)
    assert set(body) == {"wallet_address", "signature", "nonce", "agent_name", "operator_address", "framework"}
    assert (body["wallet_address"], body["operator_address"], body["nonce"]) == (owner.address, owner.address, NONCE)
    assert Account.recover_message(encode_defunct(text=MESSAGE), signature=body["signature"]) == owner.address
    assert body["signature"].startswith("0x") and len(body["signature"]) == 132
    assert "x-api-key" not in register_request.headers
    assert agent.api_key == nap.api_key == "nap-" + "k" * 32


def test_register_takes_a_private_key_and_another_operator():
    owner = Account.create()
    operator = Account.create().address
    api = ScriptedApi(ok({"nonce": NONCE, "message": MESSAGE, "expires_in_seconds": 600}), registered)
    NapClient("http://api.test", http=api.sync_http()).register(
        owner.key.hex(), "python agent", operator_address=operator
    )
    body = api.bodies()[1]
    assert (body["wallet_address"], body["operator_address"]) == (owner.address, operator)
    assert Account.recover_message(encode_defunct(text=MESSAGE), signature=body["signature"]) == owner.address


def test_change_operator_is_signed_by_the_current_operator_and_sends_no_api_key():
    operator = Account.create()
    new_operator = Account.create().address
    agent_id = "72b78b96-20a8-4f62-9671-3c1f36f9260b"
    changed = {
        "success": True,
        "agent_id": agent_id,
        "operator_address": new_operator,
        "previous_operator_address": operator.address,
    }
    api = ScriptedApi(ok({"nonce": NONCE, "message": MESSAGE, "expires_in_seconds": 600}), ok(changed))
    nap = NapClient("http://api.test", api_key="nap-agent", http=api.sync_http())
    result = nap.change_operator(agent_id, operator, new_operator)

    asked, sent = api.requests
    assert asked.url.path == f"/api/v1/agents/{agent_id}/operator/nonce"
    assert api.bodies()[0] == {"operator_address": operator.address, "new_operator_address": new_operator}
    assert sent.url.path == f"/api/v1/agents/{agent_id}/operator"
    body = api.bodies()[1]
    assert (body["new_operator_address"], body["nonce"]) == (new_operator, NONCE)
    assert Account.recover_message(encode_defunct(text=MESSAGE), signature=body["signature"]) == operator.address
    assert "x-api-key" not in asked.headers and "x-api-key" not in sent.headers
    assert result.operator_address == new_operator


def test_rotate_key_is_signed_by_the_agent_wallet_and_the_new_key_replaces_the_old_on_the_client():
    wallet = Account.create()
    agent_id = "72b78b96-20a8-4f62-9671-3c1f36f9260b"
    rotated = {
        "success": True,
        "agent_id": agent_id,
        "api_key": "nap-" + "n" * 32,
        "api_key_prefix": "nap-nnnnnnnn",
        "previous_api_key_prefix": "nap-kkkkkkkk",
        "message": "Key rotated",
    }
    api = ScriptedApi(ok({"nonce": NONCE, "message": MESSAGE, "expires_in_seconds": 600}), ok(rotated))
    nap = NapClient("http://api.test", api_key="nap-" + "k" * 32, http=api.sync_http())
    nap.rotate_key(agent_id, wallet)

    assert [r.url.path for r in api.requests] == [
        f"/api/v1/agents/{agent_id}/key/nonce",
        f"/api/v1/agents/{agent_id}/key/rotate",
    ]
    assert api.bodies()[0] == {"signer_address": wallet.address, "action": "rotate"}
    assert set(api.bodies()[1]) == {"nonce", "signature"}
    assert (
        Account.recover_message(encode_defunct(text=MESSAGE), signature=api.bodies()[1]["signature"]) == wallet.address
    )
    assert all("x-api-key" not in r.headers for r in api.requests)
    assert nap.api_key == "nap-" + "n" * 32


def test_revoke_key_asks_for_a_revoke_nonce_for_the_signer():
    operator = Account.create()
    agent_id = "72b78b96-20a8-4f62-9671-3c1f36f9260b"
    revoked = {"success": True, "agent_id": agent_id, "revoked_api_key_prefix": "nap-kkkkkkkk", "message": "revoked"}
    api = ScriptedApi(ok({"nonce": NONCE, "message": MESSAGE, "expires_in_seconds": 600}), ok(revoked))
    result = NapClient("http://api.test", http=api.sync_http()).revoke_key(agent_id, operator)
    assert api.bodies()[0] == {"signer_address": operator.address, "action": "revoke"}
    assert api.requests[1].url.path == f"/api/v1/agents/{agent_id}/key/revoke"
    assert result.revoked_api_key_prefix == "nap-kkkkkkkk"
