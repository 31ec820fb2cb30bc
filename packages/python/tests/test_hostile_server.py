"""Against a hostile or broken server: answers past the size cap or the time limit are abandoned, redirects are not
followed, and none of these is resent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from helpers import ScriptedApi

from nap import AsyncNapClient, NapClient, NapRedirectError, NapResponseTooLargeError, NapTimeoutError

CHUNK = b"x" * 1024


class Endless:
    """A body that never ends, counting the chunks the client pulled."""

    def __init__(self, pause: float = 0) -> None:
        self.pulled = 0
        self.pause = pause

    def __iter__(self) -> Iterator[bytes]:
        while True:
            self.pulled += 1
            time.sleep(self.pause)
            yield CHUNK

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            self.pulled += 1
            await asyncio.sleep(self.pause)
            yield CHUNK


def test_an_endless_answer_is_abandoned_at_max_response_bytes_not_buffered_whole():
    body = Endless()
    api = ScriptedApi(httpx.Response(200, content=body))
    nap = NapClient("http://api.test", api_key="k", max_response_bytes=10 * 1024, http=api.sync_http())
    with pytest.raises(NapResponseTooLargeError) as raised:
        nap.wallet()
    assert body.pulled == 11
    assert raised.value.request == "GET /api/v1/agent/wallet"
    assert len(api.requests) == 1


def test_a_declared_length_past_the_cap_is_refused_before_reading():
    api = ScriptedApi(httpx.Response(200, headers={"content-length": "20000000"}, content=b"{}"))
    nap = NapClient("http://api.test", api_key="k", http=api.sync_http())
    with pytest.raises(NapResponseTooLargeError):
        nap.wallet()


def test_a_body_that_drips_past_the_timeout_is_abandoned_and_not_resent_even_with_a_key():
    body = Endless(pause=0.02)
    api = ScriptedApi(httpx.Response(200, content=body))
    nap = NapClient("http://api.test", api_key="k", timeout=0.2, http=api.sync_http())
    started = time.monotonic()
    with pytest.raises(NapTimeoutError):
        nap.faucet()
    assert time.monotonic() - started < 1
    assert len(api.requests) == 1


def test_the_async_client_abandons_an_endless_answer_at_the_cap():
    body = Endless()
    api = ScriptedApi(httpx.Response(200, content=body.__aiter__()))  # async only: the async client streams it

    async def run() -> None:
        async with AsyncNapClient(
            "http://api.test", api_key="k", max_response_bytes=4 * 1024, http=api.async_http()
        ) as nap:
            await nap.positions()

    with pytest.raises(NapResponseTooLargeError):
        asyncio.run(run())
    assert body.pulled == 5


def test_a_redirect_is_not_followed_so_the_key_never_leaves_the_origin():
    api = ScriptedApi(httpx.Response(307, headers={"location": "http://elsewhere.test/steal"}))
    with pytest.raises(NapRedirectError) as raised:
        NapClient("http://api.test", api_key="nap-secret", http=api.sync_http()).deposit("moderate", 1)
    assert (
        str(raised.value)
        == "POST /api/v1/agent/vault/deposit: the server redirected to http://elsewhere.test/steal; not followed"
    )
    assert [str(r.url) for r in api.requests] == ["http://api.test/api/v1/agent/vault/deposit"]
