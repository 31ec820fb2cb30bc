"""Retries: Retry-After honoured on 429 and 503 within bounds, resends only when safe, one Idempotency-Key per call."""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest
from helpers import DEPOSIT_RESULT, FAUCET_RESULT, ScriptedApi, ok, refused

from nap import (
    AsyncNapClient,
    NapClient,
    NapNetworkError,
    NapRateLimitError,
    NapTimeoutError,
    NapUnavailableError,
    RetryPolicy,
)
from nap.transport import retry_after_seconds

NO_WAIT = RetryPolicy(network_retry_delay_seconds=0)
RATE_LIMITED = {"error": "too many requests: 1 per second"}


def client(api: ScriptedApi, **options) -> NapClient:
    return NapClient("http://api.test", api_key="nap-test", http=api.sync_http(), **options)


def test_a_429_with_retry_after_is_resent_after_the_wait_with_the_same_idempotency_key():
    api = ScriptedApi(refused(429, RATE_LIMITED, "0"), refused(503, {"error": "busy"}, "0"), ok(DEPOSIT_RESULT))
    waits = []
    result = client(api, on_retry=lambda attempt, wait, reason: waits.append((attempt, wait, reason))).deposit(
        "moderate", 100
    )
    assert result.deposit_tx == DEPOSIT_RESULT["deposit_tx"]
    assert len(api.requests) == 3
    keys = api.keys()
    assert keys[0] == keys[1] == keys[2]
    assert uuid.UUID(keys[0]).version == 4
    assert waits == [(1, 0, "too many requests: 1 per second"), (2, 0, "busy")]


def test_retries_stop_at_max_retries_and_raise_the_last_answer():
    api = ScriptedApi(refused(503, {"error": "the chain is away"}, "0"))
    with pytest.raises(NapUnavailableError) as raised:
        client(api, retry=RetryPolicy(max_retries=2)).wallet()
    assert len(api.requests) == 3
    assert raised.value.status == 503
    assert raised.value.message == "the chain is away"
    assert raised.value.retry_after_seconds == 0


def test_a_cooldown_longer_than_max_retry_wait_is_raised_at_once_with_its_retry_after():
    api = ScriptedApi(refused(429, {"error": "the faucet drips once a day"}, "86400"))
    with pytest.raises(NapRateLimitError) as raised:
        client(api).faucet()
    assert len(api.requests) == 1
    assert raised.value.retry_after_seconds == 86400
    assert raised.value.message == "the faucet drips once a day"


def test_a_429_without_retry_after_is_not_resent():
    api = ScriptedApi(refused(429, RATE_LIMITED))
    with pytest.raises(NapRateLimitError):
        client(api).positions()
    assert len(api.requests) == 1


def test_retry_after_as_an_http_date_is_read_as_seconds():
    soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=120), usegmt=True)
    assert retry_after_seconds(soon) in (119, 120, 121)
    assert retry_after_seconds("7") == 7
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


def test_a_write_that_got_no_answer_is_resent_with_the_same_key():
    api = ScriptedApi(httpx.ConnectError("connection refused"), ok(FAUCET_RESULT))
    drip = client(api, retry=NO_WAIT).faucet(idempotency_key="faucet-2026-run-1")
    assert drip.drip_amount_eth == "0.05"
    assert api.keys() == ["faucet-2026-run-1", "faucet-2026-run-1"]


def test_a_post_without_idempotency_key_that_got_no_answer_is_never_resent():
    api = ScriptedApi(httpx.ConnectError("connection reset"))
    with pytest.raises(NapNetworkError) as raised:
        client(api, retry=NO_WAIT).positions_of("0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8")
    assert len(api.requests) == 1
    assert raised.value.request == "POST /api/v1/positions"


def test_a_timeout_is_not_resent_even_with_a_key():
    api = ScriptedApi(httpx.ReadTimeout("read timed out"))
    with pytest.raises(NapTimeoutError):
        client(api, retry=NO_WAIT).deposit("moderate", 5)
    assert len(api.requests) == 1


def test_the_async_client_retries_the_same_way():
    api = ScriptedApi(refused(429, RATE_LIMITED, "0"), ok(DEPOSIT_RESULT))

    async def run():
        async with AsyncNapClient("http://api.test", api_key="nap-test", http=api.async_http()) as nap:
            return await nap.deposit("moderate", 100, idempotency_key="k-1")

    assert asyncio.run(run()).block_number == 96
    assert api.keys() == ["k-1", "k-1"]
