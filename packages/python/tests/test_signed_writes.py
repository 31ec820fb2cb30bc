"""Signed writes of the data clients against a scripted stand-in of the service's routes: what they ask, what they
sign (each signature recovers to the owner over the router's, the token's or the vault's types), what they submit,
how they follow a relay, and a hostile service whose altered typed data gets nothing signed."""

from __future__ import annotations

import asyncio
import copy
import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import to_checksum_address
from helpers import ScriptedApi, ok
from hypothesis import given, settings
from hypothesis import strategies as st

from nap import AsyncNapDataClient, NapDataClient, NapRelayError, NapTypedDataMismatchError, SignedWriteOptions
from nap.signed_writes import ACTIONS, Expectations, TypedData, check_prepared

KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
OWNER = Account.from_key(KEY)
CHAIN_ID = 31337
ROUTER = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
VAULT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
ASSET = "0x9fe46736679d2D9a65F0992f3F2a3b7C27c8c8e6"
ATTACKER = "0x000000000000000000000000000000000000dEaD"
NONCE = "81985529216486895"
RELAY_ID = "0x" + "ab" * 32
TX = "0x" + "ef" * 32

INTENT_FIELDS = {
    "Deposit": ["owner", "vault", "assets", "receiver", "minShares", "nonce", "deadline"],
    "Redeem": ["owner", "vault", "shares", "receiver", "minAssets", "nonce", "deadline"],
    "RequestRedeem": ["owner", "vault", "shares", "nonce", "deadline"],
    "Claim": ["owner", "vault", "shares", "receiver", "minAssets", "nonce", "deadline"],
    "CancelRedeem": ["owner", "vault", "receiver", "nonce", "deadline"],
}
PRIMARY = {
    "deposit": "Deposit",
    "redeem": "Redeem",
    "request-redeem": "RequestRedeem",
    "claim": "Claim",
    "cancel-redeem": "CancelRedeem",
}
WIRE = {
    "amount": "assets",
    "shares": "shares",
    "receiver": "receiver",
    "min_shares": "minShares",
    "min_assets": "minAssets",
}


def _kind(name: str) -> str:
    return "address" if name in ("owner", "vault", "receiver", "spender", "controller", "operator") else "uint256"


def prepared(segment: str, query: dict[str, str], extras: bool = True) -> dict[str, Any]:
    """The service's prepare answer, as the design gives it."""
    primary = PRIMARY[segment]
    deadline = str(int(time.time()) + 1800)
    given = {"receiver": query["owner"], "min_shares": "0", "min_assets": "0", **query}
    values: dict[str, Any] = {"owner": query["owner"], "vault": VAULT, "nonce": NONCE, "deadline": deadline}
    values.update({field: given[wire] for wire, field in WIRE.items() if field in INTENT_FIELDS[primary]})
    answer: dict[str, Any] = {
        "action": segment,
        "vault": VAULT,
        "chain_id": CHAIN_ID,
        "router": ROUTER,
        "nonce": NONCE,
        "deadline": deadline,
        "intent": {
            "domain": {"name": "NAP Router", "version": "1", "chainId": CHAIN_ID, "verifyingContract": ROUTER},
            "types": {primary: [{"name": n, "type": _kind(n)} for n in INTENT_FIELDS[primary]]},
            "primaryType": primary,
            "message": {n: values[n] for n in INTENT_FIELDS[primary]},
        },
        "permit": None,
        "operator_authorization": None,
    }
    if extras and segment == "deposit":
        answer["permit"] = {
            "domain": {"name": "Test USDC", "version": "1", "chainId": CHAIN_ID, "verifyingContract": ASSET},
            "types": {
                "Permit": [{"name": n, "type": _kind(n)} for n in ("owner", "spender", "value", "nonce", "deadline")]
            },
            "primaryType": "Permit",
            "message": {
                "owner": query["owner"],
                "spender": ROUTER,
                "value": query["amount"],
                "nonce": "0",
                "deadline": deadline,
            },
        }
    elif extras:
        answer["operator_authorization"] = {
            "domain": {"name": "NAP Moderate USDC", "version": "1", "chainId": CHAIN_ID, "verifyingContract": VAULT},
            "types": {
                "AuthorizeOperator": [
                    {"name": "controller", "type": "address"},
                    {"name": "operator", "type": "address"},
                    {"name": "approved", "type": "bool"},
                    {"name": "nonce", "type": "bytes32"},
                    {"name": "deadline", "type": "uint256"},
                ]
            },
            "primaryType": "AuthorizeOperator",
            "message": {
                "controller": query["owner"],
                "operator": ROUTER,
                "approved": True,
                "nonce": "0x" + "cd" * 32,
                "deadline": deadline,
            },
        }
    return answer


