"""Errors: one exception per status, carrying the API's message, code, field, status and Retry-After."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from helpers import ScriptedApi, refused

from nap import (
    AsyncNapDataClient,
    NapApiError,
    NapAuthError,
    NapClient,
    NapConflictError,
    NapDataClient,
    NapGraphQLError,
    NapNotFoundError,
    NapValidationError,
)


def live(api: ScriptedApi, api_key: str | None = "nap-test") -> NapClient:
    return NapClient("http://api.test", api_key=api_key, http=api.sync_http())


def test_a_live_api_400_names_the_field_its_message_starts_with():
    api = ScriptedApi(refused(400, {"error": "amount_usdc: must be greater than 0"}))
    with pytest.raises(NapValidationError) as raised:
        live(api).deposit("moderate", 1)
    error = raised.value
    assert (error.status, error.field, error.code) == (400, "amount_usdc", None)
    assert error.message == "amount_usdc: must be greater than 0"
    assert error.request == "POST /api/v1/agent/vault/deposit"
    assert str(error) == "POST /api/v1/agent/vault/deposit: 400: amount_usdc: must be greater than 0"


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, NapAuthError), (403, NapAuthError), (404, NapNotFoundError), (409, NapConflictError), (500, NapApiError)],
)
def test_each_status_has_its_exception(status, kind):
    api = ScriptedApi(refused(status, {"error": "what was wrong"}))
    with pytest.raises(kind) as raised:
        live(api).wallet()
    assert type(raised.value) is kind
    assert raised.value.status == status
    assert raised.value.message == "what was wrong"
    assert raised.value.field is None


def test_the_data_apis_error_carries_its_code_and_details_field():
    body = {"error": {"code": "INVALID_LIMIT", "message": "limit: must be 1-100", "details": {"field": "limit"}}}
    api = ScriptedApi(refused(400, body))
    data = NapDataClient("http://api.test", http=api.sync_http())
    with pytest.raises(NapValidationError) as raised:
        data.user_transactions("0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8", limit=500)
    error = raised.value
    assert (error.code, error.field, error.message, error.body) == (
        "INVALID_LIMIT",
        "limit",
        "limit: must be 1-100",
        body,
    )
    assert api.requests[0].url.params["limit"] == "500"


def test_a_graphql_answer_with_errors_raises_their_messages_and_first_code():
    errors = [{"message": "no vault at 0x01", "extensions": {"code": "NOT_FOUND"}}, {"message": "second"}]
    api = ScriptedApi(httpx.Response(200, json={"data": {"vault": None}, "errors": errors}))

    async def run():
        async with AsyncNapDataClient("http://api.test", http=api.async_http()) as data:
            await data.query("vault", {"address": "0x01"})

    with pytest.raises(NapGraphQLError) as raised:
        asyncio.run(run())
    assert raised.value.code == "NOT_FOUND"
    assert raised.value.message == "no vault at 0x01; second"
    assert raised.value.data == {"vault": None}


def test_an_answer_that_is_not_json_keeps_its_text():
    api = ScriptedApi(httpx.Response(502, text="<html>bad gateway</html>"))
    with pytest.raises(NapApiError) as raised:
        live(api).wallet()
    assert (raised.value.status, raised.value.message, raised.value.body) == (
        502,
        "HTTP 502",
        "<html>bad gateway</html>",
    )


def test_a_call_that_needs_a_key_without_one_is_refused_before_sending():
    api = ScriptedApi(refused(500, {}))
    with pytest.raises(NapAuthError) as raised:
        live(api, api_key=None).faucet()
    assert raised.value.message == "no API key: register first, or pass api_key"
    assert api.requests == []


def test_the_data_key_is_sent_as_bearer_but_never_with_key_issuance():
    api = ScriptedApi(refused(401, {"error": {"code": "UNAUTHORIZED", "message": "no"}}))
    data = NapDataClient("http://api.test", api_key="napd-key", http=api.sync_http())
    with pytest.raises(NapAuthError):
        data.protocol_stats()
    with pytest.raises(NapAuthError):
        data.issue_key(agent_api_key="nap-agent")
    assert api.requests[0].headers["authorization"] == "Bearer napd-key"
    assert "authorization" not in api.requests[1].headers
    assert api.requests[1].headers["x-api-key"] == "nap-agent"
