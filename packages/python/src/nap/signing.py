"""Signing a message the API hands out (registration, data API keys) with eth-account: EIP-191 personal_sign."""

from __future__ import annotations

from typing import Any, Protocol

from eth_account import Account
from eth_account.messages import SignableMessage, encode_defunct


class MessageSigner(Protocol):
    """What a wallet needs to register an agent: an eth-account LocalAccount has both."""

    @property
    def address(self) -> str: ...

    def sign_message(self, signable_message: SignableMessage) -> Any: ...


def as_signer(wallet: MessageSigner | str) -> MessageSigner:
    """A LocalAccount (or anything with address and sign_message) as is; a private key (0x hex) as its account."""
    return Account.from_key(wallet) if isinstance(wallet, str) else wallet


def sign_text(signer: MessageSigner, text: str) -> str:
    """The 0x-prefixed hex EIP-191 signature of `text`."""
    signature = signer.sign_message(encode_defunct(text=text)).signature
    hex_text = signature.hex() if isinstance(signature, bytes) else str(signature)
    return hex_text if hex_text.startswith("0x") else "0x" + hex_text
