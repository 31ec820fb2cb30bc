"""Writes by a wallet that keeps its own key (issue 30), for both data clients: prepare the EIP-712 typed data, check
that it says what was asked, sign it with eth-account, submit it, and follow the relay. The service's relayer pays
the gas: the wallet needs no ETH and no registration.

Before anything is signed, each message is rebuilt here from the request (owner = the signer, vault, amounts,
receiver) and the service's nonce and deadline, and compared field by field with the service's; the domains must name
the chain and contracts expected and the types must be the router's, the token's (EIP-2612) or the vault's
(ERC-7741) own. A wrong or hostile service (another receiver, a permit to a stranger, another operator, chain or
router) is refused with every difference named (NapTypedDataMismatchError), and nothing is signed or sent. What is
signed is the rebuilt typed data, so nothing the service added rides along.

The flow is written once as a generator of requests (`write_flow`, `wait_flow`); data.py drives it with its
synchronous or its asyncio transport.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from eth_account.messages import encode_typed_data

from .errors import NapError
from .signing import MessageSigner, as_signer
from .transport import HttpRequest

Amount = int | str
Fields = list[tuple[str, str]]

_FIELDS_DEPOSIT: Fields = [
    ("address", "owner"),
    ("address", "vault"),
    ("uint256", "assets"),
    ("address", "receiver"),
    ("uint256", "minShares"),
    ("uint256", "nonce"),
    ("uint256", "deadline"),
]
_FIELDS_REDEEM: Fields = [
    ("address", "owner"),
    ("address", "vault"),
    ("uint256", "shares"),
    ("address", "receiver"),
    ("uint256", "minAssets"),
    ("uint256", "nonce"),
    ("uint256", "deadline"),
]

#: The router's intents, field for field in the contract's order.
INTENT_TYPES: dict[str, Fields] = {
    "Deposit": _FIELDS_DEPOSIT,
    "Redeem": _FIELDS_REDEEM,
    "RequestRedeem": [
        ("address", "owner"),
        ("address", "vault"),
        ("uint256", "shares"),
        ("uint256", "nonce"),
        ("uint256", "deadline"),
    ],
    "Claim": list(_FIELDS_REDEEM),
    "CancelRedeem": [
        ("address", "owner"),
        ("address", "vault"),
        ("address", "receiver"),
        ("uint256", "nonce"),
        ("uint256", "deadline"),
    ],
}
#: EIP-2612 on the vault's asset: the router pulls the deposit without an approve transaction.
PERMIT_FIELDS: Fields = [
    ("address", "owner"),
    ("address", "spender"),
    ("uint256", "value"),
    ("uint256", "nonce"),
    ("uint256", "deadline"),
]
#: ERC-7741 on the vault: the router becomes the owner's operator, which every exit of the vault honours.
OPERATOR_FIELDS: Fields = [
    ("address", "controller"),
    ("address", "operator"),
    ("bool", "approved"),
    ("bytes32", "nonce"),
    ("uint256", "deadline"),
]
ROUTER_DOMAIN = {"name": "NAP Router", "version": "1"}
OPERATOR_DOMAIN_VERSION = "1"


@dataclass(frozen=True)
class _Param:
    sdk: str
    wire: str
    message: str
    kind: str  # "uint" or "address"
    absent: str | None = None  # "owner" or "zero" when it may be left out


@dataclass(frozen=True)
class _Action:
    segment: str
    primary_type: str
    params: tuple[_Param, ...]
    extra: str  # "permit" or "operator_authorization"


_RECEIVER = _Param("receiver", "receiver", "receiver", "address", "owner")
_SHARES = _Param("shares", "shares", "shares", "uint")
_MIN_ASSETS = _Param("min_assets", "min_assets", "minAssets", "uint", "zero")

ACTIONS: dict[str, _Action] = {
    "deposit": _Action(
        "deposit",
        "Deposit",
        (
            _Param("amount", "amount", "assets", "uint"),
            _RECEIVER,
            _Param("min_shares", "min_shares", "minShares", "uint", "zero"),
        ),
        "permit",
    ),
    "redeem": _Action("redeem", "Redeem", (_SHARES, _RECEIVER, _MIN_ASSETS), "operator_authorization"),
    "request_redeem": _Action("request-redeem", "RequestRedeem", (_SHARES,), "operator_authorization"),
    "claim": _Action("claim", "Claim", (_SHARES, _RECEIVER, _MIN_ASSETS), "operator_authorization"),
    "cancel_redeem": _Action("cancel-redeem", "CancelRedeem", (_RECEIVER,), "operator_authorization"),
}

_UINT = re.compile(r"^(0|[1-9]\d*)$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_BYTES32 = re.compile(r"^0x[0-9a-fA-F]{64}$")
_MAX_UINT256 = (1 << 256) - 1


class NapTypedDataMismatchError(NapError):
    """The typed data the service prepared does not say what was asked: nothing was signed, nothing was sent."""

    def __init__(self, request: str, problems: list[str]) -> None:
        super().__init__(
            f"{request}: the service's typed data does not match the request; nothing was signed: "
            + "; ".join(problems)
        )
        self.request = request
        self.problems = problems


class NapRelayError(NapError):
    """A relay that failed onchain (reason "failed") or was not final within the wait (reason "timeout")."""

    def __init__(self, message: str, reason: str, relay: Any) -> None:
        super().__init__(message)
        self.reason = reason
        self.relay = relay


def decimal_amount(name: str, value: Amount) -> str:
    """A base-unit amount as the API's decimal string; a negative, fractional or oversized one is refused here."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not _UINT.match(text) or int(text) > _MAX_UINT256:
        raise ValueError(f"{name} must be a whole number of base units (an int or decimal string), got {value!r}")
    return text


