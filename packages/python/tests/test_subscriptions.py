"""Subscriptions resume after the last seq: against scripted servers (websockets.serve) that drop the socket, replay
an overlap or refuse, for GraphQL (graphql-transport-ws) and the /ws channel."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from websockets.asyncio.server import serve

from nap import AsyncNapDataClient, NapDataClient, NapGraphQLError, NapSubscriptionError, ReconnectPolicy
from nap.subscriptions import SyncSubscription

FAST = {"reconnect": ReconnectPolicy(delay_seconds=0.01, max_attempts=3)}


def tx(seq: int) -> dict[str, Any]:
    return {"transactionCreated": {"hash": f"0x{seq:064x}", "type": "DEPOSIT"}}


class GraphQLServer:
    """Each connection plays the next script: a list of seqs to send, then how it ends."""

    def __init__(self, *scripts: tuple[list[int], str]) -> None:
        self.scripts = list(scripts)
        self.subscribes: list[dict[str, Any]] = []
        self.inits: list[dict[str, Any]] = []

    async def handler(self, socket) -> None:
        seqs, ending = self.scripts.pop(0)
        self.inits.append(json.loads(await socket.recv()))
        await socket.send(json.dumps({"type": "connection_ack"}))
        subscribe = json.loads(await socket.recv())
        self.subscribes.append(subscribe)
        for seq in seqs:
            payload = {"data": tx(seq), "extensions": {"seq": seq}}
            await socket.send(json.dumps({"id": subscribe["id"], "type": "next", "payload": payload}))
        if ending == "drop":
            await socket.close(1011, "going away")
        elif ending == "refuse":
            await socket.close(4403, "Forbidden")
        elif ending == "graphql-error":
            errors = [{"message": "no vault at 0x01", "extensions": {"code": "NOT_FOUND"}}]
            await socket.send(json.dumps({"id": subscribe["id"], "type": "error", "payload": errors}))
            await socket.wait_closed()
        else:
            await socket.wait_closed()


async def collect(server, count: int, **options) -> tuple[list[int], list[Any]]:
    async with serve(server.handler, "127.0.0.1", 0, subprotocols=["graphql-transport-ws"]) as ws_server:
        port = ws_server.sockets[0].getsockname()[1]
        data = AsyncNapDataClient(f"http://127.0.0.1:{port}", api_key=options.pop("api_key", None))
        seen: list[int] = []
        async with data.subscribe("transactionCreated", {"vaultAddress": "0x01"}, **FAST, **options) as events:
            async for event in events:
                seen.append(event.seq)
                if len(seen) == count:
                    break
        await data.aclose()
        return seen, server.subscribes


def test_a_dropped_graphql_subscription_resumes_after_the_last_seq_without_repeats():
    server = GraphQLServer(([1, 2], "drop"), ([2, 3], "stay"))  # the replay overlaps at 2
    seen, subscribes = asyncio.run(collect(server, 3, api_key="napd-key"))
    assert seen == [1, 2, 3]
    assert [s["payload"]["variables"]["afterSeq"] for s in subscribes] == [None, 2]
    assert subscribes[0]["payload"]["variables"]["vaultAddress"] == "0x01"
    assert server.inits == [{"type": "connection_init", "payload": {"Authorization": "Bearer napd-key"}}] * 2


def test_a_graphql_subscription_starts_after_the_seq_it_is_given_and_carries_min_block():
    server = GraphQLServer(([5, 6], "stay"))
    seen, subscribes = asyncio.run(collect(server, 2, after_seq=4, min_block=96))
    assert seen == [5, 6]
    assert subscribes[0]["payload"]["variables"]["afterSeq"] == 4
    assert subscribes[0]["payload"]["extensions"] == {"minBlock": 96}


def test_a_graphql_error_ends_the_subscription_with_its_code():
    with pytest.raises(NapGraphQLError) as raised:
        asyncio.run(collect(GraphQLServer(([1], "graphql-error")), 5))
    assert raised.value.code == "NOT_FOUND"
    assert raised.value.message == "no vault at 0x01"


def test_a_refusing_close_code_is_final_and_not_retried():
    server = GraphQLServer(([], "refuse"), ([1], "stay"))
    with pytest.raises(NapSubscriptionError) as raised:
        asyncio.run(collect(server, 1))
    assert raised.value.close_code == 4403
    assert len(server.subscribes) == 1


def test_reconnects_that_never_get_through_are_bounded():
    # Two connections that subscribe and drop (each one that got through starts the count again), then a server
    # that fails every connection before its ack: 3 reconnects, then the subscription gives up.
    server = GraphQLServer(([], "drop"), ([], "drop"))
    with pytest.raises(NapSubscriptionError) as raised:
        asyncio.run(collect(server, 1))
    assert str(raised.value).startswith("gave up after 3 reconnect attempts")
    assert len(server.subscribes) == 2


class ChannelServer:
    """The /ws channel: the first connection sends seqs 10, 11 then ends the subscription with UNAVAILABLE (which
    says: subscribe again after the last seq); the second replays from the afterSeq it was given."""

    def __init__(self) -> None:
        self.subscribes: list[dict[str, Any]] = []
        self.auths: list[dict[str, Any]] = []

    async def handler(self, socket) -> None:
        await socket.send(json.dumps({"type": "welcome", "tier": "public"}))
        first = json.loads(await socket.recv())
        if first["type"] == "auth":
            self.auths.append(first)
            await socket.send(json.dumps({"type": "authenticated", "tier": "authenticated"}))
            first = json.loads(await socket.recv())
        self.subscribes.append(first)
        await socket.send(json.dumps({"type": "subscribed", "id": first["id"], "channel": first["channel"]}))
        after = first.get("afterSeq", 9)
        for seq in range(after + 1, after + 3):
            message = {"type": "transaction", "id": first["id"], "seq": seq, "transaction": {"hash": f"0x{seq}"}}
            await socket.send(json.dumps(message))
        if len(self.subscribes) == 1:
            error = {"type": "error", "code": "UNAVAILABLE", "id": first["id"], "seq": after + 2, "message": "away"}
            await socket.send(json.dumps(error))
        await socket.wait_closed()


def test_the_ws_channel_resubscribes_after_the_last_seq_when_the_server_ends_it_with_unavailable():
    server = ChannelServer()

    async def run():
        async with serve(server.handler, "127.0.0.1", 0) as ws_server:
            port = ws_server.sockets[0].getsockname()[1]
            data = AsyncNapDataClient(f"http://127.0.0.1:{port}", api_key="napd-key")
            seen = []
            async with data.channel("transactions", vault="0x01", min_block=7, **FAST) as events:
                async for event in events:
                    seen.append((event.seq, event.data["transaction"]["hash"]))
                    if len(seen) == 4:
                        break
            return seen

    assert asyncio.run(run()) == [(10, "0x10"), (11, "0x11"), (12, "0x12"), (13, "0x13")]
    assert server.auths == [{"type": "auth", "token": "napd-key"}] * 2
    assert server.subscribes == [
        {"type": "subscribe", "id": "sub", "channel": "transactions", "vault": "0x01", "minBlock": 7},
        {"type": "subscribe", "id": "sub", "channel": "transactions", "vault": "0x01", "afterSeq": 11, "minBlock": 7},
    ]


def test_the_synchronous_iterator_delivers_the_same_events_and_closes_cleanly():
    server = GraphQLServer(([1, 2], "drop"), ([3], "stay"))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start():
        return await serve(server.handler, "127.0.0.1", 0, subprotocols=["graphql-transport-ws"])

    ws_server = asyncio.run_coroutine_threadsafe(start(), loop).result(5)
    port = ws_server.sockets[0].getsockname()[1]
    try:
        with NapDataClient(f"http://127.0.0.1:{port}") as data, data.subscribe("transactionCreated", **FAST) as events:
            assert isinstance(events, SyncSubscription)
            seen = [events.next(timeout=5).seq for _ in range(3)]
            assert events.last_seq == 3
        assert seen == [1, 2, 3]
        assert [s["payload"]["variables"]["afterSeq"] for s in server.subscribes] == [None, 2]
    finally:
        ws_server.close()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
