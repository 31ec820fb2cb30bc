"""Property: whatever the server does between drops (how far each connection gets, how much of the log a replay
repeats), the events a subscription delivers are the log's, each once and in order."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.asyncio.server import serve

from nap import AsyncNapDataClient, ReconnectPolicy

LOG_SIZE = 12


class FlakyLog:
    """A log of LOG_SIZE entries; connection i replays `overlaps[i]` entries at or before the afterSeq it is given,
    sends `advances[i]` new ones, then drops the socket (the last connection stays open)."""

    def __init__(self, advances: list[int], overlaps: list[int]) -> None:
        self.advances = advances
        self.overlaps = overlaps
        self.connections = 0
        self.after_seqs: list[int | None] = []
        self.highest_sent: list[int | None] = [None]

    async def handler(self, socket: Any) -> None:
        index = self.connections
        self.connections += 1
        await socket.recv()
        await socket.send(json.dumps({"type": "connection_ack"}))
        subscribe = json.loads(await socket.recv())
        self.after_seqs.append(subscribe["payload"]["variables"]["afterSeq"])
        after = self.after_seqs[-1] or 0
        last = index == len(self.advances)
        first = max(1, after + 1 - (self.overlaps[index] if not last else 0))
        end = LOG_SIZE if last else min(LOG_SIZE, after + self.advances[index])
        self.highest_sent.append(max(end, self.highest_sent[-1] or 0) or None)
        for seq in range(first, end + 1):
            payload = {"data": {"transactionCreated": {"hash": hex(seq)}}, "extensions": {"seq": seq}}
            await socket.send(json.dumps({"id": subscribe["id"], "type": "next", "payload": payload}))
        if last:
            await socket.wait_closed()
        else:
            await socket.close(1011, "dropped")


async def deliver(log: FlakyLog) -> list[int]:
    """The seqs a subscription delivers until the log's last entry."""
    async with serve(log.handler, "127.0.0.1", 0, subprotocols=["graphql-transport-ws"]) as server:
        port = server.sockets[0].getsockname()[1]
        data = AsyncNapDataClient(f"http://127.0.0.1:{port}")
        seen: list[int] = []
        policy = ReconnectPolicy(delay_seconds=0.001, max_delay_seconds=0.001)
        async with data.subscribe("transactionCreated", reconnect=policy) as events:
            async for event in events:
                seen.append(event.seq)
                if event.seq == LOG_SIZE:
                    break
        await data.aclose()
        return seen


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6)), min_size=0, max_size=5),
)
def test_drops_and_overlapping_replays_deliver_every_entry_once_in_order(connections):
    advances = [advance for advance, _ in connections]
    overlaps = [overlap for _, overlap in connections] + [0]
    log = FlakyLog(advances, overlaps)
    seen = asyncio.run(deliver(log))
    assert seen == list(range(1, LOG_SIZE + 1))
    # Each reconnect resumed right after the last seq delivered before it, not from the start.
    assert log.after_seqs == log.highest_sent[: len(log.after_seqs)]
