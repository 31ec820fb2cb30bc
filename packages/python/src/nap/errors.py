"""The SDK's exceptions, mirroring the TypeScript SDK's (packages/sdk/src/errors.ts).

Every answer of the API that is not a 2xx becomes a NapApiError (or its subclass for the status) carrying the API's
own message, the status, the error code and field when the API gives them, the parsed body and, for 429 and 503, the
seconds the API asked to wait. The message is read from each of the API's error shapes: the live API's
``{"error": "..."}``, the data API's ``{"error": {"code", "message", "details"}}`` and GraphQL's
``{"errors": [{"message", "extensions": {"code"}}]}``.
"""

from __future__ import annotations

import re
from typing import Any

# The live API's validation messages start with the field they are about ("agent_name: must be at least 3 ...").
_LEADING_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*): ")


class NapError(Exception):
    """Base of every exception the SDK raises."""


class NapApiError(NapError):
    """The API answered with an error status."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        request: str,
        body: Any = None,
        code: str | None = None,
        field: str | None = None,
        retry_after_seconds: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        """HTTP status."""
        self.request = request
        """Method and path of the request, for logs."""
        self.body = body
        """The parsed answer (JSON when it was JSON, else the text)."""
        self.code = code
        """The data API's or GraphQL's error code (VAULT_NOT_FOUND, RATE_LIMITED ...); None for the live API."""
        self.field = field
        """The input at fault, when the API names one."""
        self.retry_after_seconds = retry_after_seconds
        """Retry-After in seconds, when the API sent it."""

    def __str__(self) -> str:
        return f"{self.request}: {self.status}{f' {self.code}' if self.code else ''}: {self.message}"


class NapValidationError(NapApiError):
    """400: the message names the field and the rule (also a transaction the contract would reject, or no gas)."""


class NapAuthError(NapApiError):
    """401 or 403: missing or unknown key, a tier too low for the operation, or a data key without the scope."""


class NapNotFoundError(NapApiError):
    """404."""


class NapConflictError(NapApiError):
    """409: the resource exists, the Idempotency-Key was used for another request, or the state does not allow it."""


class NapRateLimitError(NapApiError):
    """429: a rate limit or a cooldown; retry_after_seconds says when to come back."""


class NapUnavailableError(NapApiError):
    """502, 503: the chain, a wallet or a dependency is unavailable."""


class NapGraphQLError(NapApiError):
    """A GraphQL answer whose ``errors`` say what went wrong (HTTP 200; ``data`` holds the other fields)."""

    def __init__(self, errors: list[dict[str, Any]], data: Any, request: str) -> None:
        first = errors[0] if errors else {}
        super().__init__(
            "; ".join(str(e.get("message")) for e in errors),
            status=200,
            request=request,
            body={"errors": errors, "data": data},
            code=(first.get("extensions") or {}).get("code"),
            field=(first.get("extensions") or {}).get("field"),
        )
        self.errors = errors
        self.data = data


class NapNetworkError(NapError):
    """No usable answer: the API could not be reached (connection refused, DNS, reset)."""

    def __init__(self, message: str, request: str) -> None:
        super().__init__(message)
        self.request = request


class NapTimeoutError(NapNetworkError):
    """No complete answer within the client's timeout; not resent (the server may still be working on it)."""


class NapResponseTooLargeError(NapNetworkError):
    """The answer was longer than the client's max_response_bytes: reading stopped there."""


class NapRedirectError(NapNetworkError):
    """The server redirected: not followed, so neither the request nor its key left the API's origin."""


class NapSubscriptionError(NapError):
    """A subscription ended for good: the server refused it (an error code, or a close code it should not retry)."""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        close_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.close_code = close_code


def _describe(status: int, body: Any) -> tuple[str, str | None, str | None]:
    """The message, code and field of an error body, whichever of the API's shapes it has."""
    if not isinstance(body, dict):
        return (f"HTTP {status}", None, None)
    error, errors = body.get("error"), body.get("errors")
    if isinstance(error, str):
        match = _LEADING_FIELD.match(error) if status == 400 else None
        return (error, body.get("code"), match.group(1) if match else None)
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        details = error.get("details")
        field = details.get("field") if isinstance(details, dict) else None
        return (error["message"], error.get("code"), field if isinstance(field, str) else None)
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        extensions = errors[0].get("extensions") or {}
        return ("; ".join(str(e.get("message")) for e in errors), extensions.get("code"), extensions.get("field"))
    return (f"HTTP {status}", None, None)


_BY_STATUS: dict[int, type[NapApiError]] = {
    400: NapValidationError,
    401: NapAuthError,
    403: NapAuthError,
    404: NapNotFoundError,
    409: NapConflictError,
    429: NapRateLimitError,
    502: NapUnavailableError,
    503: NapUnavailableError,
}


def error_for(status: int, body: Any, retry_after_seconds: int | None, request: str) -> NapApiError:
    """The exception for an error answer: its class by status, its message, code and field from the body."""
    message, code, field = _describe(status, body)
    kind = _BY_STATUS.get(status, NapApiError)
    return kind(
        message,
        status=status,
        request=request,
        body=body,
        code=code,
        field=field,
        retry_after_seconds=retry_after_seconds,
    )