def is_address(value: Any) -> bool:
    return isinstance(value, str) and bool(_ADDRESS.match(value))


def _uint_text(value: Any) -> str | None:
    if isinstance(value, str) and _UINT.match(value):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    return None


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


class _Findings:
    def __init__(self, now: int, max_validity: int | None) -> None:
        self.problems: list[str] = []
        self.now = now
        self.max_validity = max_validity

    def differ(self, where: str, answered: Any, asked: str) -> None:
        self.problems.append(f"{where} is {_show(answered)}, asked {asked}")

    def address(self, where: str, answered: Any, asked: str) -> None:
        if not (is_address(answered) and answered.lower() == asked.lower()):
            self.differ(where, answered, asked)

    def uint(self, where: str, answered: Any, asked: str) -> None:
        text = _uint_text(answered)
        if text is None or int(text) != int(asked):
            self.differ(where, answered, asked)

    def deadline(self, where: str, answered: Any) -> None:
        text = _uint_text(answered)
        if text is None:
            self.differ(where, answered, "a uint256")
        elif self.max_validity is None:
            # The service dates deadlines by the chain's clock, which a test chain moves ahead at will.
            return
        elif int(text) <= self.now:
            self.problems.append(f"{where} is {text}, which has passed")
        elif int(text) > self.now + self.max_validity:
            self.problems.append(f"{where} is {text}, more than {self.max_validity} s from now")

    def types(self, where: str, data: Mapping[str, Any], primary: str, fields: Fields) -> bool:
        if data.get("primaryType") != primary:
            self.differ(f"{where}.primaryType", data.get("primaryType"), primary)
        answered = [(name, value) for name, value in (data.get("types") or {}).items() if name != "EIP712Domain"]
        same = (
            len(answered) == 1
            and answered[0][0] == primary
            and [(f.get("type"), f.get("name")) for f in answered[0][1]] == fields
        )
        if not same:
            listed = ",".join(f"{t} {n}" for t, n in fields)
            self.problems.append(f"{where}.types are not {primary}'s fields ({listed})")
        return same and data.get("primaryType") == primary

    def domain(
        self, where: str, data: Mapping[str, Any], chain_id: int, contract: str, name: str | None, version: str | None
    ) -> None:
        domain = data.get("domain") or {}
        keys = ",".join(sorted(domain))
        if keys != "chainId,name,verifyingContract,version":
            self.problems.append(f"{where}.domain has fields {keys}, not chainId,name,verifyingContract,version")
        if _uint_text(domain.get("chainId")) != str(chain_id):
            self.differ(f"{where}.domain.chainId", domain.get("chainId"), str(chain_id))
        self.address(f"{where}.domain.verifyingContract", domain.get("verifyingContract"), contract)
        if name is not None and domain.get("name") != name:
            self.differ(f"{where}.domain.name", domain.get("name"), name)
        if version is not None and domain.get("version") != version:
            self.differ(f"{where}.domain.version", domain.get("version"), version)
        if not isinstance(domain.get("name"), str) or not isinstance(domain.get("version"), str):
            self.problems.append(f"{where}.domain's name and version must be strings")

    def only_fields(self, where: str, message: Mapping[str, Any], fields: Fields) -> None:
        extra = [key for key in message if key not in {name for _, name in fields}]
        if extra:
            self.problems.append(f"{where}.message has fields the type does not: {', '.join(extra)}")


