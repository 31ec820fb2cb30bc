"""The live API's clients: NapClient (synchronous) and AsyncNapClient (asyncio), both sending the operations of
operations.py through the shared transport (transport.py). Every call answers the generated model of its 200 body or
raises a NapApiError carrying the API's message and status; every call that moves value sends an Idempotency-Key.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from pydantic import BaseModel

from . import operations as ops
from .errors import NapAuthError
from .models import live as m
from .signing import MessageSigner, as_signer, sign_text
from .transport import AsyncSession, HttpRequest, SyncSession

T = TypeVar("T", bound=BaseModel)


class _Calls:
    """What both clients do the same way: the API key on a request, and the registration body from a signature."""

    api_key: str | None

    def _keyed(self, call: ops.Call[T]) -> HttpRequest:
        request = call.request
        if not call.needs_key:
            return request
        if not self.api_key:
            label = f"{request.method} {request.path}"
            raise NapAuthError("no API key: register first, or pass api_key", status=401, request=label)
        return dataclasses.replace(request, headers={**request.headers, "X-API-Key": self.api_key})

    @staticmethod
    def _key_nonce_request(signer: MessageSigner, action: str) -> m.KeyNonceRequest:
        return m.KeyNonceRequest.model_validate({"signer_address": signer.address, "action": action})

    @staticmethod
    def _scope(
        read_only: bool | None,
        operations: list[str] | None,
        usdc_per_day: int | str | None,
        expires_in_seconds: int | None,
        label: str | None,
    ) -> dict[str, Any]:
        """A scoped key's request as given (the server applies its defaults): usdc_per_day in USDC base units."""
        given = {
            "read_only": read_only,
            "operations": operations,
            "usdc_per_day": None if usdc_per_day is None else str(usdc_per_day),
            "expires_in_seconds": expires_in_seconds,
            "label": label,
        }
        return {name: value for name, value in given.items() if value is not None}

    @staticmethod
    def _registration(
        signer: MessageSigner, nonce: m.Nonce, agent_name: str, fields: dict[str, Any]
    ) -> m.RegisterRequest:
        return m.RegisterRequest(
            wallet_address=signer.address,
            signature=sign_text(signer, nonce.message),
            nonce=nonce.nonce,
            agent_name=agent_name,
            operator_address=fields.pop("operator_address", None) or signer.address,
            **{name: value for name, value in fields.items() if value is not None},
        )


