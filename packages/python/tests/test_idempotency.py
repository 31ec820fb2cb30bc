"""Every call that moves value carries an Idempotency-Key (a new uuid4 per call unless given); reads carry none."""

from __future__ import annotations

import uuid

import pytest
from helpers import ScriptedApi, ok
from pydantic import ValidationError

from nap import NapClient

ANY = ok({})  # the answer's shape is not what these tests look at: they read the requests


def calls_that_move_value():
    return {
        "faucet": lambda nap, **k: nap.faucet(**k),
        "deposit": lambda nap, **k: nap.deposit("moderate", 1, **k),
        "withdraw": lambda nap, **k: nap.withdraw("moderate", shares="all", **k),
        "request_redeem": lambda nap, **k: nap.request_redeem("moderate", "1000", **k),
        "claim": lambda nap, **k: nap.claim("moderate", **k),
        "cancel_redeem": lambda nap, **k: nap.cancel_redeem("moderate", **k),
        "submit_strategy": lambda nap, **k: nap.submit_strategy("Momentum", "Follows the daily trend", **k),
        "vote": lambda nap, **k: nap.vote(1, 1, **k),
        "exit_to_operator": lambda nap, **k: nap.exit_to_operator("usdc", "all", **k),
    }


def send(operation, **options):
    api = ScriptedApi(ANY)
    nap = NapClient("http://api.test", api_key="nap-test", http=api.sync_http())
    with pytest.raises(ValidationError):  # the empty answer does not fit the model: only the request matters here
        operation(nap, **options)
    return api


@pytest.mark.parametrize("name", list(calls_that_move_value()))
def test_each_value_moving_call_sends_a_fresh_uuid4_idempotency_key(name):
    operation = calls_that_move_value()[name]
    first, second = send(operation).keys()[0], send(operation).keys()[0]
    assert uuid.UUID(first).version == 4
    assert first != second


@pytest.mark.parametrize("name", list(calls_that_move_value()))
def test_each_value_moving_call_sends_the_key_it_is_given(name):
    assert send(calls_that_move_value()[name], idempotency_key="agent-run-7").keys() == ["agent-run-7"]


@pytest.mark.parametrize("read", ["wallet", "positions", "transactions", "strategies", "keys"])
def test_reads_send_no_idempotency_key(read):
    api = send(lambda nap: getattr(nap, read)())
    assert api.keys() == [None]
    assert api.requests[0].headers["x-api-key"] == "nap-test"


def test_an_exit_names_no_recipient_and_carries_the_vault_only_for_shares():
    assert send(lambda nap: nap.exit_to_operator("eth", "all")).bodies() == [{"asset": "eth", "amount": "all"}]
    shares = send(lambda nap: nap.exit_to_operator("shares", "1000", vault_id="moderate")).bodies()
    assert shares == [{"asset": "shares", "vault_id": "moderate", "amount": "1000"}]


def test_bodies_are_the_request_models_with_only_the_fields_given():
    api = send(lambda nap: nap.withdraw("moderate", shares="all"))
    assert api.bodies() == [{"vault_id": "moderate", "shares": "all"}]
    api = send(lambda nap: nap.submit_strategy("Momentum", "Follows the daily trend", max_leverage=300))
    assert api.bodies() == [{"name": "Momentum", "description": "Follows the daily trend", "max_leverage": 300}]