@dataclass(frozen=True)
class TypedData:
    """Typed data the SDK built and will sign: one primary type, no nested structs."""

    domain: dict[str, Any]
    primary_type: str
    fields: Fields
    message: dict[str, Any]


@dataclass(frozen=True)
class Expectations:
    action: _Action
    owner: str
    vault: str
    asked: dict[str, str]  # by the message's field name
    chain_id: int | None
    router: str | None
    asset: str | None
    now: int
    max_validity: int | None


def check_prepared(prepared: Mapping[str, Any], expected: Expectations) -> list[TypedData | None] | list[str]:
    """[intent, permit, operator authorisation] to sign, or the list of what the service answered otherwise."""
    found = _Findings(expected.now, expected.max_validity)
    action, owner, vault = expected.action, expected.owner, expected.vault
    chain_id = expected.chain_id if expected.chain_id is not None else prepared.get("chain_id")
    router = expected.router if expected.router is not None else prepared.get("router")
    if not is_address(router):
        return [f"router is {_show(prepared.get('router'))}, not an address"]
    if not isinstance(chain_id, int) or isinstance(chain_id, bool):
        return [f"chain_id is {_show(prepared.get('chain_id'))}, not a chain id"]
    assert isinstance(router, str)
    if expected.chain_id is not None and prepared.get("chain_id") != expected.chain_id:
        found.differ("chain_id", prepared.get("chain_id"), str(expected.chain_id))
    if expected.router is not None:
        found.address("router", prepared.get("router"), expected.router)
    found.address("vault", prepared.get("vault"), vault)

    intent = prepared.get("intent")
    if not isinstance(intent, Mapping) or not isinstance(intent.get("message"), Mapping):
        return [*found.problems, "intent is missing"]
    message = intent["message"]
    fields = INTENT_TYPES[action.primary_type]
    found.types("intent", intent, action.primary_type, fields)
    found.domain("intent", intent, chain_id, router, ROUTER_DOMAIN["name"], ROUTER_DOMAIN["version"])
    found.only_fields("intent", message, fields)
    found.address("intent.message.owner", message.get("owner"), owner)
    found.address("intent.message.vault", message.get("vault"), vault)
    for field, value in expected.asked.items():
        where = f"intent.message.{field}"
        if is_address(value):
            found.address(where, message.get(field), value)
        else:
            found.uint(where, message.get(field), value)
    nonce = _uint_text(message.get("nonce"))
    deadline = _uint_text(message.get("deadline"))
    if nonce is None:
        found.differ("intent.message.nonce", message.get("nonce"), "a uint256")
    else:
        found.uint("nonce", prepared.get("nonce"), nonce)
    found.deadline("intent.message.deadline", message.get("deadline"))
    if deadline is not None:
        found.uint("deadline", prepared.get("deadline"), deadline)

    other = "operator_authorization" if action.extra == "permit" else "permit"
    if prepared.get(other) is not None:
        found.problems.append(f"{other} is not part of this action")
    permit = _check_permit(found, prepared.get("permit"), expected, chain_id, router) if other != "permit" else None
    operator = (
        _check_operator(found, prepared.get("operator_authorization"), expected, chain_id, router)
        if other == "permit"
        else None
    )
    if found.problems:
        return found.problems
    values = {"owner": owner, "vault": vault, **expected.asked, "nonce": nonce, "deadline": deadline}
    signed_intent = TypedData(
        {**ROUTER_DOMAIN, "chainId": chain_id, "verifyingContract": router},
        action.primary_type,
        fields,
        {name: values[name] for _, name in fields},
    )
    return [signed_intent, permit, operator]