def service(
    alter: Callable[[dict[str, Any]], None] | None = None, extras: bool = True, relays: list[Any] | None = None
):
    """A scripted API answering the signed-write routes; `alter` plays a hostile service."""
    queue = list(relays or [])

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        parts = path.split("/")
        if path.endswith("/typed-data"):
            body = prepared(parts[4], dict(request.url.params), extras)
            if alter:
                alter(body)
            return ok(body)
        if request.method == "POST":
            return httpx.Response(
                202,
                json={
                    "relay_id": RELAY_ID,
                    "status": "submitted",
                    "tx_hash": TX,
                    "status_url": f"/v1/relays/{RELAY_ID}",
                },
            )
        if path.startswith("/v1/relays/"):
            return ok(queue.pop(0) if len(queue) > 1 else queue[0])
        return ok({"address": VAULT, "asset": ASSET})

    return ScriptedApi(answer)


def recover(
    domain: dict[str, Any], primary: str, fields: list[tuple[str, str]], message: dict[str, Any], signature: str
) -> str:
    types = {primary: [{"name": n, "type": t} for t, n in fields]}
    values = {n: (int(message[n]) if t.startswith("uint") else message[n]) for t, n in fields}
    return Account.recover_message(encode_typed_data(domain, types, values), signature=signature)


def test_deposit_prepares_what_was_asked_signs_the_intent_and_the_permit_and_submits_once_with_a_key():
    api = service()
    data = NapDataClient("http://api.test", api_key="napd-key", http=api.sync_http())
    receiver = Account.create().address
    accepted = data.deposit(VAULT, 25_000_000, OWNER, receiver=receiver, min_shares="24000000")
    assert accepted.model_dump(mode="json") == {
        "relay_id": RELAY_ID,
        "status": "submitted",
        "tx_hash": TX,
        "status_url": f"/v1/relays/{RELAY_ID}",
    }

    detail, prepare, submit = api.requests
    assert (detail.method, detail.url.path) == ("GET", f"/v1/vaults/{VAULT}")
    assert prepare.url.path == f"/v1/vaults/{VAULT}/deposit/typed-data"
    assert dict(prepare.url.params) == {
        "owner": OWNER.address,
        "amount": "25000000",
        "receiver": receiver,
        "min_shares": "24000000",
    }
    assert (submit.method, submit.url.path) == ("POST", f"/v1/vaults/{VAULT}/deposit")
    assert len(submit.headers["idempotency-key"]) == 36
    assert submit.headers["authorization"] == "Bearer napd-key"
    body = json.loads(submit.content)
    assert list(body) == ["owner", "amount", "receiver", "min_shares", "nonce", "deadline", "signature", "permit"]
    assert (body["owner"], body["amount"], body["receiver"], body["min_shares"], body["nonce"]) == (
        OWNER.address,
        "25000000",
        receiver,
        "24000000",
        NONCE,
    )
    intent_domain = {"name": "NAP Router", "version": "1", "chainId": CHAIN_ID, "verifyingContract": ROUTER}
    fields = [(_kind(n), n) for n in INTENT_FIELDS["Deposit"]]
    message = {
        "owner": OWNER.address,
        "vault": VAULT,
        "assets": "25000000",
        "receiver": receiver,
        "minShares": "24000000",
        "nonce": NONCE,
        "deadline": body["deadline"],
    }
    assert recover(intent_domain, "Deposit", fields, message, body["signature"]) == OWNER.address
    permit = body["permit"]
    assert permit["value"] == "25000000"
    permit_domain = {"name": "Test USDC", "version": "1", "chainId": CHAIN_ID, "verifyingContract": ASSET}
    permit_fields = [(_kind(n), n) for n in ("owner", "spender", "value", "nonce", "deadline")]
    permit_message = {
        "owner": OWNER.address,
        "spender": ROUTER,
        "value": "25000000",
        "nonce": "0",
        "deadline": permit["deadline"],
    }
    assert recover(permit_domain, "Permit", permit_fields, permit_message, permit["signature"]) == OWNER.address


