"""Live events of the data API with resume: GraphQL subscriptions (graphql-transport-ws on /graphql) and the /ws
channel, over `websockets`.

The data API numbers every entry of its event log (`seq` 1, 2, 3 ...) and sends it with each message
(`extensions.seq` on GraphQL, `seq` on /ws); a subscription opened with `afterSeq` first replays the log after it,
then goes live. A Subscription keeps the last seq it delivered and, when the socket drops (or a ping gets no pong in
time), reconnects with exponential backoff and subscribes again after that seq: no event is missed, none comes twice
(a message at or below the last seq is dropped, in case a replay overlaps). Refusals are final: GraphQL errors, /ws
error codes other than the passing ones, close codes 4400-4499 other than timeouts and slow reads; they raise
NapSubscriptionError (or NapGraphQLError) from the iteration, which then ends.

    async with data.subscribe("transactionCreated", {"vaultAddress": vault}) as events:
        async for event in events:
            print(event.seq, event.data)

The synchronous clients wrap the same object in SyncSubscription (a plain iterator on an event loop of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from typing_extensions import Self
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.typing import Subprotocol

from .errors import NapGraphQLError, NapSubscriptionError

# Close codes after which reconnecting helps: the server's idle timeout (4408), a slow read (4413), graphql-ws'
# internal error (4499). Every other 44xx is a refusal that would only repeat.
_PASSING_CLOSE_CODES = frozenset({4408, 4413, 4499})
# /ws error codes that end a subscription but pass: resubscribing after the last seq picks up where it stopped.
_PASSING_WS_ERRORS = frozenset({"UNAVAILABLE", "NOT_YET_INDEXED", "RATE_LIMITED"})
_WS_CLIENT_PING_SECONDS = 30


@dataclass(frozen=True)
class SubscriptionEvent:
    data: Any
    """GraphQL: the message's `data` ({"transactionCreated": {...}}); /ws: the whole data message."""
    seq: int
    """The event log's sequence number of the entry this message was made from."""


@dataclass(frozen=True)
class ReconnectPolicy:
    delay_seconds: float = 0.5
    """First wait before reconnecting, doubled after each failed attempt up to max_delay_seconds."""
    max_delay_seconds: float = 15
    max_attempts: int | None = None
    """Failed reconnects in a row before giving up (None: never)."""


class _Dropped(Exception):
    """The connection ended in a way a reconnect and resume repairs."""