def _check_permit(
    found: _Findings, permit: Any, expected: Expectations, chain_id: int, router: str
) -> TypedData | None:
    if permit is None:
        return None
    if not isinstance(permit, Mapping) or not isinstance(permit.get("message"), Mapping):
        found.problems.append("permit.message is missing")
        return None
    if not found.types("permit", permit, "Permit", PERMIT_FIELDS):
        return None
    message = permit["message"]
    domain = permit.get("domain") or {}
    contract = expected.asset or str(domain.get("verifyingContract"))
    found.domain("permit", permit, chain_id, contract, None, None)
    found.only_fields("permit", message, PERMIT_FIELDS)
    found.address("permit.message.owner", message.get("owner"), expected.owner)
    found.address("permit.message.spender", message.get("spender"), router)
    found.uint("permit.message.value", message.get("value"), expected.asked.get("assets", "0"))
    if _uint_text(message.get("nonce")) is None:
        found.differ("permit.message.nonce", message.get("nonce"), "a uint256")
    found.deadline("permit.message.deadline", message.get("deadline"))
    return TypedData(
        {
            "name": str(domain.get("name")),
            "version": str(domain.get("version")),
            "chainId": chain_id,
            "verifyingContract": contract,
        },
        "Permit",
        PERMIT_FIELDS,
        {
            "owner": expected.owner,
            "spender": router,
            "value": expected.asked.get("assets"),
            "nonce": _uint_text(message.get("nonce")),
            "deadline": _uint_text(message.get("deadline")),
        },
    )


def _check_operator(
    found: _Findings, authorization: Any, expected: Expectations, chain_id: int, router: str
) -> TypedData | None:
    if authorization is None:
        return None
    where = "operator_authorization"
    if not isinstance(authorization, Mapping) or not isinstance(authorization.get("message"), Mapping):
        found.problems.append(f"{where}.message is missing")
        return None
    if not found.types(where, authorization, "AuthorizeOperator", OPERATOR_FIELDS):
        return None
    message = authorization["message"]
    found.domain(where, authorization, chain_id, expected.vault, None, OPERATOR_DOMAIN_VERSION)
    found.only_fields(where, message, OPERATOR_FIELDS)
    found.address(f"{where}.message.controller", message.get("controller"), expected.owner)
    found.address(f"{where}.message.operator", message.get("operator"), router)
    if message.get("approved") is not True:
        found.differ(f"{where}.message.approved", message.get("approved"), "true")
    nonce = message.get("nonce")
    if not (isinstance(nonce, str) and _BYTES32.match(nonce)):
        found.differ(f"{where}.message.nonce", nonce, "a bytes32")
    found.deadline(f"{where}.message.deadline", message.get("deadline"))
    return TypedData(
        {
            "name": str((authorization.get("domain") or {}).get("name")),
            "version": OPERATOR_DOMAIN_VERSION,
            "chainId": chain_id,
            "verifyingContract": expected.vault,
        },
        "AuthorizeOperator",
        OPERATOR_FIELDS,
        {
            "controller": expected.owner,
            "operator": router,
            "approved": True,
            "nonce": nonce,
            "deadline": _uint_text(message.get("deadline")),
        },
    )


def _typed_value(kind: str, value: Any) -> Any:
    if kind.startswith("uint"):
        return int(value)
    return value.lower() if kind == "address" else value


def sign_typed_data(signer: MessageSigner, data: TypedData) -> str:
    """The 0x hex EIP-712 signature of `data`, by any signer with `sign_message` (an eth-account LocalAccount)."""
    domain = {**data.domain, "verifyingContract": str(data.domain["verifyingContract"]).lower()}
    types = {data.primary_type: [{"name": name, "type": kind} for kind, name in data.fields]}
    message = {name: _typed_value(kind, data.message[name]) for kind, name in data.fields}
    signature = signer.sign_message(encode_typed_data(domain, types, message)).signature
    text = signature.hex() if isinstance(signature, bytes) else str(signature)
    return text if text.startswith("0x") else "0x" + text


@dataclass(frozen=True)
class SignedWriteOptions:
    """The chain and router the wallet expects (default: the service's), and the longest deadline accepted from
    this machine's clock (default: no bound, for chains whose time is not the wall clock's)."""

    chain_id: int | None = None
    router: str | None = None
    max_validity_seconds: int | None = None


