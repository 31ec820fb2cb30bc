"""A scripted API for the unit tests: httpx's MockTransport answering from a list, recording every request."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

Answer = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


class ScriptedApi:
    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer(request) if callable(answer) else answer

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]

    def keys(self) -> list[str | None]:
        return [r.headers.get("idempotency-key") for r in self.requests]

    def sync_http(self) -> httpx.Client:
        return httpx.Client(base_url="http://api.test", transport=httpx.MockTransport(self))

    def async_http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url="http://api.test", transport=httpx.MockTransport(self))


def ok(body: Any) -> httpx.Response:
    return httpx.Response(200, json=body)


def refused(status: int, body: Any, retry_after: str | None = None) -> httpx.Response:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return httpx.Response(status, json=body, headers=headers)


TX = "0x" + "ab" * 32
ADDRESS = "0x1613beB3B2C4f22Ee086B2b38C1476A3cE7f78E8"

DEPOSIT_RESULT = {
    "success": True,
    "agent_address": ADDRESS,
    "vault": "NAP Moderate USDC",
    "vault_id": "moderate",
    "vault_address": ADDRESS,
    "amount_usdc": 100,
    "approve_tx": TX,
    "deposit_tx": TX,
    "status": "confirmed",
    "block_number": 96,
    "shares_balance": "100000000",
}

FAUCET_RESULT = {
    "success": True,
    "agent_address": ADDRESS,
    "tx_hash": TX,
    "status": "confirmed",
    "drip_amount_wei": "50000000000000000",
    "drip_amount_eth": "0.05",
    "drip_amount_usdc": 1000,
    "drip_amount_usdc_raw": "1000000000",
    "next_eligible_timestamp": 1_800_000_000,
    "block_number": 12,
}
