"""The data API's REST reads and key issuance, declared once for both data clients (data.py), as operations.py does
for the live API. `needs_key` here means "sent with the client's data key, if it has one". Reads need no key (the Public tier); `min_block` (the block_number of a live write's answer)
makes a read wait until that block is indexed: read your own write.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .models import data as d
from .operations import Call, T
from .transport import HttpRequest


def _get(path: str, answer: type[T], **query: Any) -> Call[T]:
    return Call(HttpRequest("GET", path, query=query), answer)


def _segment(value: str) -> str:
    return quote(value, safe="")


def vaults(min_block: int | None = None) -> Call[d.VaultList]:
    return _get("/v1/vaults", d.VaultList, minBlock=min_block)


def vault(address: str, min_block: int | None = None) -> Call[d.VaultDetail]:
    """A vault by address."""
    return _get(f"/v1/vaults/{_segment(address)}", d.VaultDetail, minBlock=min_block)


def vault_history(address: str, period: str | None, interval: str | None) -> Call[d.VaultHistory]:
    return _get(f"/v1/vaults/{_segment(address)}/history", d.VaultHistory, period=period, interval=interval)


def vaults_batch(vault_ids: list[str]) -> Call[d.VaultBatch]:
    body = d.V1VaultsBatchPostRequest.model_validate({"vaultIds": vault_ids}).model_dump(mode="json")
    return Call(HttpRequest("POST", "/v1/vaults/batch", body=body), d.VaultBatch)


def strategies() -> Call[d.StrategyList]:
    return _get("/v1/strategies", d.StrategyList)


def strategy_performance(strategy_id: str) -> Call[d.StrategyPerformance]:
    return _get(f"/v1/strategies/{_segment(strategy_id)}/performance", d.StrategyPerformance)


def user_positions(address: str, min_block: int | None = None) -> Call[d.UserPositions]:
    return _get(f"/v1/users/{_segment(address)}/positions", d.UserPositions, minBlock=min_block)


def user_transactions(
    address: str, limit: int | None, offset: int | None, type: str | None, min_block: int | None
) -> Call[d.UserTransactions]:
    path = f"/v1/users/{_segment(address)}/transactions"
    return _get(path, d.UserTransactions, limit=limit, offset=offset, type=type, minBlock=min_block)


def protocol_stats() -> Call[d.ProtocolStats]:
    return _get("/v1/protocol/stats", d.ProtocolStats)


def status() -> Call[d.DataStatus]:
    return _get("/v1/status", d.DataStatus)


def nodes() -> Call[d.V1NodesGetResponse]:
    return _get("/v1/nodes", d.V1NodesGetResponse)


def rate_limit_status() -> Call[d.AccessRateLimitStatus]:
    return _get("/v1/rate-limit-status", d.AccessRateLimitStatus)


def token_info() -> Call[d.AccessTokenInfo]:
    return _get("/v1/auth/token-info", d.AccessTokenInfo)


def key_nonce(wallet: str) -> Call[d.V1AuthNonceGetResponse]:
    return _get("/v1/auth/nonce", d.V1AuthNonceGetResponse, wallet=wallet)


def issue_key(body: d.V1AuthKeysPostRequest, agent_api_key: str | None) -> Call[d.AccessIssuedKey]:
    headers = {"X-API-Key": agent_api_key} if agent_api_key else {}
    fields = body.model_dump(mode="json", exclude_none=True, exclude_unset=True)
    request = HttpRequest("POST", "/v1/auth/keys", body=fields, headers=headers)
    # Issued on the proof alone: a data key (the client's own) cannot issue keys.
    return Call(request, d.AccessIssuedKey, needs_key=False)


def graphql(document: str, variables: dict[str, Any] | None, min_block: int | None) -> HttpRequest:
    body: dict[str, Any] = {"query": document, "variables": variables or {}}
    if min_block is not None:
        body["extensions"] = {"minBlock": min_block}
    accept = "application/graphql-response+json, application/json"
    return HttpRequest("POST", "/graphql", body=body, headers={"accept": accept})
