"""The HTTP transport every client shares: one request with bounded retries, over httpx (sync or async).

- A 429 or 503 with Retry-After is resent after that many seconds, at most ``max_retries`` times and only when the
  wait is at most ``max_retry_wait_seconds``; a longer one (a faucet cooldown of a day) is raised at once.
- A request that never got an answer (refused, reset) is resent only when that is safe: reads, and writes that
  carry an Idempotency-Key (kept the same on every attempt, so the server runs the operation once).
- A timeout is not resent: the server may still be working on it.

Against a hostile or broken server: an answer whose body is still coming after `timeout` seconds in all is abandoned
(NapTimeoutError); one longer than `max_response_bytes` is read as a stream and abandoned at the cap, never buffered
whole (NapResponseTooLargeError); redirects are not followed, so a key never leaves the API's origin
(NapRedirectError). None of these is resent.

The decisions live in ``Exchange``, the same for both transports; only the sending and the sleeping differ.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

import httpx
from typing_extensions import Self, Unpack

from .errors import NapNetworkError, NapRedirectError, NapResponseTooLargeError, NapTimeoutError, error_for
from .version import __version__

DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
RETRYABLE_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    """Resends of a 429/503 with Retry-After and of a request that got no answer."""
    max_retry_wait_seconds: float = 30
    """Longest Retry-After honoured by waiting; longer ones are raised."""
    network_retry_delay_seconds: float = 0.5
    """First wait before resending a request that got no answer, doubled each time."""


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    query: Mapping[str, Any] | None = None
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str | None = None
    """Sent as Idempotency-Key; makes the request safe to resend after no answer."""


@dataclass(frozen=True)
class Retry:
    wait_seconds: float
    reason: str


OnRetry = Callable[[int, float, str], None]
"""Called before each resend with the attempt number (1-based), the wait in seconds and why."""


def retry_after_seconds(value: str | None) -> int | None:
    """Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0, int(-(-(when.timestamp() - time.time()) // 1)))


class Exchange:
    """One call's attempts: what to send, and after each attempt whether to return, resend or raise."""

    def __init__(self, request: HttpRequest, policy: RetryPolicy) -> None:
        self.request = request
        self.policy = policy
        self.label = f"{request.method} {request.path}"
        headers = {"accept": "application/json", "user-agent": f"nap-sdk-python/{__version__}", **request.headers}
        if request.idempotency_key:
            headers["Idempotency-Key"] = request.idempotency_key
        content = None
        if request.body is not None:
            headers["content-type"] = "application/json"
            content = json.dumps(request.body, separators=(",", ":")).encode()
        query = {
            name: str(value).lower() if isinstance(value, bool) else str(value)
            for name, value in (request.query or {}).items()
            if value is not None
        }
        self.send_args: dict[str, Any] = {
            "method": request.method,
            "url": request.path,
            "params": query,
            "headers": headers,
            "content": content,
        }
        self.safe_to_resend = request.method == "GET" or request.idempotency_key is not None

    def after_failure(self, attempt: int, error: httpx.TransportError, base_url: str) -> Retry:
        """A request that got no answer: the wait before resending it, or the exception to raise."""
        if isinstance(error, httpx.TimeoutException):
            raise NapTimeoutError(f"{self.label}: no complete answer in time: {error}", self.label) from error
        if self.safe_to_resend and attempt < self.policy.max_retries:
            wait = self.policy.network_retry_delay_seconds * 2**attempt
            return Retry(wait, f"no answer: {error}")
        raise NapNetworkError(f"{self.label}: no answer from {base_url}: {error}", self.label) from error

    def deadline_passed(self, deadline: float) -> None:
        if time.monotonic() > deadline:
            raise NapTimeoutError(f"{self.label}: no complete answer in time", self.label)

    def body_too_large(self, max_bytes: int) -> NapResponseTooLargeError:
        message = f"{self.label}: the answer is larger than {max_bytes} bytes (max_response_bytes); reading stopped"
        return NapResponseTooLargeError(message, self.label)

    def check_declared_length(self, response: httpx.Response, max_bytes: int) -> None:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise self.body_too_large(max_bytes)

    def after_answer(self, attempt: int, response: httpx.Response, content: bytes) -> Any:
        """The parsed 2xx body; a Retry for a 429/503 worth waiting for; else raises the API's error."""
        status = response.status_code
        if 300 <= status < 400 and "location" in response.headers:
            location = response.headers["location"]
            raise NapRedirectError(f"{self.label}: the server redirected to {location}; not followed", self.label)
        text = content.decode("utf-8", errors="replace").lstrip("\ufeff")
        body: Any = text
        try:
            body = None if text == "" else json.loads(text)
        except ValueError:
            pass  # not JSON: kept as text
        if response.is_success:
            return body
        wait = retry_after_seconds(response.headers.get("retry-after"))
        error = error_for(status, body, wait, self.label)
        if (
            status in RETRYABLE_STATUSES
            and wait is not None
            and wait <= self.policy.max_retry_wait_seconds
            and attempt < self.policy.max_retries
        ):
            return Retry(wait, error.message)
        raise error


def _client_args(base_url: str, timeout: float) -> dict[str, Any]:
    return {"base_url": base_url.rstrip("/"), "timeout": timeout, "follow_redirects": False}


class SyncTransport:
    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        retry: RetryPolicy | None = None,
        on_retry: OnRetry | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self.http = http or httpx.Client(**_client_args(base_url, timeout))

    def _attempt(self, exchange: Exchange, attempt: int) -> Any:
        deadline = time.monotonic() + self.timeout
        with self.http.stream(**exchange.send_args) as response:
            exchange.check_declared_length(response, self.max_response_bytes)
            content = bytearray()
            for chunk in response.iter_bytes():
                content += chunk
                if len(content) > self.max_response_bytes:
                    raise exchange.body_too_large(self.max_response_bytes)
                exchange.deadline_passed(deadline)
        return exchange.after_answer(attempt, response, bytes(content))

    def request(self, request: HttpRequest) -> Any:
        exchange = Exchange(request, self.retry)
        attempt = 0
        while True:
            try:
                outcome = self._attempt(exchange, attempt)
            except httpx.TransportError as error:
                outcome = exchange.after_failure(attempt, error, self.base_url)
            if not isinstance(outcome, Retry):
                return outcome
            attempt += 1
            if self.on_retry:
                self.on_retry(attempt, outcome.wait_seconds, outcome.reason)
            time.sleep(outcome.wait_seconds)

    def close(self) -> None:
        self.http.close()


class AsyncTransport:
    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        retry: RetryPolicy | None = None,
        on_retry: OnRetry | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self.http = http or httpx.AsyncClient(**_client_args(base_url, timeout))

    async def _attempt(self, exchange: Exchange, attempt: int) -> Any:
        deadline = time.monotonic() + self.timeout
        async with self.http.stream(**exchange.send_args) as response:
            exchange.check_declared_length(response, self.max_response_bytes)
            content = bytearray()
            async for chunk in response.aiter_bytes():
                content += chunk
                if len(content) > self.max_response_bytes:
                    raise exchange.body_too_large(self.max_response_bytes)
                exchange.deadline_passed(deadline)
        return exchange.after_answer(attempt, response, bytes(content))

    async def request(self, request: HttpRequest) -> Any:
        exchange = Exchange(request, self.retry)
        attempt = 0
        while True:
            try:
                outcome = await self._attempt(exchange, attempt)
            except httpx.TransportError as error:
                outcome = exchange.after_failure(attempt, error, self.base_url)
            if not isinstance(outcome, Retry):
                return outcome
            attempt += 1
            if self.on_retry:
                self.on_retry(attempt, outcome.wait_seconds, outcome.reason)
            await asyncio.sleep(outcome.wait_seconds)

    async def aclose(self) -> None:
        await self.http.aclose()


class SessionOptions(TypedDict, total=False):
    """The transport's options, which every client takes beside its base URL, API key and own httpx client."""

    timeout: float
    max_response_bytes: int
    retry: RetryPolicy | None
    on_retry: OnRetry | None


class SyncSession:
    """What every synchronous client holds: its API key and one transport, closed by ``close()`` or ``with``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        http: httpx.Client | None = None,
        **options: Unpack[SessionOptions],
    ) -> None:
        self.api_key = api_key
        self._transport = SyncTransport(base_url, http=http, **options)
        self.base_url = self._transport.base_url

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncSession:
    """What every asyncio client holds: its API key and one transport, closed by ``aclose()`` or ``async with``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        http: httpx.AsyncClient | None = None,
        **options: Unpack[SessionOptions],
    ) -> None:
        self.api_key = api_key
        self._transport = AsyncTransport(base_url, http=http, **options)
        self.base_url = self._transport.base_url

    async def aclose(self) -> None:
        await self._transport.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