class NapClient(_Calls, SyncSession):
    """The live API, synchronously. ``with NapClient(url) as nap:`` closes its connections at the end."""

    def _send(self, call: ops.Call[T]) -> T:
        return call.answer.model_validate(self._transport.request(self._keyed(call)))

    # ------------------------------------------------------------------------------------------------ registration

    def register(
        self,
        wallet: MessageSigner | str,
        agent_name: str,
        *,
        agent_type: str | None = None,
        operator_address: str | None = None,
        description: str | None = None,
        operator_email: str | None = None,
        operator_name: str | None = None,
        framework: str | None = None,
        repo_url: str | None = None,
    ) -> m.RegisterResponse:
        """Registers an agent owned by `wallet` (a LocalAccount or a private key): asks for a nonce, signs its message
        (EIP-191) and registers. The API key is returned once (and set on this client): store it."""
        signer = as_signer(wallet)
        fields = dict(locals())
        for name in ("self", "wallet", "agent_name", "signer"):
            fields.pop(name)
        request = self._registration(signer, self.nonce(signer.address), agent_name, fields)
        registered = self._send(ops.register(request))
        self.api_key = registered.api_key
        return registered

    def nonce(self, wallet: str) -> m.Nonce:
        return self._send(ops.nonce(wallet))

    def lookup(self, wallet: str) -> m.LookupResponse:
        return self._send(ops.lookup(wallet))

    def rotate_key(self, agent_id: str, wallet: MessageSigner | str) -> m.KeyRotationResult:
        """A new API key, signed for by the agent's `wallet` (the one that registered it); the old key stops at once.
        The new key is returned once (and set on this client): store it. Needs no API key."""
        signer = as_signer(wallet)
        nonce = self._send(ops.key_nonce(agent_id, self._key_nonce_request(signer, "rotate")))
        proof = m.KeyProof(nonce=nonce.nonce, signature=sign_text(signer, nonce.message), api_key_prefix=None)
        rotated = self._send(ops.rotate_key(agent_id, proof))
        self.api_key = rotated.api_key
        return rotated

    def revoke_key(self, agent_id: str, signer: MessageSigner | str) -> m.KeyRevocationResult:
        """Revokes the agent's API key, signed for by its wallet or its operator. Needs no API key."""
        wallet = as_signer(signer)
        nonce = self._send(ops.key_nonce(agent_id, self._key_nonce_request(wallet, "revoke")))
        proof = m.KeyProof(nonce=nonce.nonce, signature=sign_text(wallet, nonce.message), api_key_prefix=None)
        return self._send(ops.revoke_key(agent_id, proof))

    def change_operator(
        self, agent_id: str, operator: MessageSigner | str, new_operator_address: str
    ) -> m.OperatorChangeResult:
        """Hands the agent to a new operator address (where every exit goes): the current `operator` wallet signs the
        nonce's message naming the agent and the new operator. Needs no API key: the signature is the proof."""
        signer = as_signer(operator)
        asked = m.OperatorNonceRequest(operator_address=signer.address, new_operator_address=new_operator_address)
        nonce = self._send(ops.operator_nonce(agent_id, asked))
        signed = m.OperatorChangeRequest(
            new_operator_address=new_operator_address, nonce=nonce.nonce, signature=sign_text(signer, nonce.message)
        )
        return self._send(ops.change_operator(agent_id, signed))

    # ------------------------------------------------------------------------------------------------ public reads

    def health(self) -> m.Health:
        return self._send(ops.health())

    def vaults(self) -> m.VaultList:
        return self._send(ops.vaults())

    def agents(self, **query: Any) -> m.Leaderboard:
        return self._send(ops.agents(query))

    def agent_stats(self) -> m.AgentStats:
        return self._send(ops.agent_stats())

    def proposals(self) -> m.ProposalList:
        return self._send(ops.proposals())

    def positions_of(self, wallet_address: str) -> m.OnchainPositions:
        return self._send(ops.positions_of(wallet_address))

    def nfts_of(self, wallet_address: str) -> m.NftHoldings:
        return self._send(ops.nfts_of(wallet_address))

    # ------------------------------------------------------------------------------------------------ the agent

    def wallet(self) -> m.WalletStatus:
        return self._send(ops.wallet())

    def positions(self) -> m.VaultPositions:
        return self._send(ops.positions())

    def strategies(self) -> m.StrategyList:
        return self._send(ops.strategies())

    def eligibility(self) -> m.CampaignEligibility:
        return self._send(ops.eligibility())

    def keys(self) -> m.KeyList:
        """The agent's API keys by prefix: creation, last use and how each ended."""
        return self._send(ops.keys())

    def create_scoped_key(
        self,
        *,
        read_only: bool | None = None,
        operations: list[str] | None = None,
        usdc_per_day: int | str | None = None,
        expires_in_seconds: int | None = None,
        label: str | None = None,
    ) -> m.ScopedKeyResult:
        """A scoped key for this agent, issued with its full key (this client's): `read_only=True`, or limited to
        `operations` (such as ["vault.deposit"]); optionally at most `usdc_per_day` USDC base units (6 decimals) out
        of the agent's wallet per UTC day, and a lifetime. Returned once, to hand on; this client keeps its key."""
        scope = self._scope(read_only, operations, usdc_per_day, expires_in_seconds, label)
        return self._send(ops.create_scoped_key(m.ScopedKeyRequest.model_validate(scope)))

    def create_scoped_key_by_signature(
        self,
        agent_id: str,
        wallet: MessageSigner | str,
        *,
        read_only: bool | None = None,
        operations: list[str] | None = None,
        usdc_per_day: int | str | None = None,
        expires_in_seconds: int | None = None,
        label: str | None = None,
    ) -> m.ScopedKeyResult:
        """The same, signed by the agent's `wallet` instead of sent with the full key: the nonce's message names the
        agent and the scope, so the signature issues this scope only. Needs no API key."""
        signer = as_signer(wallet)
        scope = self._scope(read_only, operations, usdc_per_day, expires_in_seconds, label)
        nonce = self._send(ops.scoped_key_nonce(agent_id, m.ScopedKeyNonceRequest.model_validate(scope)))
        signed = {**scope, "nonce": nonce.nonce, "signature": sign_text(signer, nonce.message)}
        request = m.ScopedKeySignedRequest.model_validate(signed)
        return self._send(ops.create_signed_scoped_key(agent_id, request))

    def revoke_scoped_key(self, prefix: str) -> m.ScopedKeyRevocationResult:
        """Revokes one of the agent's scoped keys by its prefix (`nap-` and 8 characters), with the full key."""
        return self._send(ops.revoke_scoped_key(prefix))

    def transactions(self) -> m.TransactionList:
        return self._send(ops.transactions())

    def transaction(self, tx_hash: str) -> m.Transaction:
        """The status of one of the agent's transactions."""
        return self._send(ops.transaction(tx_hash))

    # ------------------------------------------------------------------------------------------------ value-moving

    def faucet(self, *, idempotency_key: str | None = None) -> m.FaucetDrip:
        return self._send(ops.faucet(idempotency_key))

    def deposit(self, vault_id: str, amount_usdc: float, *, idempotency_key: str | None = None) -> m.DepositResult:
        request = m.DepositRequest.model_validate({"vault_id": vault_id, "amount_usdc": amount_usdc})
        return self._send(ops.deposit(request, idempotency_key))

    def withdraw(
        self,
        vault_id: str,
        *,
        amount_usdc: float | None = None,
        shares: str | None = None,
        idempotency_key: str | None = None,
    ) -> m.WithdrawResult:
        """Withdraws `amount_usdc`, or `shares` (raw, or "all")."""
        request = m.WithdrawRequest.model_validate({"vault_id": vault_id, "amount_usdc": amount_usdc, "shares": shares})
        return self._send(ops.withdraw(request, idempotency_key))

    def request_redeem(
        self, vault_id: str, shares: str, *, idempotency_key: str | None = None
    ) -> m.RedeemRequestResult:
        request = m.RedeemRequestRequest.model_validate({"vault_id": vault_id, "shares": shares})
        return self._send(ops.request_redeem(request, idempotency_key))

    def claim(self, vault_id: str, *, idempotency_key: str | None = None) -> m.ClaimResult:
        return self._send(ops.claim(m.VaultAction.model_validate({"vault_id": vault_id}), idempotency_key))

    def cancel_redeem(self, vault_id: str, *, idempotency_key: str | None = None) -> m.RedeemCancelResult:
        return self._send(ops.cancel_redeem(m.VaultAction.model_validate({"vault_id": vault_id}), idempotency_key))

    def submit_strategy(
        self, name: str, description: str, *, idempotency_key: str | None = None, **risk: Any
    ) -> m.StrategySubmitResult:
        """Submits a strategy; `risk` takes the optional fields of StrategySubmission (dna_string, max_leverage ...)."""
        request = m.StrategySubmission.model_validate({"name": name, "description": description, **risk})
        return self._send(ops.submit_strategy(request, idempotency_key))

    def exit_to_operator(
        self, asset: str, amount: str, *, vault_id: str | None = None, idempotency_key: str | None = None
    ) -> m.ExitResult:
        """Sends USDC, ETH or a vault's shares (`vault_id`) from the agent's server wallet to its operator address,
        the only destination there is. `amount`: the asset's smallest unit as a decimal string, or "all"."""
        request = m.ExitRequest.model_validate({"asset": asset, "amount": amount, "vault_id": vault_id})
        return self._send(ops.exit_to_operator(request, idempotency_key))

    def vote(
        self, proposal_id: int | str, support: int, *, reason: str | None = None, idempotency_key: str | None = None
    ) -> m.VoteResult:
        request = m.VoteRequest.model_validate({"proposal_id": proposal_id, "support": support, "reason": reason})
        return self._send(ops.vote(request, idempotency_key))