def test_the_typescript_sdk_and_this_one_sign_the_same_bytes():
    """The same key and typed data give the same deterministic (RFC 6979) signature in eth-account as in ethers."""
    api = service()
    NapDataClient("http://api.test", http=api.sync_http()).redeem(VAULT, 7, KEY)
    body = api.bodies()[-1]
    fields = [(_kind(n), n) for n in INTENT_FIELDS["Redeem"]]
    domain = {"name": "NAP Router", "version": "1", "chainId": CHAIN_ID, "verifyingContract": ROUTER}
    message = {
        "owner": OWNER.address,
        "vault": VAULT,
        "shares": "7",
        "receiver": OWNER.address,
        "minAssets": "0",
        "nonce": NONCE,
        "deadline": body["deadline"],
    }
    types = {"Redeem": [{"name": n, "type": t} for t, n in fields]}
    values = {n: (int(message[n]) if t.startswith("uint") else message[n]) for t, n in fields}
    expected = Account.sign_message(encode_typed_data(domain, types, values), KEY).signature.hex()
    assert body["signature"] == "0x" + expected.removeprefix("0x")


def test_redemptions_each_ask_their_route_and_sign_the_operator_authorisation_for_the_vault():
    api = service()
    data = NapDataClient("http://api.test", http=api.sync_http())
    data.redeem(VAULT, "100", OWNER, min_assets=99)
    data.request_redeem(VAULT, 50, OWNER)
    data.claim(VAULT, "50", OWNER)
    data.cancel_redeem(VAULT, OWNER)
    gets = [(r.url.path, dict(r.url.params)) for r in api.requests if r.method == "GET"]
    assert gets == [
        (
            f"/v1/vaults/{VAULT}/redeem/typed-data",
            {"owner": OWNER.address, "shares": "100", "receiver": OWNER.address, "min_assets": "99"},
        ),
        (f"/v1/vaults/{VAULT}/request-redeem/typed-data", {"owner": OWNER.address, "shares": "50"}),
        (
            f"/v1/vaults/{VAULT}/claim/typed-data",
            {"owner": OWNER.address, "shares": "50", "receiver": OWNER.address, "min_assets": "0"},
        ),
        (f"/v1/vaults/{VAULT}/cancel-redeem/typed-data", {"owner": OWNER.address, "receiver": OWNER.address}),
    ]
    posts = [(r.url.path, list(json.loads(r.content))) for r in api.requests if r.method == "POST"]
    tail = ["nonce", "deadline", "signature", "operator_authorization"]
    assert posts == [
        (f"/v1/vaults/{VAULT}/redeem", ["owner", "shares", "receiver", "min_assets", *tail]),
        (f"/v1/vaults/{VAULT}/request-redeem", ["owner", "shares", *tail]),
        (f"/v1/vaults/{VAULT}/claim", ["owner", "shares", "receiver", "min_assets", *tail]),
        (f"/v1/vaults/{VAULT}/cancel-redeem", ["owner", "receiver", *tail]),
    ]
    authorization = api.bodies()[1]["operator_authorization"]
    domain = {"name": "NAP Moderate USDC", "version": "1", "chainId": CHAIN_ID, "verifyingContract": VAULT}
    fields = [
        ("address", "controller"),
        ("address", "operator"),
        ("bool", "approved"),
        ("bytes32", "nonce"),
        ("uint256", "deadline"),
    ]
    message = {
        "controller": OWNER.address,
        "operator": ROUTER,
        "approved": True,
        "nonce": "0x" + "cd" * 32,
        "deadline": authorization["deadline"],
    }
    assert recover(domain, "AuthorizeOperator", fields, message, authorization["signature"]) == OWNER.address


