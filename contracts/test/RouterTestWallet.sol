// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title RouterTestWallet
/// @notice Tests only: a contract wallet (EIP-1271) whose signatures are its key's ECDSA signatures while it accepts
///         signatures at all; the key may switch that off, as a wallet whose signer was rotated or revoked.
/// @dev Not for production: `execute` lets the key make any call (an approval of the router, a share approval).
contract RouterTestWallet is IERC1271 {
    /// @notice The key that signs for this wallet and may make it call.
    address public immutable key;
    /// @notice Whether isValidSignature accepts the key's signatures.
    bool public accepting = true;

    /// @notice Thrown when someone other than the key asks the wallet to act.
    error NotKey(address caller);

    /// @param key_ The externally owned account that signs for this wallet.
    constructor(address key_) {
        key = key_;
    }

    /// @notice Turns the wallet's acceptance of its key's signatures on or off (the key only).
    /// @param on Whether signatures are accepted from now on.
    function setAccepting(bool on) external {
        if (msg.sender != key) revert NotKey(msg.sender);
        accepting = on;
    }

    /// @notice Calls `target` with `data` from the wallet (the key only).
    /// @param target Called contract.
    /// @param data Calldata.
    /// @return result What the call returned.
    function execute(address target, bytes calldata data) external returns (bytes memory result) {
        if (msg.sender != key) revert NotKey(msg.sender);
        return Address.functionCall(target, data);
    }

    /// @notice EIP-1271: 0x1626ba7e when accepting and `signature` is the key's signature of `hash`.
    /// @param hash The signed digest.
    /// @param signature A 65-byte ECDSA signature.
    /// @return magicValue 0x1626ba7e if valid, 0xffffffff otherwise.
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4 magicValue) {
        (address recovered, ECDSA.RecoverError error, ) = ECDSA.tryRecover(hash, signature);
        if (accepting && error == ECDSA.RecoverError.NoError && recovered == key) {
            return IERC1271.isValidSignature.selector;
        }
        return 0xffffffff;
    }
}
