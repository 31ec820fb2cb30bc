"""Scoped keys: issued with the full key or by the agent wallet's signature of a message naming the scope; revoked by
prefix. The client keeps its own (full) key."""

from __future__ import annotations

import asyncio

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from helpers import ScriptedApi, ok

from nap import AsyncNapClient, NapClient

AGENT_ID = "72b78b96-20a8-4f62-9671-3c1f36f9260b"
FULL_KEY = "nap-" + "f" * 32
NONCE = "9f86d081884c7d659a2feaa0c55ad015"
MESSAGE = "nap.test: issue a scoped key for agent " + AGENT_ID + ": reads and vault.deposit"
ISSUED = {
    "success": True,
    "agent_id": AGENT_ID,
    "api_key": "nap-" + "s" * 32,
    "api_key_prefix": "nap-ssssssss",
    "label": "llm",
    "scope": {"read_only": False, "operations": ["vault.deposit"], "usdc_per_day": "25000000"},
    "expires_at": "2026-12-03T00:00:00.000Z",
}
REVOKED = {
    "success": True,
    "agent_id": AGENT_ID,
    "revoked_api_key_prefix": "nap-ssssssss",
    "message": "Key revoked: it no longer works.",
}


def test_create_scoped_key_sends_the_scope_with_the_full_key_and_keeps_it():
    api = ScriptedApi(httpx.Response(201, json=ISSUED))
    nap = NapClient("http://api.test", api_key=FULL_KEY, http=api.sync_http())
    issued = nap.create_scoped_key(operations=["vault.deposit"], usdc_per_day=25_000_000, label="llm")

    (request,) = api.requests
    assert (request.method, request.url.path) == ("POST", "/api/v1/agent/keys")
    assert request.headers["x-api-key"] == FULL_KEY
    assert "idempotency-key" not in request.headers
    assert api.bodies() == [{"operations": ["vault.deposit"], "usdc_per_day": "25000000", "label": "llm"}]
    assert issued.api_key == "nap-" + "s" * 32
    assert issued.scope.usdc_per_day == "25000000"
    assert nap.api_key == FULL_KEY


def test_create_scoped_key_by_signature_signs_the_nonce_message_naming_the_scope_without_a_key():
    owner = Account.create()
    api = ScriptedApi(
        ok({"nonce": NONCE, "message": MESSAGE, "expires_in_seconds": 600}), httpx.Response(201, json=ISSUED)
    )
    nap = NapClient("http://api.test", http=api.sync_http())
    issued = nap.create_scoped_key_by_signature(AGENT_ID, owner, read_only=True, expires_in_seconds=3600)

    nonce_request, issue_request = api.requests
    assert nonce_request.url.path == f"/api/v1/agents/{AGENT_ID}/keys/nonce"
    assert issue_request.url.path == f"/api/v1/agents/{AGENT_ID}/keys"
    assert all("x-api-key" not in r.headers for r in api.requests)
    nonce_body, issue_body = api.bodies()
    assert nonce_body == {"read_only": True, "expires_in_seconds": 3600}
    assert set(issue_body) == {"read_only", "expires_in_seconds", "nonce", "signature"}
    assert (issue_body["read_only"], issue_body["expires_in_seconds"], issue_body["nonce"]) == (True, 3600, NONCE)
    assert Account.recover_message(encode_defunct(text=MESSAGE), signature=issue_body["signature"]) == owner.address
    assert issued.api_key_prefix == "nap-ssssssss"


def test_revoke_scoped_key_deletes_by_prefix_with_the_full_key_sync_and_async():
    api = ScriptedApi(lambda _request: ok(REVOKED))
    revoked = NapClient("http://api.test", api_key=FULL_KEY, http=api.sync_http()).revoke_scoped_key("nap-ssssssss")
    assert revoked.revoked_api_key_prefix == "nap-ssssssss"

    async def revoke_async():
        async with AsyncNapClient("http://api.test", api_key=FULL_KEY, http=api.async_http()) as nap:
            return await nap.revoke_scoped_key("nap-ssssssss")

    assert asyncio.run(revoke_async()).revoked_api_key_prefix == "nap-ssssssss"
    for request in api.requests:
        assert (request.method, request.url.path) == ("DELETE", "/api/v1/agent/keys/nap-ssssssss")
        assert request.headers["x-api-key"] == FULL_KEY