class Subscription:
    """One subscription across reconnects; async-iterate it for SubscriptionEvents. `last_seq` says where it is."""

    def __init__(
        self,
        url: str,
        *,
        after_seq: int | None = None,
        token: str | None = None,
        reconnect: ReconnectPolicy | None = None,
        open_timeout: float = 30,
        max_message_bytes: int = 10 * 1024 * 1024,
        ping_interval: float = 10,
        ping_timeout: float = 5,
        on_connected: Callable[[int | None, int], None] | None = None,
        on_reconnecting: Callable[[int, float, str], None] | None = None,
    ) -> None:
        self.url = url
        self.last_seq = after_seq
        self.token = token
        self.reconnect = reconnect or ReconnectPolicy()
        self._connect_args = {
            "open_timeout": open_timeout,
            "max_size": max_message_bytes,
            "ping_interval": ping_interval,
            "ping_timeout": ping_timeout,
        }
        self.on_connected = on_connected
        """Called on each connection with the seq it resumes after and the reconnects so far."""
        self.on_reconnecting = on_reconnecting
        """Called before each reconnect with the attempt, the wait in seconds and why the socket dropped."""
        self._iterator: AsyncIterator[SubscriptionEvent] | None = None

    # What the two protocols fill in.
    subprotocols: ClassVar[list[Subprotocol] | None] = None

    async def _open(self, socket: Any) -> None:
        raise NotImplementedError

    async def _handle(self, socket: Any, message: dict[str, Any]) -> SubscriptionEvent | None:
        raise NotImplementedError

    # The loop both share.

    def __aiter__(self) -> AsyncIterator[SubscriptionEvent]:
        if self._iterator is None:
            self._iterator = self._events()
        return self._iterator

    async def __anext__(self) -> SubscriptionEvent:
        return await self.__aiter__().__anext__()

    async def aclose(self) -> None:
        """Ends the subscription and closes the socket."""
        if self._iterator is not None:
            await self._iterator.aclose()  # type: ignore[attr-defined]

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _events(self) -> AsyncIterator[SubscriptionEvent]:
        failures = 0
        for reconnects in range(1_000_000_000):
            try:
                async with connect(
                    self.url,
                    subprotocols=self.subprotocols,
                    **self._connect_args,  # type: ignore[arg-type]
                ) as socket:
                    await self._open(socket)
                    failures = 0
                    if self.on_connected:
                        self.on_connected(self.last_seq, reconnects)
                    async for raw in socket:
                        message = _parse(raw)
                        event = await self._handle(socket, message)
                        if event is None or (self.last_seq is not None and event.seq <= self.last_seq):
                            continue
                        self.last_seq = event.seq
                        yield event
                    reason = _describe_close(socket.close_code, socket.close_reason)
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if code is not None and 4400 <= code < 4500 and code not in _PASSING_CLOSE_CODES:
                    reason_text = closed.rcvd.reason if closed.rcvd else ""
                    raise NapSubscriptionError(f"the server refused: {code} {reason_text}", close_code=code) from None
                reason = str(closed)
            except InvalidStatus as refused:
                status = refused.response.status_code
                if 400 <= status < 500 and status != 429:
                    raise NapSubscriptionError(f"the server refused the socket: HTTP {status}") from None
                reason = f"HTTP {status}"
            except (_Dropped, OSError, TimeoutError, InvalidHandshake) as dropped:
                reason = str(dropped) or type(dropped).__name__
            failures += 1
            limit = self.reconnect.max_attempts
            if limit is not None and failures > limit:
                raise NapSubscriptionError(f"gave up after {limit} reconnect attempts: {reason}")
            wait = min(self.reconnect.max_delay_seconds, self.reconnect.delay_seconds * 2 ** (failures - 1))
            if self.on_reconnecting:
                self.on_reconnecting(failures, wait, reason)
            await asyncio.sleep(wait)


def _parse(raw: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except ValueError:
        raise _Dropped("the server sent something other than JSON") from None
    if not isinstance(message, dict):
        raise _Dropped("the server sent a message that is not an object")
    return message


def _describe_close(code: int | None, reason: str | None) -> str:
    return f"socket closed ({code}{f': {reason}' if reason else ''})"


class GraphQLSubscription(Subscription):
    """One GraphQL subscription over graphql-transport-ws (the protocol of the graphql-ws library)."""

    subprotocols: ClassVar[list[Subprotocol] | None] = [Subprotocol("graphql-transport-ws")]

    def __init__(
        self, url: str, document: str, variables: dict[str, Any], *, min_block: int | None = None, **options: Any
    ) -> None:
        super().__init__(url, **options)
        self.document = document
        self.variables = variables
        self.min_block = min_block
        self.name = document.split("{", 1)[0].strip()

    async def _open(self, socket: Any) -> None:
        init: dict[str, Any] = {"type": "connection_init"}
        if self.token:
            init["payload"] = {"Authorization": f"Bearer {self.token}"}
        await socket.send(json.dumps(init))
        while True:
            message = _parse(await socket.recv())
            if message.get("type") == "connection_ack":
                break
            if message.get("type") == "ping":
                await socket.send(json.dumps({"type": "pong"}))
        payload: dict[str, Any] = {"query": self.document, "variables": {**self.variables, "afterSeq": self.last_seq}}
        if self.min_block is not None:
            payload["extensions"] = {"minBlock": self.min_block}
        await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))

    async def _handle(self, socket: Any, message: dict[str, Any]) -> SubscriptionEvent | None:
        kind = message.get("type")
        if kind == "ping":
            await socket.send(json.dumps({"type": "pong"}))
        elif kind == "next":
            payload = message.get("payload") or {}
            if payload.get("errors"):
                raise NapGraphQLError(payload["errors"], payload.get("data"), self.name)
            seq = (payload.get("extensions") or {}).get("seq")
            if isinstance(seq, int):
                return SubscriptionEvent(payload.get("data"), seq)
        elif kind == "error":
            errors = message.get("payload")
            raise NapGraphQLError(errors if isinstance(errors, list) else [{"message": str(errors)}], None, self.name)
        elif kind == "complete":
            raise _Dropped("the server ended the subscription")
        return None