class AsyncNapClient(_Calls, AsyncSession):
    """The live API, with asyncio. ``async with AsyncNapClient(url) as nap:`` closes its connections at the end."""

    async def _send(self, call: ops.Call[T]) -> T:
        return call.answer.model_validate(await self._transport.request(self._keyed(call)))

    # ------------------------------------------------------------------------------------------------ registration

    async def register(
        self,
        wallet: MessageSigner | str,
        agent_name: str,
        *,
        agent_type: str | None = None,
        operator_address: str | None = None,
        description: str | None = None,
        operator_email: str | None = None,
        operator_name: str | None = None,
        framework: str | None = None,
        repo_url: str | None = None,
    ) -> m.RegisterResponse:
        """As NapClient.register."""
        signer = as_signer(wallet)
        fields = dict(locals())
        for name in ("self", "wallet", "agent_name", "signer"):
            fields.pop(name)
        request = self._registration(signer, await self.nonce(signer.address), agent_name, fields)
        registered = await self._send(ops.register(request))
        self.api_key = registered.api_key
        return registered

    async def nonce(self, wallet: str) -> m.Nonce:
        return await self._send(ops.nonce(wallet))

    async def lookup(self, wallet: str) -> m.LookupResponse:
        return await self._send(ops.lookup(wallet))

    async def rotate_key(self, agent_id: str, wallet: MessageSigner | str) -> m.KeyRotationResult:
        """A new API key, signed for by the agent's `wallet` (the one that registered it); the old key stops at once.
        The new key is returned once (and set on this client): store it. Needs no API key."""
        signer = as_signer(wallet)
        nonce = await self._send(ops.key_nonce(agent_id, self._key_nonce_request(signer, "rotate")))
        proof = m.KeyProof(nonce=nonce.nonce, signature=sign_text(signer, nonce.message), api_key_prefix=None)
        rotated = await self._send(ops.rotate_key(agent_id, proof))
        self.api_key = rotated.api_key
        return rotated

    async def revoke_key(self, agent_id: str, signer: MessageSigner | str) -> m.KeyRevocationResult:
        """Revokes the agent's API key, signed for by its wallet or its operator. Needs no API key."""
        wallet = as_signer(signer)
        nonce = await self._send(ops.key_nonce(agent_id, self._key_nonce_request(wallet, "revoke")))
        proof = m.KeyProof(nonce=nonce.nonce, signature=sign_text(wallet, nonce.message), api_key_prefix=None)
        return await self._send(ops.revoke_key(agent_id, proof))

    async def change_operator(
        self, agent_id: str, operator: MessageSigner | str, new_operator_address: str
    ) -> m.OperatorChangeResult:
        """Hands the agent to a new operator address (where every exit goes): the current `operator` wallet signs the
        nonce's message naming the agent and the new operator. Needs no API key: the signature is the proof."""
        signer = as_signer(operator)
        asked = m.OperatorNonceRequest(operator_address=signer.address, new_operator_address=new_operator_address)
        nonce = await self._send(ops.operator_nonce(agent_id, asked))
        signed = m.OperatorChangeRequest(
            new_operator_address=new_operator_address, nonce=nonce.nonce, signature=sign_text(signer, nonce.message)
        )
        return await self._send(ops.change_operator(agent_id, signed))

    # ------------------------------------------------------------------------------------------------ public reads

    async def health(self) -> m.Health:
        return await self._send(ops.health())

    async def vaults(self) -> m.VaultList:
        return await self._send(ops.vaults())

    async def agents(self, **query: Any) -> m.Leaderboard:
        return await self._send(ops.agents(query))

    async def agent_stats(self) -> m.AgentStats:
        return await self._send(ops.agent_stats())

    async def proposals(self) -> m.ProposalList:
        return await self._send(ops.proposals())

    async def positions_of(self, wallet_address: str) -> m.OnchainPositions:
        return await self._send(ops.positions_of(wallet_address))

    async def nfts_of(self, wallet_address: str) -> m.NftHoldings:
        return await self._send(ops.nfts_of(wallet_address))

    # ------------------------------------------------------------------------------------------------ the agent

    async def wallet(self) -> m.WalletStatus:
        return await self._send(ops.wallet())

    async def positions(self) -> m.VaultPositions:
        return await self._send(ops.positions())

    async def strategies(self) -> m.StrategyList:
        return await self._send(ops.strategies())

    async def eligibility(self) -> m.CampaignEligibility:
        return await self._send(ops.eligibility())

    async def keys(self) -> m.KeyList:
        """The agent's API keys by prefix: creation, last use and how each ended."""
        return await self._send(ops.keys())

    async def create_scoped_key(
        self,
        *,
        read_only: bool | None = None,
        operations: list[str] | None = None,
        usdc_per_day: int | str | None = None,
        expires_in_seconds: int | None = None,
        label: str | None = None,
    ) -> m.ScopedKeyResult:
        """A scoped key for this agent, issued with its full key (this client's): `read_only=True`, or limited to
        `operations` (such as ["vault.deposit"]); optionally at most `usdc_per_day` USDC base units (6 decimals) out
        of the agent's wallet per UTC day, and a lifetime. Returned once, to hand on; this client keeps its key."""
        scope = self._scope(read_only, operations, usdc_per_day, expires_in_seconds, label)
        return await self._send(ops.create_scoped_key(m.ScopedKeyRequest.model_validate(scope)))

    async def create_scoped_key_by_signature(
        self,
        agent_id: str,
        wallet: MessageSigner | str,
        *,
        read_only: bool | None = None,
        operations: list[str] | None = None,
        usdc_per_day: int | str | None = None,
        expires_in_seconds: int | None = None,
        label: str | None = None,
    ) -> m.ScopedKeyResult:
        """The same, signed by the agent's `wallet` instead of sent with the full key: the nonce's message names the
        agent and the scope, so the signature issues this scope only. Needs no API key."""
        signer = as_signer(wallet)
        scope = self._scope(read_only, operations, usdc_per_day, expires_in_seconds, label)
        nonce = await self._send(ops.scoped_key_nonce(agent_id, m.ScopedKeyNonceRequest.model_validate(scope)))
        signed = {**scope, "nonce": nonce.nonce, "signature": sign_text(signer, nonce.message)}
        request = m.ScopedKeySignedRequest.model_validate(signed)
        return await self._send(ops.create_signed_scoped_key(agent_id, request))

    async def revoke_scoped_key(self, prefix: str) -> m.ScopedKeyRevocationResult:
        """Revokes one of the agent's scoped keys by its prefix (`nap-` and 8 characters), with the full key."""
        return await self._send(ops.revoke_scoped_key(prefix))

    async def transactions(self) -> m.TransactionList:
        return await self._send(ops.transactions())

    async def transaction(self, tx_hash: str) -> m.Transaction:
        return await self._send(ops.transaction(tx_hash))

    # ------------------------------------------------------------------------------------------------ value-moving

    async def faucet(self, *, idempotency_key: str | None = None) -> m.FaucetDrip:
        return await self._send(ops.faucet(idempotency_key))

    async def deposit(
        self, vault_id: str, amount_usdc: float, *, idempotency_key: str | None = None
    ) -> m.DepositResult:
        request = m.DepositRequest.model_validate({"vault_id": vault_id, "amount_usdc": amount_usdc})
        return await self._send(ops.deposit(request, idempotency_key))

    async def withdraw(
        self,
        vault_id: str,
        *,
        amount_usdc: float | None = None,
        shares: str | None = None,
        idempotency_key: str | None = None,
    ) -> m.WithdrawResult:
        request = m.WithdrawRequest.model_validate({"vault_id": vault_id, "amount_usdc": amount_usdc, "shares": shares})
        return await self._send(ops.withdraw(request, idempotency_key))

    async def request_redeem(
        self, vault_id: str, shares: str, *, idempotency_key: str | None = None
    ) -> m.RedeemRequestResult:
        request = m.RedeemRequestRequest.model_validate({"vault_id": vault_id, "shares": shares})
        return await self._send(ops.request_redeem(request, idempotency_key))

    async def claim(self, vault_id: str, *, idempotency_key: str | None = None) -> m.ClaimResult:
        return await self._send(ops.claim(m.VaultAction.model_validate({"vault_id": vault_id}), idempotency_key))

    async def cancel_redeem(self, vault_id: str, *, idempotency_key: str | None = None) -> m.RedeemCancelResult:
        return await self._send(
            ops.cancel_redeem(m.VaultAction.model_validate({"vault_id": vault_id}), idempotency_key)
        )

    async def submit_strategy(
        self, name: str, description: str, *, idempotency_key: str | None = None, **risk: Any
    ) -> m.StrategySubmitResult:
        request = m.StrategySubmission.model_validate({"name": name, "description": description, **risk})
        return await self._send(ops.submit_strategy(request, idempotency_key))

    async def exit_to_operator(
        self, asset: str, amount: str, *, vault_id: str | None = None, idempotency_key: str | None = None
    ) -> m.ExitResult:
        """Sends USDC, ETH or a vault's shares (`vault_id`) from the agent's server wallet to its operator address,
        the only destination there is. `amount`: the asset's smallest unit as a decimal string, or "all"."""
        request = m.ExitRequest.model_validate({"asset": asset, "amount": amount, "vault_id": vault_id})
        return await self._send(ops.exit_to_operator(request, idempotency_key))

    async def vote(
        self, proposal_id: int | str, support: int, *, reason: str | None = None, idempotency_key: str | None = None
    ) -> m.VoteResult:
        request = m.VoteRequest.model_validate({"proposal_id": proposal_id, "support": support, "reason": reason})
        return await self._send(ops.vote(request, idempotency_key))