def _segment(value: str) -> str:
    return quote(value, safe="")


def write_flow(
    action_name: str,
    request: Mapping[str, Any],
    wallet: MessageSigner | str,
    options: SignedWriteOptions,
    idempotency_key: str | None,
) -> Generator[HttpRequest, Any, Any]:
    """Yields each request to send and receives its answer (parsed JSON); returns the submit's answer."""
    action = ACTIONS[action_name]
    signer = as_signer(wallet)
    owner = signer.address
    asked: list[tuple[_Param, str]] = []
    for param in action.params:
        value = request.get(param.sdk)
        if value is None:
            if param.absent is None:
                raise ValueError(f"{param.sdk} is required")
            asked.append((param, owner if param.absent == "owner" else "0"))
        elif param.kind == "uint":
            asked.append((param, decimal_amount(param.sdk, value)))
        elif not is_address(value):
            raise ValueError(f"{param.sdk} must be a 0x address, got {value!r}")
        else:
            asked.append((param, value))
    vault_param = str(request["vault"])
    detail: Mapping[str, Any] = {}
    if not is_address(vault_param) or action.extra == "permit":
        detail = yield HttpRequest("GET", f"/v1/vaults/{_segment(vault_param)}")
    vault = vault_param if is_address(vault_param) else str(detail.get("address"))
    path = f"/v1/vaults/{_segment(vault)}/{action.segment}"
    query = {"owner": owner, **{param.wire: value for param, value in asked}}
    prepared = yield HttpRequest("GET", f"{path}/typed-data", query=query)
    checked = check_prepared(
        prepared,
        Expectations(
            action=action,
            owner=owner,
            vault=vault,
            asked={param.message: value for param, value in asked},
            chain_id=options.chain_id,
            router=options.router,
            asset=detail.get("asset"),
            now=int(time.time()),
            max_validity=options.max_validity_seconds,
        ),
    )
    if checked and isinstance(checked[0], str):
        raise NapTypedDataMismatchError(f"GET {path}/typed-data", [str(p) for p in checked])
    intent, permit, operator = (c if isinstance(c, TypedData) else None for c in checked)
    assert intent is not None
    body: dict[str, Any] = {
        "owner": owner,
        **{param.wire: value for param, value in asked},
        "nonce": intent.message["nonce"],
        "deadline": intent.message["deadline"],
        "signature": sign_typed_data(signer, intent),
    }
    if permit is not None:
        body["permit"] = {
            "value": permit.message["value"],
            "deadline": permit.message["deadline"],
            "signature": sign_typed_data(signer, permit),
        }
    if operator is not None:
        body["operator_authorization"] = {
            "nonce": operator.message["nonce"],
            "deadline": operator.message["deadline"],
            "signature": sign_typed_data(signer, operator),
        }
    key = idempotency_key or str(uuid.uuid4())
    return (yield HttpRequest("POST", path, body=body, idempotency_key=key))


_RELAY_ID = re.compile(r"^0x[0-9a-fA-F]{64}$")


def relay_request(relay_id: str) -> HttpRequest:
    if not _RELAY_ID.match(relay_id):
        raise ValueError(f"relay_id must be a 0x-prefixed 32-byte hex digest, got {relay_id!r}")
    return HttpRequest("GET", f"/v1/relays/{relay_id}")


def wait_flow(relay_id: str, timeout: float, interval: float) -> Generator[HttpRequest | float, Any, Any]:
    """Yields the relay's read (answered with its JSON) or a pause in seconds, until it is confirmed (returned) or
    failed (NapRelayError), at most `timeout` seconds."""
    until = time.monotonic() + timeout
    while True:
        relay = yield relay_request(relay_id)
        status = relay.get("status")
        if status == "confirmed":
            return relay
        if status == "failed":
            error = relay.get("error") or {}
            why = f"{error.get('code')}: {error.get('message')}" if error else "no reason given"
            raise NapRelayError(f"relay {relay_id} failed ({why})", "failed", relay)
        if time.monotonic() + interval > until:
            raise NapRelayError(f"relay {relay_id} still {status} after {timeout:g} s", "timeout", relay)
        yield interval