class ChannelSubscription(Subscription):
    """One subscription of the /ws channel (docs/websocket.md): `vault` or `transactions`."""

    def __init__(
        self, url: str, channel: str, parameters: dict[str, Any], *, min_block: int | None = None, **options: Any
    ) -> None:
        super().__init__(url, **options)
        self.channel = channel
        self.parameters = {name: value for name, value in parameters.items() if value is not None}
        self.min_block = min_block
        self._pinger: asyncio.Task[None] | None = None

    async def _open(self, socket: Any) -> None:
        if self._pinger:
            self._pinger.cancel()
        # The server closes a socket from which no message came for its idle timeout (90 s): ping well within it.
        self._pinger = asyncio.ensure_future(_ping_every(socket, _WS_CLIENT_PING_SECONDS))
        if self.token:
            await socket.send(json.dumps({"type": "auth", "token": self.token}))
            while True:
                message = _parse(await socket.recv())
                if message.get("type") == "authenticated":
                    break
                if message.get("type") == "error":
                    raise _refusal(message)
        subscribe: dict[str, Any] = {"type": "subscribe", "id": "sub", "channel": self.channel, **self.parameters}
        if self.last_seq is not None:
            subscribe["afterSeq"] = self.last_seq
        if self.min_block is not None:
            subscribe["minBlock"] = self.min_block
        await socket.send(json.dumps(subscribe))

    async def _handle(self, socket: Any, message: dict[str, Any]) -> SubscriptionEvent | None:
        kind = message.get("type")
        if kind == "error":
            if message.get("code") in _PASSING_WS_ERRORS:
                raise _Dropped(f"{message.get('code')}: {message.get('message')}")
            raise _refusal(message)
        seq = message.get("seq")
        if kind in ("vault", "transaction") and isinstance(seq, int):
            return SubscriptionEvent(message, seq)
        return None

    async def _events(self) -> AsyncIterator[SubscriptionEvent]:
        try:
            async for event in super()._events():
                yield event
        finally:
            if self._pinger:
                self._pinger.cancel()


async def _ping_every(socket: Any, seconds: float) -> None:
    with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
        while True:
            await asyncio.sleep(seconds)
            await socket.send(json.dumps({"type": "ping"}))


async def _settle(tasks: list[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


def _refusal(message: dict[str, Any]) -> NapSubscriptionError:
    return NapSubscriptionError(
        f"{message.get('code')}: {message.get('message')}", code=message.get("code"), field=message.get("field")
    )


class SyncSubscription:
    """A Subscription as a plain iterator, for the synchronous clients: it runs the same code on an event loop of
    its own while `next()` waits. Between two `next()` calls nothing runs, so a consumer that keeps it waiting past
    the server's idle timeout gets a reconnect and resume (nothing is lost)."""

    def __init__(self, subscription: Subscription) -> None:
        self.subscription = subscription
        self._loop = asyncio.new_event_loop()
        self._events = subscription.__aiter__()

    @property
    def last_seq(self) -> int | None:
        return self.subscription.last_seq

    def __iter__(self) -> Iterator[SubscriptionEvent]:
        return self

    def __next__(self) -> SubscriptionEvent:
        return self.next()

    def next(self, timeout: float | None = None) -> SubscriptionEvent:
        """The next event; with `timeout` (seconds), TimeoutError when none came in time (the subscription ends)."""
        if self._loop.is_closed():
            raise StopIteration
        try:
            return self._loop.run_until_complete(asyncio.wait_for(self._events.__anext__(), timeout))
        except StopAsyncIteration:
            self.close()
            raise StopIteration from None
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Ends the subscription and closes the socket."""
        if self._loop.is_closed():
            return
        loop = self._loop
        with contextlib.suppress(Exception):
            loop.run_until_complete(self.subscription.aclose())
        # What the socket left running (its keepalive, its closing handshake) ends before the loop does, as in
        # asyncio.run.
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        loop.run_until_complete(_settle(pending))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
