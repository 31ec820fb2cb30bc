"""The public data API's clients: NapDataClient (synchronous) and AsyncNapDataClient (asyncio). REST /v1 answers
the generated models (models/data.py), GraphQL queries answer their `data` (a NapGraphQLError when the answer has
errors), and subscriptions (GraphQL's, or the /ws channel's) resume from the last seq after a dropped socket.
Reads need no key (the Public tier); a data API key (`napd-...`, sent as `Authorization: Bearer`) raises the limits.
Writes by a wallet's own signature (deposit, redeem, request_redeem, claim, cancel_redeem) are checked, signed with
eth-account and relayed by signed_writes.py; the wallet needs no ETH and no registration.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Generator
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel
from typing_extensions import Unpack

from . import data_operations as ops
from .errors import NapGraphQLError
from .graphql_operations import QUERIES, SUBSCRIPTIONS
from .models import data as d
from .operations import Call
from .signed_writes import SignedWriteOptions, relay_request, wait_flow, write_flow
from .signing import MessageSigner, as_signer, sign_text
from .subscriptions import ChannelSubscription, GraphQLSubscription, Subscription, SyncSubscription
from .transport import AsyncSession, AsyncTransport, HttpRequest, SessionOptions, SyncSession, SyncTransport

T = TypeVar("T", bound=BaseModel)


class _DataCalls:
    api_key: str | None
    base_url: str
    _transport: SyncTransport | AsyncTransport

    def _authorized(self, request: HttpRequest, with_key: bool = True) -> HttpRequest:
        if not self.api_key or not with_key:
            return request
        return dataclasses.replace(request, headers={**request.headers, "authorization": f"Bearer {self.api_key}"})

    @staticmethod
    def _graphql_data(answer: Any, name: str) -> Any:
        if answer.get("errors"):
            raise NapGraphQLError(answer["errors"], answer.get("data"), name)
        return answer.get("data")

    def _socket_bounds(self, options: dict[str, Any]) -> dict[str, Any]:
        """The client's timeout bounds a socket's handshake, its max_response_bytes each message, unless given."""
        transport = self._transport
        return {"open_timeout": transport.timeout, "max_message_bytes": transport.max_response_bytes, **options}

    def _socket_url(self, path: str) -> str:
        return ("ws" + self.base_url[4:] if self.base_url.startswith("http") else self.base_url) + path

    def _subscription(
        self, name: str, variables: dict[str, Any], after_seq: int | None, min_block: int | None, options: Any
    ) -> Subscription:
        """A GraphQL subscription by name (vaultUpdated, transactionCreated) from after_seq."""
        return GraphQLSubscription(
            self._socket_url("/graphql"),
            SUBSCRIPTIONS[name],
            variables,
            min_block=min_block,
            after_seq=after_seq,
            token=self.api_key,
            **self._socket_bounds(options),
        )

    def _channel(
        self, channel: str, parameters: dict[str, Any], after_seq: int | None, min_block: int | None, options: Any
    ) -> Subscription:
        return ChannelSubscription(
            self._socket_url("/ws"),
            channel,
            parameters,
            min_block=min_block,
            after_seq=after_seq,
            token=self.api_key,
            **self._socket_bounds(options),
        )


class NapDataClient(_DataCalls, SyncSession):
    """The data API, synchronously. ``with NapDataClient(url) as data:`` closes its connections at the end."""

    _transport: SyncTransport

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        http: httpx.Client | None = None,
        signed_writes: SignedWriteOptions | None = None,
        **options: Unpack[SessionOptions],
    ) -> None:
        super().__init__(base_url, api_key=api_key, http=http, **options)
        self.signed_writes = signed_writes or SignedWriteOptions()

    def _send(self, call: Call[T]) -> T:
        return call.answer.model_validate(self._transport.request(self._authorized(call.request, call.needs_key)))

    # ------------------------------------------------------------------------------------------------ REST /v1

    def vaults(self, *, min_block: int | None = None) -> d.VaultList:
        return self._send(ops.vaults(min_block))

    def vault(self, address: str, *, min_block: int | None = None) -> d.VaultDetail:
        """A vault by address."""
        return self._send(ops.vault(address, min_block))

    def vault_history(self, address: str, *, period: str | None = None, interval: str | None = None) -> d.VaultHistory:
        return self._send(ops.vault_history(address, period, interval))

    def vaults_batch(self, vault_ids: list[str]) -> d.VaultBatch:
        return self._send(ops.vaults_batch(vault_ids))

    def strategies(self) -> d.StrategyList:
        return self._send(ops.strategies())

    def strategy_performance(self, strategy_id: str) -> d.StrategyPerformance:
        return self._send(ops.strategy_performance(strategy_id))

    def user_positions(self, address: str, *, min_block: int | None = None) -> d.UserPositions:
        return self._send(ops.user_positions(address, min_block))

    def user_transactions(
        self,
        address: str,
        *,
        limit: int | None = None,
        offset: int | None = None,
        type: str | None = None,
        min_block: int | None = None,
    ) -> d.UserTransactions:
        return self._send(ops.user_transactions(address, limit, offset, type, min_block))

    def protocol_stats(self) -> d.ProtocolStats:
        return self._send(ops.protocol_stats())

    def status(self) -> d.DataStatus:
        return self._send(ops.status())

    def nodes(self) -> d.V1NodesGetResponse:
        return self._send(ops.nodes())

    def rate_limit_status(self) -> d.AccessRateLimitStatus:
        return self._send(ops.rate_limit_status())

    def token_info(self) -> d.AccessTokenInfo:
        return self._send(ops.token_info())

    def issue_key(
        self, *, agent_api_key: str | None = None, wallet: MessageSigner | str | None = None, **fields: Any
    ) -> d.AccessIssuedKey:
        """Issues a data API key, proven by a live API agent key or by a wallet's signature of a single-use nonce.
        The key is returned once (and set on this client): store it. `fields`: name, scopes, expires_in_days."""
        if wallet is not None:
            signer = as_signer(wallet)
            nonce = self._send(ops.key_nonce(signer.address))
            fields.update(wallet=signer.address, nonce=nonce.nonce, signature=sign_text(signer, nonce.message))
        body = d.V1AuthKeysPostRequest(**fields)
        issued = self._send(ops.issue_key(body, agent_api_key))
        self.api_key = issued.key
        return issued

    # ------------------------------------------------------------------------------------------------ signed writes
    # `wallet` is an eth-account LocalAccount (or anything with address and sign_message) or a private key. Each
    # answers the relay (202); wait_for_relay follows it to the transaction's outcome. Amounts are base units.

    def _drive(self, flow: Generator[Any, Any, Any]) -> Any:
        answer: Any = None
        try:
            while True:
                step = flow.send(answer)
                if isinstance(step, float):
                    time.sleep(step)
                    answer = None
                else:
                    answer = self._transport.request(self._authorized(step))
        except StopIteration as done:
            return done.value

    def _write(self, action: str, wallet: MessageSigner | str, key: str | None, **request: Any) -> d.RelayAccepted:
        flow = write_flow(action, request, wallet, self.signed_writes, key)
        return d.RelayAccepted.model_validate(self._drive(flow))

    def deposit(
        self,
        vault: str,
        amount: int | str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        min_shares: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """Deposits `amount` (base units) of the vault's asset, with an EIP-2612 permit when the router needs one."""
        return self._write(
            "deposit", wallet, idempotency_key, vault=vault, amount=amount, receiver=receiver, min_shares=min_shares
        )

    def redeem(
        self,
        vault: str,
        shares: int | str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        min_assets: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """Redeems shares of a synchronous vault."""
        return self._write(
            "redeem", wallet, idempotency_key, vault=vault, shares=shares, receiver=receiver, min_assets=min_assets
        )

    def request_redeem(
        self, vault: str, shares: int | str, wallet: MessageSigner | str, *, idempotency_key: str | None = None
    ) -> d.RelayAccepted:
        """Asks an ERC-7540 vault to redeem shares (claimable once fulfilled)."""
        return self._write("request_redeem", wallet, idempotency_key, vault=vault, shares=shares)

    def claim(
        self,
        vault: str,
        shares: int | str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        min_assets: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """Claims fulfilled shares of an ERC-7540 redemption as assets."""
        return self._write(
            "claim", wallet, idempotency_key, vault=vault, shares=shares, receiver=receiver, min_assets=min_assets
        )

    def cancel_redeem(
        self,
        vault: str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """Cancels a pending ERC-7540 redemption and takes the shares back."""
        return self._write("cancel_redeem", wallet, idempotency_key, vault=vault, receiver=receiver)

    def relay(self, relay_id: str) -> d.Relay:
        """A signed write's relay: submitted, confirmed (with its result) or failed (with its code)."""
        return d.Relay.model_validate(self._transport.request(self._authorized(relay_request(relay_id))))

    def wait_for_relay(self, relay_id: str, *, timeout: float = 120.0, interval: float = 1.0) -> d.Relay:
        """Follows a relay until it is confirmed (answered) or failed (NapRelayError), at most `timeout` seconds."""
        return d.Relay.model_validate(self._drive(wait_flow(relay_id, timeout, interval)))

    # ------------------------------------------------------------------------------------------------ GraphQL

    def query(self, name: str, variables: dict[str, Any] | None = None, *, min_block: int | None = None) -> Any:
        """Runs one of the SDK's GraphQL queries (graphql_operations.QUERIES) and answers its `data`."""
        return self.query_document(QUERIES[name], variables, min_block=min_block, name=name)

    def query_document(
        self, document: str, variables: dict[str, Any] | None = None, *, min_block: int | None = None, name: str = ""
    ) -> Any:
        request = self._authorized(ops.graphql(document, variables, min_block))
        return self._graphql_data(self._transport.request(request), f"query {name}".strip())

    # ------------------------------------------------------------------------------------------------ live events

    def subscribe(
        self,
        name: str,
        variables: dict[str, Any] | None = None,
        *,
        after_seq: int | None = None,
        min_block: int | None = None,
        **options: Any,
    ) -> SyncSubscription:
        """A GraphQL subscription (vaultUpdated, transactionCreated) as an iterator of SubscriptionEvents."""
        return SyncSubscription(self._subscription(name, variables or {}, after_seq, min_block, options))

    def channel(
        self,
        channel: str,
        *,
        after_seq: int | None = None,
        min_block: int | None = None,
        vault: str | None = None,
        user: str | None = None,
        **options: Any,
    ) -> SyncSubscription:
        """A /ws channel (`vault`, `transactions`) as an iterator of SubscriptionEvents; with `min_block` (a live
        write's block_number) the stream starts at that block, so the write's own event comes first."""
        parameters = {"vault": vault, "user": user}
        return SyncSubscription(self._channel(channel, parameters, after_seq, min_block, options))


class AsyncNapDataClient(_DataCalls, AsyncSession):
    """The data API, with asyncio. ``async with AsyncNapDataClient(url) as data:``."""

    _transport: AsyncTransport

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        http: httpx.AsyncClient | None = None,
        signed_writes: SignedWriteOptions | None = None,
        **options: Unpack[SessionOptions],
    ) -> None:
        super().__init__(base_url, api_key=api_key, http=http, **options)
        self.signed_writes = signed_writes or SignedWriteOptions()

    async def _send(self, call: Call[T]) -> T:
        return call.answer.model_validate(await self._transport.request(self._authorized(call.request, call.needs_key)))

    # ------------------------------------------------------------------------------------------------ REST /v1

    async def vaults(self, *, min_block: int | None = None) -> d.VaultList:
        return await self._send(ops.vaults(min_block))

    async def vault(self, address: str, *, min_block: int | None = None) -> d.VaultDetail:
        return await self._send(ops.vault(address, min_block))

    async def vault_history(
        self, address: str, *, period: str | None = None, interval: str | None = None
    ) -> d.VaultHistory:
        return await self._send(ops.vault_history(address, period, interval))

    async def vaults_batch(self, vault_ids: list[str]) -> d.VaultBatch:
        return await self._send(ops.vaults_batch(vault_ids))

    async def strategies(self) -> d.StrategyList:
        return await self._send(ops.strategies())

    async def strategy_performance(self, strategy_id: str) -> d.StrategyPerformance:
        return await self._send(ops.strategy_performance(strategy_id))

    async def user_positions(self, address: str, *, min_block: int | None = None) -> d.UserPositions:
        return await self._send(ops.user_positions(address, min_block))

    async def user_transactions(
        self,
        address: str,
        *,
        limit: int | None = None,
        offset: int | None = None,
        type: str | None = None,
        min_block: int | None = None,
    ) -> d.UserTransactions:
        return await self._send(ops.user_transactions(address, limit, offset, type, min_block))

    async def protocol_stats(self) -> d.ProtocolStats:
        return await self._send(ops.protocol_stats())

    async def status(self) -> d.DataStatus:
        return await self._send(ops.status())

    async def nodes(self) -> d.V1NodesGetResponse:
        return await self._send(ops.nodes())

    async def rate_limit_status(self) -> d.AccessRateLimitStatus:
        return await self._send(ops.rate_limit_status())

    async def token_info(self) -> d.AccessTokenInfo:
        return await self._send(ops.token_info())

    async def issue_key(
        self, *, agent_api_key: str | None = None, wallet: MessageSigner | str | None = None, **fields: Any
    ) -> d.AccessIssuedKey:
        """As NapDataClient.issue_key."""
        if wallet is not None:
            signer = as_signer(wallet)
            nonce = await self._send(ops.key_nonce(signer.address))
            fields.update(wallet=signer.address, nonce=nonce.nonce, signature=sign_text(signer, nonce.message))
        body = d.V1AuthKeysPostRequest(**fields)
        issued = await self._send(ops.issue_key(body, agent_api_key))
        self.api_key = issued.key
        return issued

    # ------------------------------------------------------------------------------------------------ signed writes

    async def _drive(self, flow: Generator[Any, Any, Any]) -> Any:
        answer: Any = None
        try:
            while True:
                step = flow.send(answer)
                if isinstance(step, float):
                    await asyncio.sleep(step)
                    answer = None
                else:
                    answer = await self._transport.request(self._authorized(step))
        except StopIteration as done:
            return done.value

    async def _write(
        self, action: str, wallet: MessageSigner | str, key: str | None, **request: Any
    ) -> d.RelayAccepted:
        flow = write_flow(action, request, wallet, self.signed_writes, key)
        return d.RelayAccepted.model_validate(await self._drive(flow))

    async def deposit(
        self,
        vault: str,
        amount: int | str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        min_shares: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """As NapDataClient.deposit."""
        return await self._write(
            "deposit", wallet, idempotency_key, vault=vault, amount=amount, receiver=receiver, min_shares=min_shares
        )

    async def redeem(
        self,
        vault: str,
        shares: int | str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        min_assets: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """As NapDataClient.redeem."""
        return await self._write(
            "redeem", wallet, idempotency_key, vault=vault, shares=shares, receiver=receiver, min_assets=min_assets
        )

    async def request_redeem(
        self, vault: str, shares: int | str, wallet: MessageSigner | str, *, idempotency_key: str | None = None
    ) -> d.RelayAccepted:
        """As NapDataClient.request_redeem."""
        return await self._write("request_redeem", wallet, idempotency_key, vault=vault, shares=shares)

    async def claim(
        self,
        vault: str,
        shares: int | str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        min_assets: int | str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """As NapDataClient.claim."""
        return await self._write(
            "claim", wallet, idempotency_key, vault=vault, shares=shares, receiver=receiver, min_assets=min_assets
        )

    async def cancel_redeem(
        self,
        vault: str,
        wallet: MessageSigner | str,
        *,
        receiver: str | None = None,
        idempotency_key: str | None = None,
    ) -> d.RelayAccepted:
        """As NapDataClient.cancel_redeem."""
        return await self._write("cancel_redeem", wallet, idempotency_key, vault=vault, receiver=receiver)

    async def relay(self, relay_id: str) -> d.Relay:
        """As NapDataClient.relay."""
        return d.Relay.model_validate(await self._transport.request(self._authorized(relay_request(relay_id))))

    async def wait_for_relay(self, relay_id: str, *, timeout: float = 120.0, interval: float = 1.0) -> d.Relay:
        """As NapDataClient.wait_for_relay."""
        return d.Relay.model_validate(await self._drive(wait_flow(relay_id, timeout, interval)))

    # ------------------------------------------------------------------------------------------------ GraphQL

    async def query(self, name: str, variables: dict[str, Any] | None = None, *, min_block: int | None = None) -> Any:
        return await self.query_document(QUERIES[name], variables, min_block=min_block, name=name)

    async def query_document(
        self, document: str, variables: dict[str, Any] | None = None, *, min_block: int | None = None, name: str = ""
    ) -> Any:
        request = self._authorized(ops.graphql(document, variables, min_block))
        return self._graphql_data(await self._transport.request(request), f"query {name}".strip())

    # ------------------------------------------------------------------------------------------------ live events

    def subscribe(
        self,
        name: str,
        variables: dict[str, Any] | None = None,
        *,
        after_seq: int | None = None,
        min_block: int | None = None,
        **options: Any,
    ) -> Subscription:
        """A GraphQL subscription: ``async with data.subscribe(...) as events: async for event in events``."""
        return self._subscription(name, variables or {}, after_seq, min_block, options)

    def channel(
        self,
        channel: str,
        *,
        after_seq: int | None = None,
        min_block: int | None = None,
        vault: str | None = None,
        user: str | None = None,
        **options: Any,
    ) -> Subscription:
        """A /ws channel subscription (see NapDataClient.channel)."""
        return self._channel(channel, {"vault": vault, "user": user}, after_seq, min_block, options)
