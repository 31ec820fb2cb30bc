"""NAP's Python SDK: the live agent API and the public data API, synchronous and asynchronous (httpx), with typed
models generated from the two OpenAPI documents, registration signed with eth-account, retries that honour
Retry-After, an Idempotency-Key on every call that moves value, and subscriptions that resume from the last seq.
"""

from .client import AsyncNapClient, NapClient
from .data import AsyncNapDataClient, NapDataClient
from .errors import (
    NapApiError,
    NapAuthError,
    NapConflictError,
    NapError,
    NapGraphQLError,
    NapNetworkError,
    NapNotFoundError,
    NapRateLimitError,
    NapRedirectError,
    NapResponseTooLargeError,
    NapSubscriptionError,
    NapTimeoutError,
    NapUnavailableError,
    NapValidationError,
)
from .signed_writes import NapRelayError, NapTypedDataMismatchError, SignedWriteOptions
from .subscriptions import ReconnectPolicy, Subscription, SubscriptionEvent, SyncSubscription
from .transport import RetryPolicy
from .version import __version__

__all__ = [
    "AsyncNapClient",
    "AsyncNapDataClient",
    "NapApiError",
    "NapAuthError",
    "NapClient",
    "NapConflictError",
    "NapDataClient",
    "NapError",
    "NapGraphQLError",
    "NapNetworkError",
    "NapNotFoundError",
    "NapRateLimitError",
    "NapRedirectError",
    "NapRelayError",
    "NapResponseTooLargeError",
    "NapSubscriptionError",
    "NapTimeoutError",
    "NapTypedDataMismatchError",
    "NapUnavailableError",
    "NapValidationError",
    "ReconnectPolicy",
    "RetryPolicy",
    "SignedWriteOptions",
    "Subscription",
    "SubscriptionEvent",
    "SyncSubscription",
    "__version__",
]