def test_the_async_client_deposits_the_same_way_and_a_vault_id_is_resolved_first():
    api = service(extras=False)

    async def run() -> None:
        async with AsyncNapDataClient("http://api.test", http=api.async_http()) as data:
            accepted = await data.deposit("moderate", "5", OWNER)
            assert accepted.relay_id == RELAY_ID

    asyncio.run(run())
    assert [f"{r.method} {r.url.path}" for r in api.requests] == [
        "GET /v1/vaults/moderate",
        f"GET /v1/vaults/{VAULT}/deposit/typed-data",
        f"POST /v1/vaults/{VAULT}/deposit",
    ]
    assert "permit" not in api.bodies()[-1]


def test_an_amount_that_is_not_whole_base_units_or_an_address_that_is_not_one_is_refused_before_any_request():
    api = service()
    data = NapDataClient("http://api.test", http=api.sync_http())
    for call, message in [
        (
            lambda: data.deposit(VAULT, "1.5", OWNER),
            "amount must be a whole number of base units (an int or decimal string), got '1.5'",
        ),
        (
            lambda: data.deposit(VAULT, -1, OWNER),
            "amount must be a whole number of base units (an int or decimal string), got -1",
        ),
        (lambda: data.redeem(VAULT, 1, OWNER, receiver="0x1234"), "receiver must be a 0x address, got '0x1234'"),
        (lambda: data.relay("0x12"), "relay_id must be a 0x-prefixed 32-byte hex digest, got '0x12'"),
    ]:
        with pytest.raises(ValueError) as refused:
            call()
        assert str(refused.value) == message
    assert api.requests == []


def _relay(status: str, **fields: Any) -> dict[str, Any]:
    base = {"relay_id": RELAY_ID, "action": "deposit", "vault": VAULT, "owner": OWNER.address, "status": status}
    return {**base, "tx_hash": TX, "block_number": None, "result": None, "error": None, **fields}


