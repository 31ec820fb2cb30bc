"""The live API's operations, declared once for both clients (client.py): each builds the request (its body checked
against the generated request model first) and names the model its 200 answer is read into. The synchronous and the
asynchronous client only send what these build.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from .models import live as m
from .transport import HttpRequest

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Call(Generic[T]):
    request: HttpRequest
    answer: type[T]
    needs_key: bool = True


def _body(model: BaseModel) -> dict[str, Any]:
    # Only what the caller gave: the server applies its own defaults.
    return model.model_dump(mode="json", exclude_none=True, exclude_unset=True)


def _read(path: str, answer: type[T], *, query: dict[str, Any] | None = None, needs_key: bool = True) -> Call[T]:
    return Call(HttpRequest("GET", path, query=query), answer, needs_key)


def _write(path: str, body: BaseModel | None, answer: type[T], idempotency_key: str | None) -> Call[T]:
    # A new key per call unless the caller gives one; the transport keeps it across this call's resends, so a
    # resend never makes a second transaction.
    key = idempotency_key or str(uuid.uuid4())
    return Call(HttpRequest("POST", path, body=None if body is None else _body(body), idempotency_key=key), answer)


# ---------------------------------------------------------------------------------------------------- registration


def nonce(wallet: str) -> Call[m.Nonce]:
    return _read("/api/v1/agent/auth/nonce", m.Nonce, query={"wallet": wallet}, needs_key=False)


def register(request: m.RegisterRequest) -> Call[m.RegisterResponse]:
    return Call(HttpRequest("POST", "/api/v1/agent/auth/register", body=_body(request)), m.RegisterResponse, False)


def operator_nonce(agent_id: str, request: m.OperatorNonceRequest) -> Call[m.Nonce]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/operator/nonce"
    return Call(HttpRequest("POST", path, body=_body(request)), m.Nonce, False)


def change_operator(agent_id: str, request: m.OperatorChangeRequest) -> Call[m.OperatorChangeResult]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/operator"
    return Call(HttpRequest("POST", path, body=_body(request)), m.OperatorChangeResult, False)


def key_nonce(agent_id: str, request: m.KeyNonceRequest) -> Call[m.Nonce]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/key/nonce"
    return Call(HttpRequest("POST", path, body=_body(request)), m.Nonce, False)


def rotate_key(agent_id: str, proof: m.KeyProof) -> Call[m.KeyRotationResult]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/key/rotate"
    return Call(HttpRequest("POST", path, body=_body(proof)), m.KeyRotationResult, False)


def revoke_key(agent_id: str, proof: m.KeyProof) -> Call[m.KeyRevocationResult]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/key/revoke"
    return Call(HttpRequest("POST", path, body=_body(proof)), m.KeyRevocationResult, False)


def create_scoped_key(request: m.ScopedKeyRequest) -> Call[m.ScopedKeyResult]:
    return Call(HttpRequest("POST", "/api/v1/agent/keys", body=_body(request)), m.ScopedKeyResult)


def scoped_key_nonce(agent_id: str, request: m.ScopedKeyNonceRequest) -> Call[m.Nonce]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/keys/nonce"
    return Call(HttpRequest("POST", path, body=_body(request)), m.Nonce, False)


def create_signed_scoped_key(agent_id: str, request: m.ScopedKeySignedRequest) -> Call[m.ScopedKeyResult]:
    path = f"/api/v1/agents/{quote(agent_id, safe='')}/keys"
    return Call(HttpRequest("POST", path, body=_body(request)), m.ScopedKeyResult, False)


def revoke_scoped_key(prefix: str) -> Call[m.ScopedKeyRevocationResult]:
    path = f"/api/v1/agent/keys/{quote(prefix, safe='')}"
    return Call(HttpRequest("DELETE", path), m.ScopedKeyRevocationResult)


def lookup(wallet: str) -> Call[m.LookupResponse]:
    return _read("/api/v1/agent/auth/lookup", m.LookupResponse, query={"wallet": wallet}, needs_key=False)


# ---------------------------------------------------------------------------------------------------- public reads


def health() -> Call[m.Health]:
    return _read("/health", m.Health, needs_key=False)


def vaults() -> Call[m.VaultList]:
    return _read("/api/v1/vaults", m.VaultList, needs_key=False)


def agents(query: dict[str, Any] | None = None) -> Call[m.Leaderboard]:
    return _read("/api/v1/agents", m.Leaderboard, query=query, needs_key=False)


def agent_stats() -> Call[m.AgentStats]:
    return _read("/api/v1/agents/stats", m.AgentStats, needs_key=False)


def proposals() -> Call[m.ProposalList]:
    return _read("/api/v1/proposals", m.ProposalList, needs_key=False)


def positions_of(wallet_address: str) -> Call[m.OnchainPositions]:
    body = _body(m.WalletLookup(wallet_address=wallet_address))
    return Call(HttpRequest("POST", "/api/v1/positions", body=body), m.OnchainPositions, False)


def nfts_of(wallet_address: str) -> Call[m.NftHoldings]:
    body = _body(m.WalletLookup(wallet_address=wallet_address))
    return Call(HttpRequest("POST", "/api/v1/nfts", body=body), m.NftHoldings, False)


# ---------------------------------------------------------------------------------------------------- the agent


def wallet() -> Call[m.WalletStatus]:
    return _read("/api/v1/agent/wallet", m.WalletStatus)


def positions() -> Call[m.VaultPositions]:
    return _read("/api/v1/agent/vault/positions", m.VaultPositions)


def strategies() -> Call[m.StrategyList]:
    return _read("/api/v1/agent/strategy/list", m.StrategyList)


def eligibility() -> Call[m.CampaignEligibility]:
    return _read("/api/v1/agent/galaxy/eligibility", m.CampaignEligibility)


def keys() -> Call[m.KeyList]:
    return _read("/api/v1/agent/keys", m.KeyList)


def transactions() -> Call[m.TransactionList]:
    return _read("/api/v1/agent/transactions", m.TransactionList)


def transaction(tx_hash: str) -> Call[m.Transaction]:
    return _read(f"/api/v1/agent/transactions/{quote(tx_hash, safe='')}", m.Transaction)


# ---------------------------------------------------------------------------------------------------- value-moving


def faucet(idempotency_key: str | None) -> Call[m.FaucetDrip]:
    return _write("/api/v1/agent/faucet", None, m.FaucetDrip, idempotency_key)


def deposit(request: m.DepositRequest, idempotency_key: str | None) -> Call[m.DepositResult]:
    return _write("/api/v1/agent/vault/deposit", request, m.DepositResult, idempotency_key)


def withdraw(request: m.WithdrawRequest, idempotency_key: str | None) -> Call[m.WithdrawResult]:
    return _write("/api/v1/agent/vault/withdraw", request, m.WithdrawResult, idempotency_key)


def request_redeem(request: m.RedeemRequestRequest, idempotency_key: str | None) -> Call[m.RedeemRequestResult]:
    return _write("/api/v1/agent/vault/redeem-request", request, m.RedeemRequestResult, idempotency_key)


def claim(request: m.VaultAction, idempotency_key: str | None) -> Call[m.ClaimResult]:
    return _write("/api/v1/agent/vault/claim", request, m.ClaimResult, idempotency_key)


def cancel_redeem(request: m.VaultAction, idempotency_key: str | None) -> Call[m.RedeemCancelResult]:
    return _write("/api/v1/agent/vault/redeem-cancel", request, m.RedeemCancelResult, idempotency_key)


def submit_strategy(request: m.StrategySubmission, idempotency_key: str | None) -> Call[m.StrategySubmitResult]:
    return _write("/api/v1/agent/strategy/submit", request, m.StrategySubmitResult, idempotency_key)


def exit_to_operator(request: m.ExitRequest, idempotency_key: str | None) -> Call[m.ExitResult]:
    return _write("/api/v1/agent/exit", request, m.ExitResult, idempotency_key)


def vote(request: m.VoteRequest, idempotency_key: str | None) -> Call[m.VoteResult]:
    return _write("/api/v1/agent/governance/vote", request, m.VoteResult, idempotency_key)