def test_wait_for_relay_reads_until_confirmed_and_a_failed_relay_raises_with_its_code():
    confirmed = _relay("confirmed", block_number=12, result={"shares": "25000000"})
    api = service(relays=[_relay("submitted", tx_hash=None), confirmed])
    relay = NapDataClient("http://api.test", http=api.sync_http()).wait_for_relay(RELAY_ID, interval=0.01)
    assert relay.model_dump(mode="json") == {**confirmed, "result": {"shares": "25000000", "assets": None}}
    assert [r.url.path for r in api.requests] == [f"/v1/relays/{RELAY_ID}"] * 2

    failed = _relay("failed", error={"code": "NONCE_USED", "message": "the nonce was used"})
    api = service(relays=[failed])
    with pytest.raises(NapRelayError) as raised:
        NapDataClient("http://api.test", http=api.sync_http()).wait_for_relay(RELAY_ID, interval=0.01)
    assert str(raised.value) == f"relay {RELAY_ID} failed (NONCE_USED: the nonce was used)"
    assert (raised.value.reason, raised.value.relay) == ("failed", failed)

    api = service(relays=[_relay("submitted", tx_hash=None)])
    with pytest.raises(NapRelayError) as timed_out:
        NapDataClient("http://api.test", http=api.sync_http()).wait_for_relay(RELAY_ID, timeout=0.05, interval=0.02)
    assert str(timed_out.value) == f"relay {RELAY_ID} still submitted after 0.05 s"
    assert timed_out.value.reason == "timeout"


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def alter(answer: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = answer
        for key in parents:
            target = target[key]
        target[last] = value

    return alter


UNLIMITED = str((1 << 256) - 1)

ATTACKS = [
    (
        "changed_receiver",
        "deposit",
        _set("intent.message.receiver", ATTACKER),
        [f"intent.message.receiver is {ATTACKER}, asked {OWNER.address}"],
    ),
    (
        "changed_amount",
        "deposit",
        _set("intent.message.assets", "26000000"),
        ["intent.message.assets is 26000000, asked 25000000"],
    ),
    (
        "changed_owner",
        "deposit",
        _set("intent.message.owner", ATTACKER),
        [f"intent.message.owner is {ATTACKER}, asked {OWNER.address}"],
    ),
    (
        "another_chain_in_the_domain",
        "redeem",
        _set("intent.domain.chainId", 10),
        [f"intent.domain.chainId is 10, asked {CHAIN_ID}"],
    ),
    (
        "permit_to_a_stranger",
        "deposit",
        _set("permit.message.spender", ATTACKER),
        [f"permit.message.spender is {ATTACKER}, asked {ROUTER}"],
    ),
    (
        "unlimited_permit",
        "deposit",
        _set("permit.message.value", UNLIMITED),
        [f"permit.message.value is {UNLIMITED}, asked 25000000"],
    ),
    (
        "permit_on_another_token",
        "deposit",
        _set("permit.domain.verifyingContract", ATTACKER),
        [f"permit.domain.verifyingContract is {ATTACKER}, asked {ASSET}"],
    ),
    (
        "operator_to_a_stranger",
        "redeem",
        _set("operator_authorization.message.operator", ATTACKER),
        [f"operator_authorization.message.operator is {ATTACKER}, asked {ROUTER}"],
    ),
    (
        "revoking_authorisation",
        "claim",
        _set("operator_authorization.message.approved", False),
        ["operator_authorization.message.approved is false, asked true"],
    ),
    (
        "another_primary_type",
        "deposit",
        _set("intent.primaryType", "Redeem"),
        ["intent.primaryType is Redeem, asked Deposit"],
    ),
    (
        "extra_message_field",
        "redeem",
        _set("intent.message.operator", ATTACKER),
        ["intent.message has fields the type does not: operator"],
    ),
]


@pytest.mark.parametrize("attack,action,alter,problems", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_altered_typed_data_from_a_hostile_service_gets_nothing_signed_or_submitted(attack, action, alter, problems):
    api = service(alter=alter)
    data = NapDataClient("http://api.test", http=api.sync_http())
    with pytest.raises(NapTypedDataMismatchError) as refused:
        if action == "deposit":
            data.deposit(VAULT, 25_000_000, OWNER)
        else:
            getattr(data, action)(VAULT, 10, OWNER)
    assert refused.value.problems == problems
    assert str(refused.value) == (
        f"GET /v1/vaults/{VAULT}/{action}/typed-data: the service's typed data does not match the request; "
        "nothing was signed: " + "; ".join(problems)
    )
    assert [r for r in api.requests if r.method == "POST"] == []


def test_another_router_or_chain_than_the_wallet_expects_is_refused():
    def elsewhere(answer: dict[str, Any]) -> None:
        answer["chain_id"] = 1
        answer["router"] = ATTACKER
        answer["intent"]["domain"].update(chainId=1, verifyingContract=ATTACKER)

    api = service(alter=elsewhere)
    options = SignedWriteOptions(chain_id=CHAIN_ID, router=ROUTER)
    data = NapDataClient("http://api.test", http=api.sync_http(), signed_writes=options)
    with pytest.raises(NapTypedDataMismatchError) as refused:
        data.request_redeem(VAULT, 10, OWNER)
    assert refused.value.problems == [
        f"chain_id is 1, asked {CHAIN_ID}",
        f"router is {ATTACKER}, asked {ROUTER}",
        f"intent.domain.chainId is 1, asked {CHAIN_ID}",
        f"intent.domain.verifyingContract is {ATTACKER}, asked {ROUTER}",
    ]


def test_a_deadline_far_from_the_wall_clock_is_refused_when_a_bound_is_set():
    far = str(int(time.time()) + 365 * 86400)

    def later(answer: dict[str, Any]) -> None:
        answer["deadline"] = far
        answer["intent"]["message"]["deadline"] = far

    api = service(alter=later)
    data = NapDataClient(
        "http://api.test", http=api.sync_http(), signed_writes=SignedWriteOptions(max_validity_seconds=3600)
    )
    with pytest.raises(NapTypedDataMismatchError) as refused:
        data.cancel_redeem(VAULT, OWNER)
    assert refused.value.problems[0] == f"intent.message.deadline is {far}, more than 3600 s from now"
    unbounded = service(alter=later)
    NapDataClient("http://api.test", http=unbounded.sync_http()).cancel_redeem(VAULT, OWNER)
    assert copy.deepcopy(unbounded.bodies()[-1]["deadline"]) == far


# ---------------------------------------------------------------------------------------------------- properties

SERVICE_CHOSEN = {
    "permit.message.nonce",
    "permit.message.deadline",
    "permit.domain.name",
    "permit.domain.version",
    "permit.domain.verifyingContract",
    "operator_authorization.message.nonce",
    "operator_authorization.message.deadline",
    "operator_authorization.domain.name",
}
SDK_ACTIONS = {
    "deposit": "deposit",
    "redeem": "redeem",
    "request_redeem": "request-redeem",
    "claim": "claim",
    "cancel_redeem": "cancel-redeem",
}


def _scenario(action: str, amount: int, receiver: str | None, minimum: int | None):
    spec = ACTIONS[action]
    values = {"amount": amount, "shares": amount, "receiver": receiver, "min_shares": minimum, "min_assets": minimum}
    asked = {}
    query = {"owner": OWNER.address}
    for param in spec.params:
        value = values[param.sdk]
        text = (OWNER.address if param.absent == "owner" else "0") if value is None else str(value)
        asked[param.message] = text
        query[param.wire] = text
    answer = prepared(SDK_ACTIONS[action], query)
    expected = Expectations(spec, OWNER.address, VAULT, asked, None, None, None, int(time.time()), None)
    return answer, expected


def _leaves(answer: dict[str, Any]) -> list[str]:
    paths = ["vault", "chain_id", "router", "nonce", "deadline"]
    for part in ("intent", "permit", "operator_authorization"):
        data = answer[part]
        if not data:
            continue
        paths.append(f"{part}.primaryType")
        paths += [f"{part}.domain.{key}" for key in data["domain"]]
        paths += [f"{part}.message.{key}" for key in data["message"]]
        (name,) = [n for n in data["types"] if n != "EIP712Domain"]
        for i in range(len(data["types"][name])):
            paths += [f"{part}.types.{name}.{i}.name", f"{part}.types.{name}.{i}.type"]
    return paths


def _changed(value: Any, salt: int) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 + salt
    text = str(value)
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return text[:-1] + format((int(text[-1], 16) + 1 + salt % 15) % 16, "x")
    if text.isdigit():
        return str(int(text) + 1 + salt)
    return text + "x"


def _node(target: Any, key: str) -> Any:
    return target[int(key)] if isinstance(target, list) else target[key]


amounts = st.integers(min_value=0, max_value=(1 << 256) - 1)
addresses = st.binary(min_size=20, max_size=20).map(lambda b: to_checksum_address(b))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(ACTIONS)), amounts, st.none() | addresses, st.none() | amounts)
def test_property_an_honest_answer_is_accepted_and_signed_field_for_field(action, amount, receiver, minimum):
    answer, expected = _scenario(action, amount, receiver, minimum)
    intent, permit, operator = check_prepared(answer, expected)
    assert isinstance(intent, TypedData)
    assert {k: str(v) for k, v in intent.message.items()} == {k: str(v) for k, v in answer["intent"]["message"].items()}
    if answer["permit"]:
        assert isinstance(permit, TypedData) and permit.message == answer["permit"]["message"]
    if answer["operator_authorization"]:
        assert isinstance(operator, TypedData) and operator.message == answer["operator_authorization"]["message"]


@settings(max_examples=1000, deadline=None)
@given(
    st.sampled_from(list(ACTIONS)),
    amounts,
    st.none() | addresses,
    st.none() | amounts,
    st.integers(0, 10_000),
    st.integers(0, 14),
)
def test_property_one_field_changed_is_refused_unless_the_service_chooses_it(
    action, amount, receiver, minimum, pick, salt
):
    answer, expected = _scenario(action, amount, receiver, minimum)
    paths = _leaves(answer)
    path = paths[pick % len(paths)]
    altered = copy.deepcopy(answer)
    *parents, last = path.split(".")
    target = altered
    for key in parents:
        target = _node(target, key)
    original = _node(target, last)
    if isinstance(target, list):
        target[int(last)] = _changed(original, salt)
    else:
        target[last] = _changed(original, salt)
    checked = check_prepared(altered, expected)
    if path in SERVICE_CHOSEN:
        assert isinstance(checked[0], TypedData), path
    else:
        assert checked and isinstance(checked[0], str), (path, checked)
